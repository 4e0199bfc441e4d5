// Sampling on the kernel's perf events, one event per online CPU:
//   perf.sw.NAME / perf.hw.NAME [.sample(N) | .hz(N)]
//   perf.type(T).config(C)      [.sample(N) | .hz(N)]
//   timer.profile, timer.profile.tick, timer.profile.freq.hz(N)
// The handler runs in the context the event interrupted (its registers,
// its task), which is what a sampling profiler needs. timer.profile is the
// software cpu-clock sampled once a tick on every CPU, as stap falls back to
// on kernels without the old profiling timer hook.
#include "probes/provider.h"

namespace xtap {
namespace {

// perf_event_attr.type values (include/uapi/linux/perf_event.h).
constexpr int kTypeHardware = 0, kTypeSoftware = 1;
// stap's default sample period when neither .sample nor .hz is given.
constexpr long long kDefaultSample = 1000000;

struct NamedEvent {
  const char *name;
  int config;
};
// The generic events' config values, in the uapi enums' order.
constexpr NamedEvent kSoftware[] = {
    {"cpu_clock", 0},        {"task_clock", 1},       {"page_faults", 2},
    {"context_switches", 3}, {"cpu_migrations", 4},   {"page_faults_min", 5},
    {"page_faults_maj", 6},  {"alignment_faults", 7}, {"emulation_faults", 8}};
constexpr NamedEvent kHardware[] = {{"cpu_cycles", 0},
                                    {"instructions", 1},
                                    {"cache_references", 2},
                                    {"cache_misses", 3},
                                    {"branch_instructions", 4},
                                    {"branch_misses", 5},
                                    {"bus_cycles", 6},
                                    {"stalled_cycles_frontend", 7},
                                    {"stalled_cycles_backend", 8},
                                    {"ref_cpu_cycles", 9}};

class PerfProbe : public DerivedProbe {
 public:
  long long type = kTypeSoftware, config = 0;
  long long sample_period = kDefaultSample;  // events between samples (ns for the clocks)
  long long sample_freq = 0;                 // samples a second instead (.hz)
  bool tick = false;                         // timer.profile: one sample a tick (the target's HZ)
};

class PerfProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    std::vector<std::string> s = {"timer.profile", "timer.profile.tick", "timer.profile.freq.hz(N)",
                                  "perf.type(N).config(M)", "perf.type(N).config(M).sample(N)"};
    for (const auto &e : kSoftware) s.push_back(std::string("perf.sw.") + e.name);
    for (const auto &e : kHardware) s.push_back(std::string("perf.hw.") + e.name);
    return s;
  }

