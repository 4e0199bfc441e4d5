// Fleet-wide merge of aggregates files (xtap-run --aggregates): N hosts'
// final snapshots of one script become one set of globals (docs/fleet.md,
// "Merged results"). Exact by construction: counts, sums and every
// histogram and percentile-sketch bucket add, min/max combine; numbers add;
// strings are not combined (one value when every host agrees, else each
// host's); arrays are the union of their keys, merged per key as above.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/aggregates_file.h"
#include "runner/snapshot.h"

namespace xtap::merge {

// One host's file, decoded.
struct HostDump {
  std::string label;  // the host, as the file names it (made unique by the loader)
  std::string path;
  runner::AggregatesFile file;
  runner::SnapNames names;
  runner::Snapshot snap;
};

// The bytes of one aggregates file, decoded and checked; `path` names it
// in messages.
std::optional<HostDump> decode_dump(const std::string &bytes, const std::string &path,
                                    std::string *error);

// What one host had under a key (or as a scalar).
struct Share {
  size_t host = 0;  // index into Merged::hosts
  runner::SnapValue value;
};

struct MergedEntry {
  std::vector<runner::SnapKey> keys;  // arrays
  runner::SnapValue value;            // the fleet's value
  bool strings_differ = false;        // a string that is not the same on every host
  std::vector<Share> hosts;           // each host's value, in host order
};

struct MergedGlobal {
  runner::SnapGlobalDesc desc;
  bool present = false;              // some host had a value
  MergedEntry scalar;                // scalars and statistics
  std::vector<MergedEntry> entries;  // arrays: by value, largest first
};

struct Merged {
  std::string module, script;
  std::vector<std::string> hosts;    // labels, in input order
  std::vector<std::string> kernels;  // per host
  std::vector<MergedGlobal> globals;
  std::vector<std::string> warnings;  // truncated arrays, lock timeouts
};

// Adds `add` into `into`: counts, sums and buckets add, min/max combine.
// False when their bucket layouts differ.
bool merge_stat(runner::SnapStat *into, const runner::SnapStat &add);

// Checks that the dumps come from one script (module name and globals'
// descriptions) and merges them; nullopt and *error otherwise.
std::optional<Merged> merge_dumps(const std::vector<HostDump> &dumps, std::string *error);

}  // namespace xtap::merge
