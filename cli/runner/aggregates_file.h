// The aggregates file (xtap-run --aggregates FILE): one host's final
// snapshot of a script's globals, with what a fleet merge needs to check
// that several files come from one script (xtap --merge, merge/merge.h).
//
// Layout (little-endian, docs/fleet.md "Aggregates file"):
//   "XTAPAGG\n"  magic, 8 bytes
//   u32          file format version (kAggregatesVersion)
//   5 strings    module, script, host, kernel release, UTC time (u32 + bytes)
//   u32 + bytes  the module's snapshot_names table, as read from debugfs
//   u32 + bytes  the snapshot made after the end probes ran
// The two blobs keep the module's own versioned format (XTAP_SNAP_VERSION),
// so that the reader says which snapshot version a module spoke.
#pragma once

#include <optional>
#include <string>

namespace xtap::runner {

inline constexpr uint32_t kAggregatesVersion = 1;

struct AggregatesFile {
  std::string module, script, host, kernel, time;
  std::string names;     // snapshot_names bytes
  std::string snapshot;  // snapshot bytes
};

std::string encode_aggregates(const AggregatesFile &f);
// nullopt and *error when the bytes are not an aggregates file of this version.
std::optional<AggregatesFile> decode_aggregates(const std::string &bytes, std::string *error);

// Reads the module's debugfs snapshot files into f.names / f.snapshot,
// checking that they parse; false and *error otherwise.
bool read_module_aggregates(const std::string &debugfs_dir, AggregatesFile *f, std::string *error);

}  // namespace xtap::runner
