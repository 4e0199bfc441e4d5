// --format json: what xtap itself prints as JSON lines (one object a line),
// beside xtap-run's output/warning/error/summary records (docs/cli.md).
#pragma once

#include <ostream>

#include "diag/diagnostics.h"
#include "passes/passes.h"

namespace xtap::cli {

// {"type":"warning"|"error","code":"XTP2301","text":...,"hint":...,"file":...,"line":N,"column":N}
void print_diagnostic_json(std::ostream &os, const Diagnostic &d);
// -l / -L: {"type":"probe","name":...,"vars":[{"name":"$x","type":"int"}...]} a line, sorted.
void print_probe_list_json(std::ostream &os, const Elaborated &elab, bool vars);

}  // namespace xtap::cli
