#include "xtap/listing.h"

#include <set>

#include "symbols/catalog.h"

namespace xtap::cli {

void print_probe_list(std::ostream &os, const Elaborated &elab, bool vars) {
  std::set<std::string> lines;
  for (const auto &dp : elab.probes) {
    std::string line = dp->name();
    if (vars)
      for (const auto &v : dp->context_vars())
        line += " $" + v.name + ":" + (dp->types() ? dp->types()->spelling(v.type) : "long");
    lines.insert(line);
  }
  for (const auto &l : lines) os << l << "\n";
}

}  // namespace xtap::cli
