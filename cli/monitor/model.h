// --monitor's data side: what the view shows, computed from the module's
// snapshots (runner/snapshot.h) with no terminal involved, so that it can
// be tested alone. Rates come from two successive snapshots; a reset is a
// baseline kept here (the module's counters are never cleared).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/snapshot.h"

namespace xtap::monitor {

enum class SortKey { Hits, Rate, Avg, Max, Name };
const char *sort_key_name(SortKey k);
SortKey next_sort_key(SortKey k);

struct ProbeRow {
  std::string point;
  uint64_t hits = 0;  // since the reset
  double rate = 0;    // hits a second over the last interval
  uint64_t avg = 0;   // handler cycles, since the reset
  uint64_t max = 0;   // handler cycles, over the whole session
};

struct Totals {
  uint64_t hits = 0, skipped = 0, skipped_reentrant = 0, skipped_lock = 0;
  uint64_t errors = 0, warnings = 0, lost_records = 0, lost_bytes = 0;
  double rate = 0;
};

class Model {
 public:
  explicit Model(runner::SnapNames names) : names_(std::move(names)) {}
  // A new snapshot, taken at `now_s` seconds of a steady clock.
  void update(const runner::Snapshot &snap, double now_s);
  // Counts start again from the last snapshot (a display-side baseline).
  void reset();

  const runner::SnapNames &names() const { return names_; }
  bool has_snapshot() const { return have_; }
  bool timed() const { return !names_.probes.empty(); }
  std::vector<ProbeRow> probes(SortKey key) const;
  Totals totals() const;
  // "name = value" lines for the scalars and statistics, then each array's
  // top `top` entries by value ("name[k1,k2] = v"), arrays after scalars.
  std::vector<std::string> globals(size_t top) const;

 private:
  runner::SnapNames names_;
  runner::Snapshot last_, prev_, base_;
  double last_s_ = 0, prev_s_ = 0;
  bool have_ = false, have_prev_ = false;
};

// 1234567 -> "1234567", 12345678901 -> "12.3G": fits a column of 7.
std::string short_count(uint64_t v);

}  // namespace xtap::monitor
