#include "xtap/listing.h"

#include <set>

#include "probes/kernel_function.h"
#include "symbols/catalog.h"

namespace xtap::cli {

void print_probe_list(std::ostream &os, const Elaborated &elab, bool vars) {
  std::set<std::string> lines;
  for (const auto &dp : elab.probes) {
    if (dp->decl->entry_half) continue;  // @entry's saving half of a .return probe
    // A probe alias is listed by its name with the variables it sets, as
    // stap lists syscall.openat; a probe point of a family by its location
    // with its target variables.
    if (!dp->decl->alias.empty()) {
      std::string line = dp->decl->alias;
      if (vars)
        for (const auto &l : dp->decl->locals) line += " " + l->name + ":" + type_name(l->type);
      lines.insert(line);
      continue;
    }
    std::string line = dp->name();
    // A GCC clone is listed under its source function's name, marked.
    if (auto *kf = dynamic_cast<const KernelFunctionProbe *>(dp.get()); kf && !kf->clone.empty())
      line += " /* clone " + kf->clone + " */";
    if (vars)
      for (const auto &v : dp->context_vars())
        line += " $" + v.name + ":" + (dp->types() ? dp->types()->spelling(v.type) : "long");
    lines.insert(line);
  }
  for (const auto &l : lines) os << l << "\n";
}

}  // namespace xtap::cli
