// timer.ns/us/ms/s/hz(N): periodic probes on a high-resolution timer.
#include "probes/provider.h"

namespace xtap {
namespace {

struct Unit {
  const char *name;
  uint64_t ns;  // nanoseconds per unit; 0 for hz
};
constexpr Unit kUnits[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}, {"hz", 0}};

// Faster than this the timer would starve the machine under TCG and real
// hardware alike; stap refuses sub-100us timers for the same reason.
constexpr uint64_t kMinPeriodNs = 100000;

class TimerProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"timer.ns", "timer.us", "timer.ms", "timer.s", "timer.hz"};
  }

  bool resolve(const ProbePoint &pp, ResolvedProbe &out, Diagnostics &diags) const override {
    if (pp.components.front().name != "timer") return false;
    if (pp.components.size() != 2) {
      diags.error("XTP2102", pp.loc, "incomplete timer probe point '" + pp.str() + "'").hint =
          "use timer.ms(N), timer.s(N), timer.us(N), timer.ns(N) or timer.hz(N)";
      return true;
    }
    const auto &c = pp.components[1];
    const Unit *unit = nullptr;
    for (const auto &u : kUnits)
      if (c.name == u.name) unit = &u;
    if (!unit) {
      auto &d = diags.error("XTP2103", c.loc, "unknown timer unit '" + c.name + "'");
      std::string s = closest_match(c.name, {"ns", "us", "ms", "s", "hz"});
      d.hint = s.empty() ? "use one of ns, us, ms, s, hz" : "did you mean 'timer." + s + "'?";
      return true;
    }
    if (!c.has_arg || c.arg_is_string || c.num_arg <= 0) {
      diags.error("XTP2104", c.loc, "timer." + c.name + " needs a positive number, as in timer." +
                                        c.name + "(100)");
      return true;
    }
    uint64_t n = static_cast<uint64_t>(c.num_arg);
    out.period_ns = unit->ns ? n * unit->ns : 1000000000ull / n;
    if ((unit->ns && n > UINT64_MAX / unit->ns) || out.period_ns < kMinPeriodNs) {
      diags.error("XTP2105", c.loc, "timer period of '" + pp.str() + "' is out of range")
          .hint = "periods must be between 100us and about 584 years";
      return true;
    }
    return true;
  }

  void emit(CWriter &w, const std::vector<const ResolvedProbe *> &mine,
            std::vector<std::string> &fields) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_timer_probes", mine);
    w.open("static const struct xtap_timer_spec xtap_timers[] = {");
    for (size_t i = 0; i < mine.size(); ++i)
      w.line("{ .probe = &xtap_timer_probes[" + std::to_string(i) +
             "], .period_ns = " + std::to_string(mine[i]->period_ns) + "ULL },");
    w.close("};");
    fields.push_back(".timers = xtap_timers");
    fields.push_back(".ntimers = " + std::to_string(mine.size()));
  }
};

}  // namespace

const ProbeProvider *timer_provider() {
  static TimerProvider p;
  return &p;
}

}  // namespace xtap
