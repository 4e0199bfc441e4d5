// Pass 3: the display of globals that the script writes but never reads.
// Like stap, xtap prints them when the session ends (after the end probes;
// an array's entries by value, largest first):
//   count=5   s="text"   a["x",1]=7   st @count=3 @min=1 @max=9 @sum=13 @avg=4
#include "codegen/display_unread.h"
#include "codegen/body_emitter.h"

namespace xtap {
namespace {

// A tapset's globals are its own state, not results the script left unread.
bool displayed(const GlobalDecl &g) { return g.written && !g.read && !g.from_tapset; }

// printf pieces for an array entry's keys: ["x",1]
void key_format(const GlobalDecl &g, const std::string &m, std::string *fmt, std::string *args) {
  *fmt += "[";
  for (size_t i = 0; i < g.key_types.size(); ++i) {
    if (i) *fmt += ",";
    std::string idx = std::to_string(i);
    if (g.key_types[i] == Type::String) {
      *fmt += "\\\"%s\\\"";
      *args += ", xtap_entry_key_str(" + m + ", e, " + idx + ")";
    } else {
      *fmt += "%lld";
      *args += ", (long long)xtap_entry_key_long(" + m + ", e, " + idx + ")";
    }
  }
  *fmt += "]";
}

const StatOp kStatOps[] = {StatOp::Count, StatOp::Min, StatOp::Max, StatOp::Sum, StatOp::Avg};

}  // namespace

std::string emit_unread_display(const Script &s, const std::string &name, std::string *lock_table,
                                size_t *nlocks) {
  std::vector<const GlobalDecl *> gs;
  for (const auto &g : s.globals)
    if (displayed(*g)) gs.push_back(g.get());
  if (gs.empty()) return "";

  CWriter w;
  w.line("static void " + name + "(struct xtap_context *c)");
  w.open("{");
  w.line("struct xtap_map_entry *e __maybe_unused;");
  w.line("s64 v __maybe_unused;");
  w.line();
  for (const auto *g : gs) {
    std::string n = global_c_name(*g);
    std::string label = display_name(g->name);
    if (!g->is_array) {
      if (g->type == Type::Stat) {
        w.open("if (!xtap_stat_get(c, " + n + ", XTAP_OP_COUNT, &v) && v > 0) {");
        w.line("xtap_print_str(c, " + c_string_literal(label) + ");");
        for (StatOp op : kStatOps) {
          w.line("xtap_stat_get(c, " + n + ", " + stat_op_constant(op) + ", &v);");
          w.line("xtap_printf(c, \" @" + std::string(stat_op_name(op)) + "=%lld\", (long long)v);");
        }
        w.line("xtap_print_str(c, \"\\n\");");
        w.close();
      } else if (g->type == Type::String) {
        w.line("xtap_printf(c, " + c_string_literal(label + "=\"%s\"\n") + ", " + n + ");");
      } else {
        w.line("xtap_printf(c, " + c_string_literal(label + "=%lld\n") + ", (long long)" + n +
               ");");
      }
      continue;
    }
    std::string fmt = label, args;
    key_format(*g, n, &fmt, &args);
    // stap lists an array's entries by value, largest first.
    w.line("xtap_map_sort(" + n + ", 0, 1, XTAP_OP_COUNT);");
    w.open("for (e = xtap_map_first(" + n + "); e; e = xtap_map_next(" + n + ", e)) {");
    if (g->type == Type::Stat) {
      w.line("xtap_printf(c, \"" + fmt + "\"" + args + ");");
      for (StatOp op : kStatOps)
        w.line("xtap_printf(c, \" @" + std::string(stat_op_name(op)) +
               "=%lld\", (long long)xtap_entry_stat(" + n + ", e, " + stat_op_constant(op) + "));");
      w.line("xtap_print_str(c, \"\\n\");");
    } else if (g->type == Type::String) {
      w.line("xtap_printf(c, \"" + fmt + "=\\\"%s\\\"\\n\"" + args + ", xtap_entry_value_str(" + n +
             ", e));");
    } else {
      w.line("xtap_printf(c, \"" + fmt + "=%lld\\n\"" + args +
             ", (long long)xtap_entry_value_long(" + n + ", e));");
    }
    w.close();
  }
  // An error raised here (an empty aggregate, say) is not the script's.
  w.line("c->error = NULL;");
  w.close();
  *lock_table = name + "_locks";
  w.open("static const struct xtap_lock_req " + *lock_table + "[] = {");
  for (const auto *g : gs)
    w.line("{ .global = " + std::to_string(g->index) + ", .write = 1 }, /* " + g->name + " */");
  w.close("};");
  *nlocks = gs.size();
  return w.str();
}

}  // namespace xtap
