#include "runner/probe_stats.h"

#include <algorithm>
#include <cstring>

#include <xtap/abi.h>

#include "common/json.h"

namespace xtap::runner {

namespace {

std::string n(uint64_t v) { return std::to_string((unsigned long long)v); }

// "A and B and C" of the parts that are not empty.
std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i)
    s += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return s;
}

}  // namespace

bool parse_probe_stats(const Message& m, ProbeStats* out) {
  xtap_probe_stats st{};
  if (m.payload.size() < sizeof(uint32_t) * 2) return false;
  std::memcpy(&st, m.payload.data(), std::min(m.payload.size(), sizeof(st)));
  // A newer module's larger structure: the names follow its own size.
  size_t names = std::min<size_t>(std::max<size_t>(st.size, 8), m.payload.size());
  *out = ProbeStats{};
  out->index = st.index;
  out->budget_ns = st.budget_ns;
  out->skipped_budget = st.skipped_budget;
  out->skipped_overload = st.skipped_overload;
  out->skipped_reentrant = st.skipped_reentrant;
  out->skipped_lock = st.skipped_lock;
  out->dropped_records = st.dropped_records;
  out->dropped_bytes = st.dropped_bytes;
  std::string rest = m.payload.substr(names);
  size_t nul = rest.find('\0');
  out->point = rest.substr(0, nul);
  if (nul != std::string::npos)
    out->location = rest.substr(nul + 1, rest.find('\0', nul + 1) - nul - 1);
  return true;
}

std::string probe_stats_text(const std::vector<ProbeStats>& stats) {
  std::string out;
  for (const ProbeStats& p : stats) {
    std::vector<std::string> parts;
    if (p.skipped_budget)
      parts.push_back(n(p.skipped_budget) + " runs skipped over its budget (" + n(p.budget_ns) +
                      " ns/s per CPU)");
    if (p.skipped_overload)
      parts.push_back(n(p.skipped_overload) +
                      " runs skipped with its CPU over the overload threshold");
    if (p.skipped_reentrant)
      parts.push_back(n(p.skipped_reentrant) + " runs skipped for reentrancy");
    if (p.skipped_lock)
      parts.push_back(n(p.skipped_lock) + " runs skipped for a global lock timeout");
    if (p.dropped_records)
      parts.push_back(n(p.dropped_records) + " output records (" + n(p.dropped_bytes) +
                      " bytes) dropped");
    if (parts.empty()) continue;
    out += "WARNING: probe " + p.point + " (" + p.location + "): " + join(parts) + "\n";
  }
  return out;
}

std::string probe_stats_json(const std::vector<ProbeStats>& stats) {
  std::string out = "[";
  for (const ProbeStats& p : stats) {
    if (out.size() > 1) out += ",";
    out += "{\"point\":" + json::quote(p.point) + ",\"location\":" + json::quote(p.location) +
           ",\"budget_ns\":" + n(p.budget_ns) + ",\"skipped_budget\":" + n(p.skipped_budget) +
           ",\"skipped_overload\":" + n(p.skipped_overload) +
           ",\"skipped_reentrant\":" + n(p.skipped_reentrant) +
           ",\"skipped_lock\":" + n(p.skipped_lock) +
           ",\"dropped_records\":" + n(p.dropped_records) +
           ",\"dropped_bytes\":" + n(p.dropped_bytes) + "}";
  }
  return out + "]";
}

}  // namespace xtap::runner
