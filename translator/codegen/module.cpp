#include "codegen/module.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <xtap/abi.h>

#include "codegen/body_emitter.h"
#include "codegen/data_symbols.h"
#include "codegen/display_unread.h"
#include "codegen/user_symbols.h"
#include "probes/begin_end.h"

namespace xtap {

namespace {
constexpr unsigned long long kMaxActionLimit = 1ull << 31;
constexpr unsigned long long kMaxTrylockLimit = 1ull << 31;
}  // namespace

void Limits::lift_time_limits() {
  maxaction = kMaxActionLimit;
  maxaction_interruptible = kMaxActionLimit;
  maxtrylock = kMaxTrylockLimit;
  no_overload = 1;  // as stap: the overload guard is a time limit too
}

std::string Limits::set(const std::string &name, const std::string &value) {
  struct Field {
    const char *name;
    unsigned long long Limits::*field;
    unsigned long long min, max;
  };
  static const Field fields[] = {
      {"MAXSTRINGLEN", &Limits::maxstringlen, 16, 65536},
      {"MAXACTION", &Limits::maxaction, 1, kMaxActionLimit},
      {"MAXACTION_INTERRUPTIBLE", &Limits::maxaction_interruptible, 1, kMaxActionLimit},
      {"MAXNESTING", &Limits::maxnesting, 1, 1024},
      {"MAXMAPENTRIES", &Limits::maxmapentries, 1, 1ull << 24},
      {"MAXSKIPPED", &Limits::maxskipped, 0, 1ull << 31},
      {"MAXERRORS", &Limits::maxerrors, 0, 1ull << 31},
      {"MAXTRYLOCK", &Limits::maxtrylock, 1, kMaxTrylockLimit},
      {"STP_BUFFER_SUBBUF_SIZE", &Limits::subbuf_size, XTAP_RELAY_MIN_SUBBUF_SIZE,
       XTAP_RELAY_MAX_SUBBUF_SIZE},
      {"STP_BUFFER_SUBBUFS", &Limits::n_subbufs, XTAP_RELAY_MIN_SUBBUFS, XTAP_RELAY_MAX_SUBBUFS},
      {"STP_OVERLOAD_INTERVAL", &Limits::overload_interval, 1000, 1ull << 62},
      {"STP_OVERLOAD_THRESHOLD", &Limits::overload_threshold, 1, 1ull << 62},
      {"STP_NO_OVERLOAD", &Limits::no_overload, 0, 1},
  };
  for (const auto &f : fields) {
    if (name != f.name) continue;
    char *end = nullptr;
    unsigned long long v = strtoull(value.c_str(), &end, 0);
    if (value.empty() || *end || value[0] == '-')
      return "-D" + name + " needs a number, not '" + value + "'";
    if (v < f.min || v > f.max)
      return "-D" + name + "=" + value + " is out of range (" + std::to_string(f.min) + ".." +
             std::to_string(f.max) + ")";
    this->*f.field = v;
    return "";
  }
  return "unknown limit -D" + name +
         " (known: MAXSTRINGLEN MAXACTION MAXACTION_INTERRUPTIBLE MAXNESTING MAXMAPENTRIES "
         "MAXSKIPPED MAXERRORS MAXTRYLOCK "
         "STP_BUFFER_SUBBUF_SIZE STP_BUFFER_SUBBUFS STP_OVERLOAD_INTERVAL STP_OVERLOAD_THRESHOLD "
         "STP_NO_OVERLOAD)";
}

namespace {

std::string handler_name(size_t i) { return "xtap_probe_" + std::to_string(i); }

void emit_globals(CWriter &w, const Script &s) {
  for (const auto &g : s.globals) {
    std::string n = global_c_name(*g);
    if (g->is_array) w.line("static struct xtap_map *" + n + ";");
    else if (g->type == Type::Stat) w.line("static struct xtap_stat *" + n + ";");
    else if (g->type == Type::String) w.line("static char " + n + "[MAXSTRINGLEN];");
    else w.line("static s64 " + n + ";");
  }
  if (!s.globals.empty()) w.line();

  w.line("static void xtap_init_globals(void)");
  w.open("{");
  for (const auto &g : s.globals) {
    if (!g->init) continue;
    if (g->type == Type::String)
      w.line("xtap_str_copy(" + global_c_name(*g) + ", " + c_string_literal(g->init->text) + ");");
    else w.line(global_c_name(*g) + " = " + std::to_string(g->init->number) + "LL;");
  }
  w.close();
  w.line();
}

std::string stat_desc(const GlobalDecl &g) {
  static const char *kinds[] = {"XTAP_HIST_NONE", "XTAP_HIST_LINEAR", "XTAP_HIST_LOG"};
  return std::string("{ .hist = ") + kinds[g.hist] + ", .lo = " + std::to_string(g.hist_lo) +
         ", .hi = " + std::to_string(g.hist_hi) + ", .step = " + std::to_string(g.hist_step) +
         ", .bit_shift = " + std::to_string(std::max(g.variance_shift, 0)) +
         ", .variance = " + (g.uses_variance ? "1" : "0") + " }";
}

void emit_stats(CWriter &w, const Script &s, std::vector<std::string> &fields) {
  std::vector<const GlobalDecl *> stats;
  for (const auto &g : s.globals)
    if (!g->is_array && g->type == Type::Stat) stats.push_back(g.get());
  if (stats.empty()) return;
  w.open("static const struct xtap_stat_spec xtap_stats[] = {");
  for (const auto *g : stats)
    w.line("{ .stat = &" + global_c_name(*g) + ", .name = " + c_string_literal(g->name) +
           ", .desc = " + stat_desc(*g) + " },");
  w.close("};");
  fields.push_back(".stats = xtap_stats");
  fields.push_back(".nstats = " + std::to_string(stats.size()));
}

void emit_maps(CWriter &w, const Script &s, std::vector<std::string> &fields) {
  std::vector<const GlobalDecl *> arrays;
  for (const auto &g : s.globals)
    if (g->is_array) arrays.push_back(g.get());
  if (arrays.empty()) return;
  auto t = [](Type x) {
    return x == Type::String ? "XTAP_T_STRING" : x == Type::Stat ? "XTAP_T_STAT" : "XTAP_T_LONG";
  };
  w.open("static const struct xtap_map_spec xtap_maps[] = {");
  for (const auto *g : arrays) {
    std::string keys;
    for (Type k : g->key_types) keys += std::string(keys.empty() ? "" : ", ") + t(k);
    w.line("{ .map = &" + global_c_name(*g) + ", .name = " + c_string_literal(g->name) +
           ", .nkeys = " + std::to_string(g->key_types.size()) + ", .key_types = { " + keys +
           " }, .value_type = " + t(g->type) +
           ", .max_entries = " + std::to_string(g->max_entries) + (g->wrap ? ", .wrap = 1" : "") +
           (g->type == Type::Stat ? ", .stat = " + stat_desc(*g) : "") + " },");
  }
  w.close("};");
  fields.push_back(".maps = xtap_maps");
  fields.push_back(".nmaps = " + std::to_string(arrays.size()));
}

}  // namespace

std::string emit_module(const Script &script, const Elaborated &elab, const ModuleOptions &opts) {
  const Limits &lim = opts.limits;
  CWriter w;
  w.line("// SPDX-License-Identifier: GPL-2.0");
  w.line("/* Generated by xtap " + opts.version + " from " + opts.script_name +
         ": do not edit. */");
  w.line("#include <linux/string.h>");
  w.line("#include <linux/version.h>");  // KERNEL_VERSION(), for embedded C
  w.line("#include <xtap/runtime.h>");
  w.line("#include <xtap/stap_compat.h>");  // kread() and the rest of stap's guru C interface
  if (opts.timing) w.line("#include <linux/timex.h>");  // get_cycles(), for -t
  w.line();
  w.line("#define MAXSTRINGLEN " + std::to_string(lim.maxstringlen));
  // Embedded C written for stap tests the version it is compiled for.
  w.line("#define STAP_VERSION(a, b) (((a) << 8) + (b))");
  w.line("#define STAP_COMPAT_VERSION STAP_VERSION(" + std::to_string(opts.compat_major) + ", " +
         std::to_string(opts.compat_minor) + ")");
  w.line();
  for (const auto &block : script.embedded_c) {
    w.raw(block);
    w.line();
  }
  emit_globals(w, script);
  w.line(kDataSymbolsTableMarker);

  // Script functions: prototypes first, so that they can call each other.
  size_t max_fn_frame = 0;
  std::vector<FunctionCode> functions;
  for (const auto &f : script.functions) {
    functions.push_back(emit_function(script, *f, lim.maxstringlen));
    w.line(functions.back().prototype);
    max_fn_frame = std::max(max_fn_frame, functions.back().frame_bytes);
  }
  if (!functions.empty()) w.line();
  for (const auto &fc : functions) {
    w.raw(fc.c);
    w.line();
  }

  // What the context variables the handlers read need declared first.
  std::set<std::string> declared;
  for (const auto &dp : elab.probes)
    for (const std::string &d : dp->c_declarations())
      if (declared.insert(d).second) w.line(d);
  if (!declared.empty()) w.line();

  // One handler per probe declaration, shared by all of its probe points.
  size_t max_frame = 0;
  std::vector<HandlerCode> handlers;
  for (size_t i = 0; i < script.probes.size(); ++i) {
    handlers.push_back(emit_handler(script, *script.probes[i], handler_name(i), lim.maxstringlen));
    w.raw(handlers.back().c);
    w.line();
    max_frame = std::max(max_frame, handlers.back().frame_bytes);
  }

  // -t: each handler behind a wrapper that times it; the derived probes
  // that share a handler are told apart by their struct xtap_probe's index.
  if (opts.timing) {
    for (size_t i = 0; i < handlers.size(); ++i) {
      w.line("static void " + handler_name(i) + "_timed(struct xtap_context *c)");
      w.open("{");
      w.line("u64 start = get_cycles();");
      w.line();
      w.line(handler_name(i) + "(c);");
      w.line("xtap_timing_add(c, start);");
      w.close();
      w.line();
    }
  }

  // Each derived probe's struct xtap_probe initializer, then the
  // providers' tables in family order.
  auto probe_init = [](const std::string &point, const std::string &where,
                       const std::string &handler, const HandlerCode &hc, size_t timing) {
    return "{ .point = " + c_string_literal(point) + ", .location = " + c_string_literal(where) +
           ", .handler = " + handler + ", .locks = " + hc.lock_table +
           ", .nlocks = " + std::to_string(hc.nlocks) +
           (timing ? ", .timing = " + std::to_string(timing) : "") + " }";
  };
  std::vector<DerivedProbe *> probes;
  std::vector<std::string> timing_descs;
  for (const auto &dp : elab.probes) {
    size_t i = 0;
    while (script.probes[i].get() != dp->decl) ++i;
    dp->handler = handler_name(i);
    size_t timing = 0;
    if (opts.timing) {
      // stap's "from:": the point as the script wrote it, an alias's name
      // rather than what the alias expands to.
      std::string from = dp->decl->alias.empty() ? dp->point->str() : dp->decl->alias;
      timing_descs.push_back("{ .point = " + c_string_literal(dp->name()) +
                             ", .location = " + c_string_literal(dp->point->loc.str()) +
                             ", .derivation = " + c_string_literal(from) + " }");
      timing = timing_descs.size();
    }
    dp->probe_init =
        probe_init(dp->name(), dp->point->loc.str(),
                   opts.timing ? dp->handler + "_timed" : dp->handler, handlers[i], timing);
    probes.push_back(dp.get());
  }
  // The display of written-but-unread globals runs after the end probes.
  std::string lock_table;
  size_t nlocks = 0;
  std::string display = emit_unread_display(script, "xtap_display_unread", &lock_table, &nlocks);
  std::unique_ptr<DerivedProbe> display_probe;
  if (!display.empty()) {
    w.raw(display);
    w.line();
    display_probe = make_end_probe();
    HandlerCode hc;
    hc.lock_table = lock_table;
    hc.nlocks = nlocks;
    display_probe->handler = "xtap_display_unread";
    display_probe->probe_init = probe_init("end", "<end of session>", "xtap_display_unread", hc, 0);
    probes.push_back(display_probe.get());
  }

  ScriptTables tables;
  emit_maps(w, script, tables.fields);
  emit_stats(w, script, tables.fields);
  if (!script.regexes.empty()) {
    w.open("static const char *const xtap_regexes[] = {");
    for (const auto &re : script.regexes) w.line(c_string_literal(re) + ",");
    w.close("};");
    tables.fields.push_back(".regexes = xtap_regexes");
    tables.fields.push_back(".nregexes = " + std::to_string(script.regexes.size()));
  }
  if (!script.formats.empty()) {
    // The format table of binary printf records (abi.h), served by the
    // module itself so that xtap-run needs nothing beside a prebuilt module.
    std::string blob = XTAP_FORMATS_MAGIC;
    for (const auto &f : script.formats) {
      uint32_t n = static_cast<uint32_t>(f.size());
      for (int i = 0; i < 4; ++i) blob += static_cast<char>(n >> (8 * i));
      blob += f;
    }
    w.line("static const char xtap_formats[] = " + c_string_literal(blob) + ";");
    tables.fields.push_back(".formats = xtap_formats");
    tables.fields.push_back(".formats_len = " + std::to_string(blob.size()));
  }
  if (!timing_descs.empty()) {
    w.open("static const struct xtap_timing_desc xtap_timing_descs[] = {");
    for (const auto &d : timing_descs) w.line(d + ",");
    w.close("};");
    tables.fields.push_back(".timing = xtap_timing_descs");
    tables.fields.push_back(".ntiming = " + std::to_string(timing_descs.size()));
  }
  for (const auto *provider : probe_providers()) {
    std::vector<const DerivedProbe *> mine;
    for (const auto *dp : probes)
      if (dp->provider == provider) mine.push_back(dp);
    provider->emit(w, mine, tables);
  }
  if (!tables.groups.empty()) {
    w.open("static const struct xtap_probe_group xtap_probe_groups[] = {");
    for (const auto &g : tables.groups) w.line(g + ",");
    w.close("};");
    tables.fields.push_back(".groups = xtap_probe_groups");
    tables.fields.push_back(".ngroups = " + std::to_string(tables.groups.size()));
  }
  w.line();

  // A CPU's frame stack holds one handler frame and at most MAXNESTING
  // function frames above it (plus alignment slack per frame).
  size_t worst = max_frame + 64 + (functions.empty() ? 0 : lim.maxnesting * (max_fn_frame + 64));
  size_t stack = ((worst + 1023) / 1024) * 1024;
  w.open("static const struct xtap_script xtap_this_script = {");
  w.line(".abi = XTAP_ABI_VERSION,");
  w.line(".name = " + c_string_literal(opts.script_name) + ",");
  w.open(".limits = {");
  w.line(".maxstringlen = MAXSTRINGLEN,");
  w.line(".maxaction = " + std::to_string(lim.maxaction) + ",");
  w.line(".maxaction_interruptible = " +
         std::to_string(lim.maxaction_interruptible
                            ? lim.maxaction_interruptible
                            : std::min(lim.maxaction * 10, kMaxActionLimit)) +
         ",");
  w.line(".maxnesting = " + std::to_string(lim.maxnesting) + ",");
  w.line(".maxmapentries = " + std::to_string(lim.maxmapentries) + ",");
  w.line(".maxskipped = " + std::to_string(lim.maxskipped) + ",");
  w.line(".maxerrors = " + std::to_string(lim.maxerrors) + ",");
  w.line(".maxtrylock = " + std::to_string(lim.maxtrylock) + ",");
  w.line(".stack_size = " + std::to_string(stack) + ",");
  w.line(".subbuf_size = " + std::to_string(lim.subbuf_size) + ",");
  w.line(".n_subbufs = " + std::to_string(lim.n_subbufs) + ",");
  w.line(".printbuf_size = " + std::to_string(lim.printbuf_size) + ",");
  w.line(".overload_interval = " + std::to_string(lim.overload_interval) + "ULL,");
  w.line(".overload_threshold = " + std::to_string(lim.no_overload ? 0 : lim.overload_threshold) +
         "ULL,");
  w.close("},");
  w.line(".nglobals = " + std::to_string(script.globals.size()) + ",");
  w.line(".init_globals = xtap_init_globals,");
  for (const auto &f : tables.fields) w.line(f + ",");
  w.close("};");
  w.line();

  // usymname() and friends: the named files' tables, tied to their inodes first.
  std::string usyms;
  if (UserSymbolUse use = user_symbol_use(script); use != UserSymbolUse::None) {
    std::vector<std::string> ignored;
    usyms = emit_user_symbol_tables(opts.user_files, use == UserSymbolUse::Lines, opts.sysroot,
                                    opts.notes ? opts.notes : &ignored);
    w.raw(usyms);
    w.line();
  }
  w.line("static int __init xtap_script_init(void)");
  w.open("{");
  w.line(kDataSymbolsInitMarker);
  if (usyms.empty()) {
    w.line("return xtap_session_init(&xtap_this_script);");
  } else {
    // a block: the data symbols' resolution before it may be statements
    w.open("{");
    w.line("int usyms_err = xtap_usyms_init(xtap_ubinaries, ARRAY_SIZE(xtap_ubinaries));");
    w.line();
    w.line("if (usyms_err)");
    w.line("\treturn usyms_err;");
    w.line("usyms_err = xtap_session_init(&xtap_this_script);");
    w.line("if (usyms_err)");
    w.line("\txtap_usyms_exit();");
    w.line("return usyms_err;");
    w.close();
  }
  w.close();
  w.line();
  w.line("static void __exit xtap_script_exit(void)");
  w.open("{");
  w.line("xtap_session_exit();");
  if (!usyms.empty()) w.line("xtap_usyms_exit();");
  w.close();
  w.line();
  w.line("module_init(xtap_script_init);");
  w.line("module_exit(xtap_script_exit);");
  return relocate_data_symbols(w.str());
}

}  // namespace xtap
