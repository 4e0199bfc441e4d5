// Pass 2, require_probes: a script whose probe points resolved to nothing
// has nothing to run. stap refuses it ("no probes found"), and so does xtap,
// rather than building a module that loads and waits forever.
#include "passes/passes.h"

namespace xtap {

void require_probes(const Script &s, const Elaborated &e, const Location *first_probe,
                    Diagnostics &diags) {
  if (!e.probes.empty()) return;
  Location loc;
  loc.file = s.file;
  loc.line = loc.column = 1;
  if (first_probe) loc = *first_probe;
  auto &d = diags.error("XTP2241", loc, "no probes found");
  d.hint = first_probe ? "every probe point of the script is optional and none resolved"
                       : "a script needs at least one 'probe POINT { ... }'";
}

}  // namespace xtap
