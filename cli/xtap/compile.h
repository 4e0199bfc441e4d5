// Passes 1-4 of one run for one kernel (parse, elaborate, translate,
// build), then pass 5 (run_module.h); each stops the run where -p says.
#pragma once

#include "xtap/options.h"

namespace xtap::cli {

// The exit status of the run.
int compile_and_run(const Options &o);

}  // namespace xtap::cli
