// Pass 3: the snapshot table. The runtime walks it to dump the globals
// (runtime-kmod/snapshot.c) rather than each script carrying a generated
// dump function: one reviewed piece of kernel C takes the locks and writes
// the format, and a script pays a few words per global, nothing on a
// probe's path.
#include "codegen/emit_snapshot.h"

#include "codegen/body_emitter.h"

namespace xtap {

void emit_snapshot_table(CWriter &w, const Script &s, std::vector<std::string> *fields) {
  std::vector<std::string> rows;
  for (const auto &g : s.globals) {
    if (g->from_tapset) continue;
    std::string n = global_c_name(*g);
    std::string row = "{ .name = " + c_string_literal(display_name(g->name)) +
                      ", .lock = " + std::to_string(g->index);
    if (g->is_array) row += ", .map = &" + n;
    else if (g->type == Type::Stat) row += ", .stat = &" + n;
    else if (g->type == Type::String) row += ", .type = XTAP_T_STRING, .scalar = " + n;
    else row += ", .type = XTAP_T_LONG, .scalar = &" + n;
    rows.push_back(row + " },");
  }
  if (rows.empty()) return;
  w.open("static const struct xtap_snap_global xtap_snap_globals[] = {");
  for (const auto &r : rows) w.line(r);
  w.close("};");
  fields->push_back(".snap = xtap_snap_globals");
  fields->push_back(".nsnap = " + std::to_string(rows.size()));
}

}  // namespace xtap
