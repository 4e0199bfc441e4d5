// The module's per-probe loss report (PROBE_STATS messages, abi.h): what
// each probe skipped and why, and the output it lost, for the end-of-run
// summary in text and in --format json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/control.h"

namespace xtap::runner {

struct ProbeStats {
  uint32_t index = 0;
  uint64_t budget_ns = 0;
  uint64_t skipped_budget = 0, skipped_overload = 0;
  uint64_t skipped_reentrant = 0, skipped_lock = 0;
  uint64_t dropped_records = 0, dropped_bytes = 0;
  std::string point, location;
};

// Reads one PROBE_STATS message; false if it is malformed (too short).
bool parse_probe_stats(const Message& m, ProbeStats* out);

// "WARNING: probe P (L): 120 runs skipped over its budget ..." lines, one a probe.
std::string probe_stats_text(const std::vector<ProbeStats>& stats);

// A JSON array of objects, one a probe, for the summary line.
std::string probe_stats_json(const std::vector<ProbeStats>& stats);

}  // namespace xtap::runner
