#include "codegen/module.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <xtap/abi.h>

#include "codegen/body_emitter.h"
#include "codegen/data_symbols.h"
#include "codegen/display_unread.h"
#include "codegen/emit_snapshot.h"
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
      {"PERCENTILE_BITS", &Limits::percentile_bits, XTAP_PCT_MIN_BITS, XTAP_PCT_MAX_BITS},
      {"XTAP_PROBE_BUDGET", &Limits::probe_budget_ns, 1, kNsPerSecond},
  };
  if (name == "XTAP_OVERLOAD") {
    if (value != "abort" && value != "skip")
      return "-DXTAP_OVERLOAD needs abort or skip, not '" + value + "'";
    overload_mode = value == "skip";
    return "";
  }
  for (const auto &f : fields) {
    if (name != f.name) continue;
    char *end = nullptr;
    unsigned long long v = strtoull(value.c_str(), &end, 0);
    // stap hands -D to the C compiler, so scripts' command lines carry C
    // suffixes (-DSTP_OVERLOAD_INTERVAL=1000LL in stap's own testsuite).
    while (end && (*end == 'L' || *end == 'l' || *end == 'U' || *end == 'u') &&
           end != value.c_str())
      ++end;
    if (value.empty() || *end || value[0] == '-')
      return "-D" + name + " needs a number, not '" + value + "'";
    if (v < f.min || v > f.max)
      return "-D" + name + "=" + value + " is out of range (" + std::to_string(f.min) + ".." +
             std::to_string(f.max) + ")";
    this->*f.field = v;
    if (name == "STP_OVERLOAD_INTERVAL" || name == "STP_OVERLOAD_THRESHOLD")
      stap_overload_set = true;
    return "";
  }
  return "unknown limit -D" + name +
         " (known: MAXSTRINGLEN MAXACTION MAXACTION_INTERRUPTIBLE MAXNESTING MAXMAPENTRIES "
         "MAXSKIPPED MAXERRORS MAXTRYLOCK "
         "STP_BUFFER_SUBBUF_SIZE STP_BUFFER_SUBBUFS STP_OVERLOAD_INTERVAL STP_OVERLOAD_THRESHOLD "
         "STP_NO_OVERLOAD PERCENTILE_BITS XTAP_OVERLOAD XTAP_PROBE_BUDGET)";
}

unsigned long long Limits::budget_cycles(unsigned long long ns) const {
  if (!ns) return 0;
  unsigned __int128 c = (unsigned __int128)overload_interval * ns / kNsPerSecond;
  return c ? (unsigned long long)c : 1;
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

// pct_bits: the percentile sketch's k (-D PERCENTILE_BITS), kept only for
// the statistics the script asks percentiles of.
std::string stat_desc(const GlobalDecl &g, unsigned long long pct_bits) {
  static const char *kinds[] = {"XTAP_HIST_NONE", "XTAP_HIST_LINEAR", "XTAP_HIST_LOG"};
  return std::string("{ .hist = ") + kinds[g.hist] + ", .lo = " + std::to_string(g.hist_lo) +
         ", .hi = " + std::to_string(g.hist_hi) + ", .step = " + std::to_string(g.hist_step) +
         ", .bit_shift = " + std::to_string(std::max(g.variance_shift, 0)) +
         ", .variance = " + (g.uses_variance ? "1" : "0") +
         ", .pct_bits = " + std::to_string(g.percentiles ? pct_bits : 0) + " }";
}

void emit_stats(CWriter &w, const Script &s, const Limits &lim, std::vector<std::string> &fields) {
  std::vector<const GlobalDecl *> stats;
  for (const auto &g : s.globals)
    if (!g->is_array && g->type == Type::Stat) stats.push_back(g.get());
  if (stats.empty()) return;
  w.open("static const struct xtap_stat_spec xtap_stats[] = {");
  for (const auto *g : stats)
    w.line("{ .stat = &" + global_c_name(*g) + ", .name = " + c_string_literal(g->name) +
           ", .desc = " + stat_desc(*g, lim.percentile_bits) + " },");
  w.close("};");
  fields.push_back(".stats = xtap_stats");
  fields.push_back(".nstats = " + std::to_string(stats.size()));
}

void emit_maps(CWriter &w, const Script &s, const Limits &lim, std::vector<std::string> &fields) {
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
           (g->type == Type::Stat ? ", .stat = " + stat_desc(*g, lim.percentile_bits) : "") +
           " },");
  }
  w.close("};");
  fields.push_back(".maps = xtap_maps");
  fields.push_back(".nmaps = " + std::to_string(arrays.size()));
}

}  // namespace