  bool matches(const ProbePoint &pp) const override {
    const auto &cs = pp.components;
    return cs[0].name == "perf" ||
           (cs[0].name == "timer" && cs.size() >= 2 && cs[1].name == "profile");
  }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &, DerivedProbes &out,
              Diagnostics &diags) const override {
    auto dp = std::make_unique<PerfProbe>();
    bool ok = pp.components[0].name == "timer" ? derive_profile(pp, *dp, diags)
                                               : derive_perf(pp, *dp, diags);
    if (ok) out.push_back(std::move(dp));
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_perf_probes", mine);
    w.open("static const struct xtap_perf_spec xtap_perf_specs[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      const auto &p = *static_cast<const PerfProbe *>(mine[i]);
      w.line("{ .probe = &xtap_perf_probes[" + std::to_string(i) +
             "], .type = " + std::to_string(p.type) + ", .config = " + std::to_string(p.config) +
             "ULL, .sample_period = " + std::to_string(p.sample_period) + "ULL, .sample_freq = " +
             std::to_string(p.sample_freq) + "ULL, .tick = " + (p.tick ? "1" : "0") +
             ", .optional = " + (p.optional ? "1" : "0") + " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_perf_ops", "xtap_perf_specs", mine.size()));
  }

 private:
  static void bad_shape(const ProbePoint &pp, Diagnostics &diags) {
    diags.error("XTP2190", pp.loc, "unknown perf probe point '" + pp.str() + "'").hint =
        "use perf.sw.NAME, perf.hw.NAME or perf.type(N).config(M), optionally followed by "
        ".sample(N) "
        "or .hz(N); or timer.profile";
  }

  // A positive number argument of component c, or false after saying so.
  static bool positive(const ProbePointComponent &c, Diagnostics &diags, long long *v) {
    if (!c.has_arg || c.arg_is_string || c.num_arg <= 0) {
      diags.error("XTP2191", c.loc,
                  "'" + c.name + "' needs a positive number, as in ." + c.name + "(1000)");
      return false;
    }
    *v = c.num_arg;
    return true;
  }

  // timer.profile, timer.profile.tick, timer.profile.freq.hz(N).
  static bool derive_profile(const ProbePoint &pp, PerfProbe &dp, Diagnostics &diags) {
    const auto &cs = pp.components;
    dp.type = kTypeSoftware;
    dp.config = 0;  // cpu_clock
    if (cs[1].has_arg) return bad_profile(pp, diags);
    if (cs.size() == 2 || (cs.size() == 3 && cs[2].name == "tick" && !cs[2].has_arg)) {
      dp.tick = true;
      return true;
    }
    if (cs.size() != 4 || cs[2].name != "freq" || cs[2].has_arg || cs[3].name != "hz")
      return bad_profile(pp, diags);
    long long hz;
    if (!positive(cs[3], diags, &hz)) return false;
    if (hz > 10000) {
      diags
          .error("XTP2192", cs[3].loc,
                 "timer.profile.freq.hz(" + std::to_string(hz) + ") is too fast")
          .hint = "sample at most 10000 times a second on each CPU";
      return false;
    }
    dp.sample_period = 1000000000LL / hz;  // cpu_clock counts nanoseconds
    return true;
  }

  static bool bad_profile(const ProbePoint &pp, Diagnostics &diags) {
    diags.error("XTP2190", pp.loc, "unknown profiling probe point '" + pp.str() + "'").hint =
        "use timer.profile, timer.profile.tick or timer.profile.freq.hz(N)";
    return false;
  }

  static bool derive_perf(const ProbePoint &pp, PerfProbe &dp, Diagnostics &diags) {
    const auto &cs = pp.components;
    size_t next;
    if (cs.size() >= 3 && (cs[1].name == "sw" || cs[1].name == "hw") && !cs[1].has_arg) {
      if (!named_event(cs[1].name == "sw", cs[2], dp, diags)) return false;
      next = 3;
    } else if (cs.size() >= 3 && cs[1].name == "type" && cs[2].name == "config") {
      if (!cs[1].has_arg || cs[1].arg_is_string || cs[1].num_arg < 0 || !cs[2].has_arg ||
          cs[2].arg_is_string || cs[2].num_arg < 0) {
        diags.error("XTP2191", cs[1].loc, "perf.type(N).config(M) needs two numbers").hint =
            "the values of perf_event_attr's type and config, as in perf.type(1).config(0)";
        return false;
      }
      dp.type = cs[1].num_arg;
      dp.config = cs[2].num_arg;
      next = 3;
    } else {
      bad_shape(pp, diags);
      return false;
    }
    if (next == cs.size()) return true;
    const auto &c = cs[next];
    if (c.name == "process" || c.name == "counter") {
      diags.error("XTP2193", c.loc, "perf ." + c.name + "(...) probes are not supported yet").hint =
          "xtap samples perf events system-wide; count one process's events with a filter on pid() "
          "instead";
      return false;
    }
    if (next + 1 != cs.size() || (c.name != "sample" && c.name != "hz")) {
      bad_shape(pp, diags);
      return false;
    }
    long long n;
    if (!positive(c, diags, &n)) return false;
    if (c.name == "hz") {
      dp.sample_freq = n;
      dp.sample_period = 0;
    } else {
      dp.sample_period = n;
    }
    return true;
  }

  static bool named_event(bool software, const ProbePointComponent &c, PerfProbe &dp,
                          Diagnostics &diags) {
    std::vector<std::string> names;
    const NamedEvent *first = software ? std::begin(kSoftware) : std::begin(kHardware);
    const NamedEvent *last = software ? std::end(kSoftware) : std::end(kHardware);
    for (const NamedEvent *e = first; e != last; ++e) {
      names.push_back(e->name);
      if (c.name == e->name && !c.has_arg) {
        dp.type = software ? kTypeSoftware : kTypeHardware;
        dp.config = e->config;
        return true;
      }
    }
    auto &d = diags.error("XTP2190", c.loc,
                          std::string("unknown ") + (software ? "software" : "hardware") +
                              " perf event '" + c.name + "'");
    std::string guess = closest_match(c.name, names);
    d.hint = guess.empty()
                 ? "see docs/probes.md for the event names"
                 : std::string("did you mean 'perf.") + (software ? "sw." : "hw.") + guess + "'?";
    return false;
  }
};

}  // namespace

const ProbeProvider *perf_provider() {
  static PerfProvider p;
  return &p;
}

}  // namespace xtap
