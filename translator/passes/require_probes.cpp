// Pass 2a's last check: a script whose probe points resolved to nothing
// has nothing to run. stap refuses it ("no probes found"), and so does xtap,
// rather than building a module that loads and waits forever.
#include "passes/passes.h"

namespace xtap {

void require_probes(const Script &s, const Elaborated &e, Diagnostics &diags) {
  if (!e.probes.empty()) return;
  Location loc;
  loc.file = s.file;
  loc.line = loc.column = 1;
  for (const auto &p : s.probes)
    if (!p->points.empty()) {
      loc = p->points.front().loc;
      break;
    }
  auto &d = diags.error("XTP2241", loc, "no probes found");
  d.hint = s.probes.empty() ? "a script needs at least one 'probe POINT { ... }'"
                            : "every probe point of the script is optional and none resolved";
}

}  // namespace xtap