namespace {

// The module's C, written in the order C needs it. Each step appends to
// the writer and leaves what later steps use in the members.
class ModuleEmitter {
 public:
  ModuleEmitter(const Script &script, const Elaborated &elab, const ModuleOptions &opts)
      : script_(script), elab_(elab), opts_(opts), lim_(opts.limits) {}

  std::string emit() {
    prologue();
    for (const auto &block : script_.embedded_c) {
      w_.raw(block);
      w_.line();
    }
    emit_globals(w_, script_);
    w_.line(kDataSymbolsTableMarker);
    functions();
    handlers();
    bind_probes();
    unread_display();
    tables();
    script_descriptor();
    init_and_exit();
    return relocate_data_symbols(w_.str());
  }

 private:
  void prologue() {
    w_.line("// SPDX-License-Identifier: GPL-2.0");
    w_.line("/* Generated by xtap " + opts_.version + " from " + opts_.script_name +
            ": do not edit. */");
    w_.line("#include <linux/string.h>");
    w_.line("#include <linux/version.h>");  // KERNEL_VERSION(), for embedded C
    w_.line("#include <xtap/runtime.h>");
    w_.line("#include <xtap/stap_compat.h>");  // kread() and the rest of stap's guru C interface
    if (opts_.timing) w_.line("#include <linux/timex.h>");  // get_cycles(), for -t
    w_.line();
    w_.line("#define MAXSTRINGLEN " + std::to_string(lim_.maxstringlen));
    // Embedded C written for stap tests the version it is compiled for.
    w_.line("#define STAP_VERSION(a, b) (((a) << 8) + (b))");
    w_.line("#define STAP_COMPAT_VERSION STAP_VERSION(" + std::to_string(opts_.compat_major) +
            ", " + std::to_string(opts_.compat_minor) + ")");
    w_.line();
  }

  // Script functions: prototypes first, so that they can call each other.
  void functions() {
    for (const auto &f : script_.functions) {
      functions_.push_back(emit_function(script_, *f, lim_.maxstringlen));
      w_.line(functions_.back().prototype);
      max_fn_frame_ = std::max(max_fn_frame_, functions_.back().frame_bytes);
    }
    if (!functions_.empty()) w_.line();
    for (const auto &fc : functions_) {
      w_.raw(fc.c);
      w_.line();
    }
  }

  // What the context variables the handlers read need declared first, then
  // one handler per probe declaration, shared by all of its probe points.
  void handlers() {
    std::set<std::string> declared;
    for (const auto &dp : elab_.probes)
      for (const std::string &d : dp->c_declarations())
        if (declared.insert(d).second) w_.line(d);
    if (!declared.empty()) w_.line();
    for (size_t i = 0; i < script_.probes.size(); ++i) {
      // A body only `never` probes run is compiled all the same, as stap
      // compiles it (what it calls and stores is checked by the compiler
      // too), but no probe table names it.
      if (!runs(*script_.probes[i]))
        w_.line("static void " + handler_name(i) + "(struct xtap_context *c) __maybe_unused;");
      handlers_.push_back(
          emit_handler(script_, *script_.probes[i], handler_name(i), lim_.maxstringlen));
      w_.raw(handlers_.back().c);
      w_.line();
      max_frame_ = std::max(max_frame_, handlers_.back().frame_bytes);
    }
    if (opts_.timing) timed_handlers();
  }

