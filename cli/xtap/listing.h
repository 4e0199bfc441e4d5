// xtap -l / -L: the probe points a pattern matches, as stap lists them.
#pragma once

#include <ostream>

#include "passes/passes.h"

namespace xtap::cli {

// One line per location, sorted; with `vars`, followed by its context
// variables as `$name:type` (stap -L's format).
void print_probe_list(std::ostream &os, const Elaborated &elab, bool vars);

}  // namespace xtap::cli
