// timer.ns/us/ms/s/jiffies/hz(N)[.randomize(M)]: periodic probes on a
// high-resolution timer.
#include "probes/provider.h"

namespace xtap {
namespace {

struct Unit {
  const char *name;
  uint64_t ns;  // nanoseconds per unit; 0 for hz and jiffies
};
// stap's long spellings (timer.sec, timer.msec ...) are the same units.
constexpr Unit kUnits[] = {{"ns", 1},   {"us", 1000},   {"ms", 1000000},   {"s", 1000000000},
                           {"nsec", 1}, {"usec", 1000}, {"msec", 1000000}, {"sec", 1000000000},
                           {"hz", 0},   {"jiffies", 0}};

// Faster than this the timer would starve the machine under TCG and real
// hardware alike; stap refuses sub-100us timers for the same reason.
constexpr uint64_t kMinPeriodNs = 100000;

class TimerProbe : public DerivedProbe {
 public:
  uint64_t period_ns = 0, randomize_ns = 0;
  // timer.jiffies: in jiffies, which only the target kernel's HZ turns into time.
  uint64_t period_jiffies = 0, randomize_jiffies = 0;
};

// A timer point's numbers: N of timer.UNIT(N), M of .randomize(M) (0: none).
struct TimerArgs {
  const Unit *unit = nullptr;
  uint64_t n = 0, m = 0;
};

class TimerProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"timer.ns", "timer.us",  "timer.ms",   "timer.s",
            "timer.hz", "timer.sec", "timer.msec", "timer.jiffies"};
  }

  // timer.profile samples on perf events (probes/perf.cpp).
  bool matches(const ProbePoint &pp) const override {
    const auto &cs = pp.components;
    return cs[0].name == "timer" && !(cs.size() >= 2 && cs[1].name == "profile");
  }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &, DerivedProbes &out,
              Diagnostics &diags) const override {
    TimerArgs a;
    if (!timer_args(pp, diags, &a)) return;
    auto dp = std::make_unique<TimerProbe>();
    if (a.unit->ns || std::string(a.unit->name) == "hz") {
      dp->period_ns = a.unit->ns ? a.n * a.unit->ns : 1000000000ull / a.n;
      dp->randomize_ns = a.m * a.unit->ns;
    } else {
      dp->period_jiffies = a.n;
      dp->randomize_jiffies = a.m;
    }
    out.push_back(std::move(dp));
  }

  // The unit and numbers of a timer point, or false after reporting why not.
  static bool timer_args(const ProbePoint &pp, Diagnostics &diags, TimerArgs *a) {
    const auto &cs = pp.components;
    const bool randomized = cs.size() == 3 && cs[2].name == "randomize";
    if (cs.size() != 2 && !randomized) {
      diags.error("XTP2102", pp.loc, "incomplete timer probe point '" + pp.str() + "'").hint =
          "use timer.ms(N), timer.s(N), timer.us(N), timer.ns(N), timer.jiffies(N) or timer.hz(N), "
          "optionally followed by .randomize(M)";
      return false;
    }
    const auto &c = cs[1];
    for (const auto &u : kUnits)
      if (c.name == u.name) a->unit = &u;
    if (!a->unit) {
      auto &d = diags.error("XTP2103", c.loc, "unknown timer unit '" + c.name + "'");
      std::string s = closest_match(c.name, {"ns", "us", "ms", "s", "jiffies", "hz"});
      d.hint =
          s.empty() ? "use one of ns, us, ms, s, jiffies, hz" : "did you mean 'timer." + s + "'?";
      return false;
    }
    if (!c.has_arg || c.arg_is_string || c.num_arg <= 0) {
      diags.error("XTP2104", c.loc,
                  "timer." + c.name + " needs a positive number, as in timer." + c.name + "(100)");
      return false;
    }
    a->n = static_cast<uint64_t>(c.num_arg);
    const bool jiffies = !a->unit->ns && std::string(a->unit->name) == "jiffies";
    uint64_t period = a->unit->ns ? a->n * a->unit->ns : jiffies ? 0 : 1000000000ull / a->n;
    if (a->unit->ns ? (a->n > UINT64_MAX / a->unit->ns || period < kMinPeriodNs)
                    : (jiffies ? a->n > UINT32_MAX : period < kMinPeriodNs)) {
      diags.error("XTP2105", c.loc, "timer period of '" + pp.str() + "' is out of range").hint =
          "periods must be between 100us and about 584 years (timer.jiffies: below 2^32 jiffies)";
      return false;
    }
    if (!randomized) return true;
    const auto &r = cs[2];
    if (!a->unit->ns && !jiffies) {
      diags.error("XTP2104", r.loc, "timer.hz cannot be randomized").hint =
          "use a period instead, as in timer.ms(N).randomize(M)";
      return false;
    }
    // stap's rule: 0 <= M <= N. An interval that comes out shorter than
    // the shortest period runs at the shortest period (timers.c).
    if (!r.has_arg || r.arg_is_string || r.num_arg < 0 || static_cast<uint64_t>(r.num_arg) > a->n) {
      diags.error("XTP2104", r.loc,
                  "randomize needs a number from 0 to the period, as in timer." + c.name + "(" +
                      std::to_string(a->n) + ").randomize(" +
                      std::to_string(std::max<uint64_t>(1, a->n / 10)) + ")");
      return false;
    }
    a->m = static_cast<uint64_t>(r.num_arg);
    return true;
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_timer_probes", mine);
    w.open("static const struct xtap_timer_spec xtap_timers[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      const auto &t = *static_cast<const TimerProbe *>(mine[i]);
      w.line("{ .probe = &xtap_timer_probes[" + std::to_string(i) +
             "], .period_ns = " + std::to_string(t.period_ns) +
             "ULL, .randomize_ns = " + std::to_string(t.randomize_ns) +
             "ULL, .period_jiffies = " + std::to_string(t.period_jiffies) +
             ", .randomize_jiffies = " + std::to_string(t.randomize_jiffies) + " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_timer_ops", "xtap_timers", mine.size()));
  }
};

}  // namespace

const ProbeProvider *timer_provider() {
  static TimerProvider p;
  return &p;
}

}  // namespace xtap
