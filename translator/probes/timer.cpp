// timer.ns/us/ms/s/hz(N): periodic probes on a high-resolution timer.
#include "probes/provider.h"

namespace xtap {
namespace {

struct Unit {
  const char *name;
  uint64_t ns;  // nanoseconds per unit; 0 for hz
};
// stap's long spellings (timer.sec, timer.msec ...) are the same units.
constexpr Unit kUnits[] = {{"ns", 1},          {"us", 1000},          {"ms", 1000000},   {"s", 1000000000},
                           {"nsec", 1},        {"usec", 1000},        {"msec", 1000000}, {"sec", 1000000000},
                           {"hz", 0}};

// Faster than this the timer would starve the machine under TCG and real
// hardware alike; stap refuses sub-100us timers for the same reason.
constexpr uint64_t kMinPeriodNs = 100000;

class TimerProbe : public DerivedProbe {
 public:
  uint64_t period_ns = 0;
};

class TimerProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"timer.ns", "timer.us", "timer.ms", "timer.s", "timer.hz", "timer.sec", "timer.msec"};
  }

  bool matches(const ProbePoint &pp) const override { return pp.components.front().name == "timer"; }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &, DerivedProbes &out,
              Diagnostics &diags) const override {
    uint64_t period = period_ns(pp, diags);
    if (!period) return;
    auto dp = std::make_unique<TimerProbe>();
    dp->period_ns = period;
    out.push_back(std::move(dp));
  }

  // The period of a timer point, or 0 after reporting why it has none.
  static uint64_t period_ns(const ProbePoint &pp, Diagnostics &diags) {
    if (pp.components.size() != 2) {
      diags.error("XTP2102", pp.loc, "incomplete timer probe point '" + pp.str() + "'").hint =
          "use timer.ms(N), timer.s(N), timer.us(N), timer.ns(N) or timer.hz(N)";
      return 0;
    }
    const auto &c = pp.components[1];
    const Unit *unit = nullptr;
    for (const auto &u : kUnits)
      if (c.name == u.name) unit = &u;
    if (!unit) {
      auto &d = diags.error("XTP2103", c.loc, "unknown timer unit '" + c.name + "'");
      std::string s = closest_match(c.name, {"ns", "us", "ms", "s", "hz"});
      d.hint = s.empty() ? "use one of ns, us, ms, s, hz" : "did you mean 'timer." + s + "'?";
      return 0;
    }
    if (!c.has_arg || c.arg_is_string || c.num_arg <= 0) {
      diags.error("XTP2104", c.loc, "timer." + c.name + " needs a positive number, as in timer." +
                                        c.name + "(100)");
      return 0;
    }
    uint64_t n = static_cast<uint64_t>(c.num_arg);
    uint64_t period = unit->ns ? n * unit->ns : 1000000000ull / n;
    if ((unit->ns && n > UINT64_MAX / unit->ns) || period < kMinPeriodNs) {
      diags.error("XTP2105", c.loc, "timer period of '" + pp.str() + "' is out of range")
          .hint = "periods must be between 100us and about 584 years";
      return 0;
    }
    return period;
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine, ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_timer_probes", mine);
    w.open("static const struct xtap_timer_spec xtap_timers[] = {");
    for (size_t i = 0; i < mine.size(); ++i)
      w.line("{ .probe = &xtap_timer_probes[" + std::to_string(i) + "], .period_ns = " +
             std::to_string(static_cast<const TimerProbe *>(mine[i])->period_ns) + "ULL },");
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