  // Whether any derived probe of `decl` runs (ProbeProvider::runs).
  bool runs(const ProbeDecl &decl) const {
    for (const auto &dp : elab_.probes)
      if (dp->decl == &decl && (!dp->provider || dp->provider->runs())) return true;
    return false;
  }

  // -t: each handler behind a wrapper that times it; the derived probes
  // that share a handler are told apart by their struct xtap_probe's index.
  void timed_handlers() {
    for (size_t i = 0; i < handlers_.size(); ++i) {
      if (!runs(*script_.probes[i])) continue;
      w_.line("static void " + handler_name(i) + "_timed(struct xtap_context *c)");
      w_.open("{");
      w_.line("u64 start = get_cycles();");
      w_.line();
      w_.line(handler_name(i) + "(c);");
      w_.line("xtap_timing_add(c, start);");
      w_.close();
      w_.line();
    }
  }

  // A derived probe's struct xtap_probe initializer; its id is its place
  // in the probe descriptions (1 for the first), which it adds itself to.
  std::string probe_init(const std::string &point, const std::string &where,
                         const std::string &handler, const HandlerCode &hc, size_t timing,
                         unsigned long long budget_ns) {
    probe_descs_.push_back(
        "{ .point = " + c_string_literal(point) + ", .location = " + c_string_literal(where) +
        (budget_ns ? ", .budget_ns = " + std::to_string(budget_ns) + "ULL" : "") + " }");
    unsigned long long budget = lim_.budget_cycles(budget_ns);
    return "{ .point = " + c_string_literal(point) + ", .location = " + c_string_literal(where) +
           ", .handler = " + handler + ", .locks = " + hc.lock_table +
           ", .nlocks = " + std::to_string(hc.nlocks) +
           (timing ? ", .timing = " + std::to_string(timing) : "") +
           ", .id = " + std::to_string(probe_descs_.size()) +
           (budget ? ", .budget = " + std::to_string(budget) + "ULL" : "") + " }";
  }

  // A derived probe's budget: its point's .budget(NS), else
  // XTAP_PROBE_BUDGET; begin, end and error probes have none.
  unsigned long long budget_of(const DerivedProbe &dp) const {
    if (dp.provider == begin_end_provider()) return 0;
    return dp.point->budget_ns ? dp.point->budget_ns : lim_.probe_budget_ns;
  }

  // Each derived probe: its handler, its initializer and, with -t, the
  // description its timing line prints.
  void bind_probes() {
    for (const auto &dp : elab_.probes) {
      size_t i = 0;
      while (script_.probes[i].get() != dp->decl) ++i;
      dp->handler = handler_name(i);
      size_t timing = 0;
      if (opts_.timing) {
        // stap's "from:": the point as the script wrote it, an alias's name
        // rather than what the alias expands to.
        std::string from = dp->decl->alias.empty() ? dp->point->str() : dp->decl->alias;
        timing_descs_.push_back("{ .point = " + c_string_literal(dp->name()) +
                                ", .location = " + c_string_literal(dp->point->loc.str()) +
                                ", .derivation = " + c_string_literal(from) +
                                ", .id = " + std::to_string(probe_descs_.size() + 1) + " }");
        timing = timing_descs_.size();
      }
      dp->probe_init = probe_init(dp->name(), dp->point->loc.str(),
                                  opts_.timing ? dp->handler + "_timed" : dp->handler, handlers_[i],
                                  timing, budget_of(*dp));
      probes_.push_back(dp.get());
    }
  }

  // The display of written-but-unread globals: an end probe of its own,
  // run after the script's.
  void unread_display() {
    HandlerCode hc;
    std::string display =
        emit_unread_display(script_, "xtap_display_unread", &hc.lock_table, &hc.nlocks);
    if (display.empty()) return;
    w_.raw(display);
    w_.line();
    display_probe_ = make_end_probe();
    display_probe_->handler = "xtap_display_unread";
    display_probe_->probe_init =
        probe_init("end", "<end of session>", "xtap_display_unread", hc, 0, 0);
    probes_.push_back(display_probe_.get());
  }

