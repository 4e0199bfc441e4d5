// A module's snapshot (runtime-kmod/include/xtap/abi.h): the names table
// (xtap_<module>/snapshot_names) and a dump (xtap_<module>/snapshot) parsed
// into plain C++ values, for --prometheus (and later --monitor and fleet
// merges). The parsers check every size against the bytes they have, so a
// short or corrupt file is an error message, never a read past the end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xtap::runner {

enum class SnapKind { Scalar = 1, Array = 2, Stat = 3 };
enum class SnapType { Long = 1, String = 2, Stat = 3 };

struct SnapGlobalDesc {
  std::string name;
  SnapKind kind = SnapKind::Scalar;
  SnapType value_type = SnapType::Long;
  std::vector<SnapType> key_types;  // arrays
  int hist = 0;                     // 0 none, 1 @hist_linear, 2 @hist_log
  int64_t lo = 0, hi = 0, step = 0;
  uint32_t nbuckets = 0;
  int pct_bits = 0;   // the percentile sketch's k, 0: none (runtime-kmod/stat.h)
  uint32_t npct = 0;  // its buckets
};

struct SnapNames {
  uint32_t max_entries = 0;
  std::vector<SnapGlobalDesc> globals;
  std::vector<std::string> probes;  // timed probes' points (-t)
};

struct SnapStat {
  int64_t count = 0, sum = 0, min = 0, max = 0;
  std::vector<int64_t> buckets;  // the histogram's
  std::vector<int64_t> pct;      // the percentile sketch's, in value order
};

// A number, a string or a statistic, as the global's type says.
struct SnapValue {
  int64_t num = 0;
  std::string str;
  SnapStat stat;
};

struct SnapKey {
  int64_t num = 0;
  std::string str;
};

struct SnapEntry {
  std::vector<SnapKey> keys;
  SnapValue value;
};

struct SnapGlobal {
  bool present = false;       // its record was in the dump
  bool lock_timeout = false;  // its lock was not had: no value this time
  bool truncated = false;     // an array with more entries than carried
  uint32_t total = 0;         // entries the array held
  SnapValue value;            // scalars and statistics
  std::vector<SnapEntry> entries;
};

struct SnapProbe {
  bool present = false;
  uint64_t hits = 0, cycles_sum = 0, cycles_min = 0, cycles_max = 0;
};

struct SnapSession {
  uint64_t hits = 0, skipped = 0, skipped_reentrant = 0, skipped_lock = 0;
  uint64_t errors = 0, warnings = 0, dropped_records = 0, dropped_bytes = 0;
};

struct Snapshot {
  uint64_t time_ns = 0;
  uint32_t state = 0;
  SnapSession session;
  std::vector<SnapProbe> probes;    // indexed as SnapNames::probes
  std::vector<SnapGlobal> globals;  // indexed as SnapNames::globals
};

// nullopt and *error set when the bytes are not a table / dump this runner
// can read (magic, version, sizes). `what` names the source in the message.
std::optional<SnapNames> parse_snapshot_names(const std::string &bytes, std::string *error);
std::optional<Snapshot> parse_snapshot(const std::string &bytes, const SnapNames &names,
                                       std::string *error);

// Reads xtap_<module>/snapshot_names and snapshot under the debugfs mount.
std::optional<SnapNames> read_snapshot_names(const std::string &debugfs_dir, std::string *error);
std::optional<Snapshot> read_snapshot(const std::string &debugfs_dir, const SnapNames &names,
                                      std::string *error);

}  // namespace xtap::runner
