// Pass 2, extract_budgets (before aliases): xtap's probe point option `.budget(NS)`, the
// point's last component, comes off the point into ProbePoint::budget_ns,
// so that aliases, globs and providers see the point as stap would; the
// overload guard then skips that probe's runs on a CPU once its handlers
// took NS nanoseconds in a second there (docs/safety.md).
#include "passes/passes.h"

namespace xtap {
namespace {

constexpr long long kMaxBudgetNs = 1000000000;  // a whole CPU

bool is_phase(const ProbePoint &pp) {
  const std::string &first = pp.components.front().name;
  return first == "begin" || first == "end" || first == "error";
}

void extract(ProbePoint &pp, Diagnostics &diags) {
  if (pp.components.size() < 2 || pp.components.back().name != "budget") return;
  const ProbePointComponent &c = pp.components.back();
  auto error = [&](const std::string &msg) -> Diagnostic & {
    return diags.error("XTP2324", c.loc, msg);
  };
  if (!c.has_arg || c.arg_is_string || c.num_arg < 1 || c.num_arg > kMaxBudgetNs) {
    error("probe point option .budget needs a number of nanoseconds per second, 1 to " +
          std::to_string(kMaxBudgetNs))
        .hint = "handler time per second per CPU: .budget(10000000) is 10 ms a second, 1% of a CPU";
    return;
  }
  if (is_phase(pp)) {
    error("begin, end and error probes have no budget").hint =
        "they run once, in process context, outside the overload guard";
    return;
  }
  pp.budget_ns = static_cast<unsigned long long>(c.num_arg);
  pp.components.pop_back();
}

}  // namespace

void extract_budgets(Script &s, Diagnostics &diags) {
  for (auto &p : s.probes)
    for (auto &pp : p->points) extract(pp, diags);
}

}  // namespace xtap