  // A table of the script descriptor: its C array, and the two fields
  // that point the descriptor at it.
  void table(const std::string &decl, const std::vector<std::string> &rows,
             const std::string &field, const std::string &count) {
    w_.open(decl + " = {");
    for (const auto &r : rows) w_.line(r + ",");
    w_.close("};");
    tables_.fields.push_back(field);
    tables_.fields.push_back(count + " = " + std::to_string(rows.size()));
  }

  // The arrays, statistics, regexes, printf formats and -t descriptions,
  // then the families' tables in family order and the probe groups.
  void tables() {
    emit_maps(w_, script_, opts_.limits, tables_.fields);
    emit_stats(w_, script_, opts_.limits, tables_.fields);
    emit_snapshot_table(w_, script_, &tables_.fields);
    if (!script_.regexes.empty()) {
      std::vector<std::string> rows;
      for (const auto &re : script_.regexes) rows.push_back(c_string_literal(re));
      table("static const char *const xtap_regexes[]", rows, ".regexes = xtap_regexes",
            ".nregexes");
    }
    if (!script_.formats.empty()) formats();
    if (!timing_descs_.empty())
      table("static const struct xtap_timing_desc xtap_timing_descs[]", timing_descs_,
            ".timing = xtap_timing_descs", ".ntiming");
    if (!probe_descs_.empty())
      table("static const struct xtap_probe_desc xtap_probe_descs[]", probe_descs_,
            ".probe_descs = xtap_probe_descs", ".nprobes");
    for (const auto *provider : probe_providers()) {
      std::vector<const DerivedProbe *> mine;
      for (const auto *dp : probes_)
        if (dp->provider == provider) mine.push_back(dp);
      provider->emit(w_, mine, tables_);
    }
    if (!tables_.groups.empty())
      table("static const struct xtap_probe_group xtap_probe_groups[]", tables_.groups,
            ".groups = xtap_probe_groups", ".ngroups");
    w_.line();
  }

  // The format table of binary printf records (abi.h), served by the
  // module itself so that xtap-run needs nothing beside a prebuilt module.
  void formats() {
    std::string blob = XTAP_FORMATS_MAGIC;
    for (const auto &f : script_.formats) {
      uint32_t n = static_cast<uint32_t>(f.size());
      for (int i = 0; i < 4; ++i) blob += static_cast<char>(n >> (8 * i));
      blob += f;
    }
    w_.line("static const char xtap_formats[] = " + c_string_literal(blob) + ";");
    tables_.fields.push_back(".formats = xtap_formats");
    tables_.fields.push_back(".formats_len = " + std::to_string(blob.size()));
  }

