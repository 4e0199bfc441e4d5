// Pass 3: the table of the script's globals that snapshots show
// (runtime-kmod/snapshot.c, the snapshot files of abi.h).
#pragma once

#include <string>
#include <vector>

#include "common/c_writer.h"
#include "parse/ast.h"

namespace xtap {

// Writes the table of the script's own globals (tapsets' are their state,
// not results) and adds its fields to the script descriptor's.
void emit_snapshot_table(CWriter &w, const Script &s, std::vector<std::string> *fields);

}  // namespace xtap
