// --folded FILE and --flamegraph FILE: the stacks of a session's output
// (folded lines, or stap's print_stack()/print_backtrace() blocks, see
// flamegraph/stacks.h) written as folded stacks and as an SVG flame graph;
// the rest of the output is shown as usual. --from-stacks FILE does the
// same for a saved output or folded file, without a session.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "flamegraph/stacks.h"
#include "xtap/options.h"

namespace xtap::cli {

inline bool wants_flame_output(const Options &o) { return !o.folded_file.empty() || !o.flamegraph_file.empty(); }

// Sends each line of `text` that is no stack to `rest`.
void collect_stacks(const std::string &text, flamegraph::StackCollector *c, std::ostream *rest);

// Writes --folded and --flamegraph (a note on stderr unless quiet); false
// with a message on stderr when a file cannot be written.
bool write_flame_files(const Options &o, flamegraph::StackCollector &c);

// Runs argv (xtap-run) with its standard output read here: stacks are
// collected, the rest goes to -o FILE or standard output as it comes.
// SIGINT and SIGTERM are passed on, so that the session's end probes run.
// The runner's exit status, or 1 when it could not be run.
int run_collecting_stacks(const Options &o, const std::vector<std::string> &argv);

// --from-stacks FILE: the files from a saved output. The exit status.
int convert_stacks(const Options &o);

}  // namespace xtap::cli