  // struct xtap_script: the limits, the frame stack and the tables.
  void script_descriptor() {
    // A CPU's frame stack holds one handler frame and at most MAXNESTING
    // function frames above it (plus alignment slack per frame).
    size_t worst =
        max_frame_ + 64 + (functions_.empty() ? 0 : lim_.maxnesting * (max_fn_frame_ + 64));
    size_t stack = ((worst + 1023) / 1024) * 1024;
    auto num = [](unsigned long long v) { return std::to_string(v); };
    w_.open("static const struct xtap_script xtap_this_script = {");
    w_.line(".abi = XTAP_ABI_VERSION,");
    w_.line(".name = " + c_string_literal(opts_.script_name) + ",");
    w_.open(".limits = {");
    w_.line(".maxstringlen = MAXSTRINGLEN,");
    w_.line(".maxaction = " + num(lim_.maxaction) + ",");
    w_.line(".maxaction_interruptible = " +
            num(lim_.maxaction_interruptible ? lim_.maxaction_interruptible
                                             : std::min(lim_.maxaction * 10, kMaxActionLimit)) +
            ",");
    w_.line(".maxnesting = " + num(lim_.maxnesting) + ",");
    w_.line(".maxmapentries = " + num(lim_.maxmapentries) + ",");
    w_.line(".maxskipped = " + num(lim_.maxskipped) + ",");
    w_.line(".maxerrors = " + num(lim_.maxerrors) + ",");
    w_.line(".maxtrylock = " + num(lim_.maxtrylock) + ",");
    w_.line(".stack_size = " + num(stack) + ",");
    w_.line(".subbuf_size = " + num(lim_.subbuf_size) + ",");
    w_.line(".n_subbufs = " + num(lim_.n_subbufs) + ",");
    w_.line(".printbuf_size = " + num(lim_.printbuf_size) + ",");
    w_.line(".overload_interval = " + num(lim_.overload_interval) + "ULL,");
    w_.line(".overload_threshold = " + num(lim_.no_overload ? 0 : lim_.overload_threshold) +
            "ULL,");
    w_.line(".overload_skip = " + num(lim_.overload_skip()) + ",");
    w_.close("},");
    w_.line(".nglobals = " + num(script_.globals.size()) + ",");
    w_.line(".init_globals = xtap_init_globals,");
    for (const auto &f : tables_.fields) w_.line(f + ",");
    w_.close("};");
    w_.line();
  }

  // usymname() and friends: the named files' tables, tied to their inodes
  // first; then module init and exit.
  void init_and_exit() {
    std::string usyms;
    if (UserSymbolUse use = user_symbol_use(script_); use != UserSymbolUse::None) {
      std::vector<std::string> ignored;
      UserTableParts parts;
      parts.lines = use == UserSymbolUse::Lines;
      parts.cfi = user_stack_use(script_);
      usyms = emit_user_symbol_tables(opts_.user_files, parts, opts_.sysroot,
                                      opts_.notes ? opts_.notes : &ignored);
      w_.raw(usyms);
      w_.line();
    }
    w_.line("static int __init xtap_script_init(void)");
    w_.open("{");
    w_.line(kDataSymbolsInitMarker);
    if (usyms.empty()) {
      w_.line("return xtap_session_init(&xtap_this_script);");
    } else {
      // a block: the data symbols' resolution before it may be statements
      w_.open("{");
      w_.line("int usyms_err = xtap_usyms_init(xtap_ubinaries, ARRAY_SIZE(xtap_ubinaries));");
      w_.line();
      w_.line("if (usyms_err)");
      w_.line("\treturn usyms_err;");
      w_.line("usyms_err = xtap_session_init(&xtap_this_script);");
      w_.line("if (usyms_err)");
      w_.line("\txtap_usyms_exit();");
      w_.line("return usyms_err;");
      w_.close();
    }
    w_.close();
    w_.line();
    w_.line("static void __exit xtap_script_exit(void)");
    w_.open("{");
    w_.line("xtap_session_exit();");
    if (!usyms.empty()) w_.line("xtap_usyms_exit();");
    w_.close();
    w_.line();
    w_.line("module_init(xtap_script_init);");
    w_.line("module_exit(xtap_script_exit);");
  }

  const Script &script_;
  const Elaborated &elab_;
  const ModuleOptions &opts_;
  const Limits &lim_;
  CWriter w_;
  std::vector<FunctionCode> functions_;
  size_t max_fn_frame_ = 0;
  std::vector<HandlerCode> handlers_;
  size_t max_frame_ = 0;
  std::vector<DerivedProbe *> probes_;  // in table order, the display probe last
  std::vector<std::string> timing_descs_;
  std::vector<std::string> probe_descs_;  // by xtap_probe.id - 1
  std::unique_ptr<DerivedProbe> display_probe_;
  ScriptTables tables_;
};

}  // namespace

std::string emit_module(const Script &script, const Elaborated &elab, const ModuleOptions &opts) {
  return ModuleEmitter(script, elab, opts).emit();
}

}  // namespace xtap
