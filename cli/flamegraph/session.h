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

namespace xtap::flamegraph {

// Where the driver's options send a session's stacks and the rest.
struct OutputFiles {
  std::string folded;       // --folded ("-": standard output)
  std::string svg;          // --flamegraph
  std::string title;        // the graph's title
  std::string rest;         // -o FILE for the other lines ("": standard output)
  std::string from_stacks;  // --from-stacks ("-": standard input)
  bool quiet = false;       // -q: no note of what was written
};

// Sends each line of `text` that is no stack to `rest`.
void collect_stacks(const std::string &text, StackCollector *c, std::ostream *rest);

// Writes --folded and --flamegraph (a note on stderr unless quiet); false
// with a message on stderr when a file cannot be written.
bool write_flame_files(const OutputFiles &o, StackCollector &c);

// Runs argv (xtap-run) with its standard output read here: stacks are
// collected, the rest goes to -o FILE or standard output as it comes.
// SIGINT and SIGTERM are passed on, so that the session's end probes run.
// The runner's exit status, or 1 when it could not be run.
int run_collecting_stacks(const OutputFiles &o, const std::vector<std::string> &argv);

// --from-stacks FILE: the files from a saved output. The exit status.
int convert_stacks(const OutputFiles &o);

}  // namespace xtap::flamegraph
