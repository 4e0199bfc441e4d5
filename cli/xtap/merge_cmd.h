// xtap --merge: the fleet view of aggregates files (docs/fleet.md, "Merged
// results"), from files or directories here or from --remote hosts' runs.
#pragma once

#include <ostream>
#include <vector>

#include "merge/merge.h"
#include "xtap/options.h"

namespace xtap::cli {

// xtap --merge FILE|DIR...: the files named, and under each directory every
// file that is an aggregates file. Returns the exit status.
int run_merge(const Options &o);

// Merges `dumps` and prints the fleet view to `out` (text or --format json,
// --per-host), its warnings to stderr. Returns the exit status.
int print_merged(std::vector<merge::HostDump> dumps, const Options &o, std::ostream &out);

}  // namespace xtap::cli
