// --monitor's rows and lines from snapshots (model.h).
#include "monitor/model.h"

#include <algorithm>
#include <cstdio>

namespace xtap::monitor {

using runner::SnapEntry;
using runner::SnapKind;
using runner::SnapType;
using runner::SnapValue;

const char *sort_key_name(SortKey k) {
  switch (k) {
    case SortKey::Hits: return "hits";
    case SortKey::Rate: return "hits/s";
    case SortKey::Avg: return "avg";
    case SortKey::Max: return "max";
    case SortKey::Name: return "probe";
  }
  return "";
}

SortKey next_sort_key(SortKey k) {
  switch (k) {
    case SortKey::Hits: return SortKey::Rate;
    case SortKey::Rate: return SortKey::Avg;
    case SortKey::Avg: return SortKey::Max;
    case SortKey::Max: return SortKey::Name;
    case SortKey::Name: return SortKey::Hits;
  }
  return SortKey::Hits;
}

std::string short_count(uint64_t v) {
  if (v < 10000000) return std::to_string(v);
  static const char units[] = "KMGTPE";
  double d = double(v);
  int u = -1;
  while (d >= 1000 && u < 5) d /= 1000, u++;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%c", d, units[u]);
  return buf;
}

void Model::update(const runner::Snapshot &snap, double now_s) {
  if (have_) prev_ = last_, prev_s_ = last_s_, have_prev_ = true;
  last_ = snap;
  last_s_ = now_s;
  if (!have_) base_ = runner::Snapshot{}, base_.probes.resize(snap.probes.size());
  have_ = true;
}

void Model::reset() {
  if (have_) base_ = last_;
}

namespace {

// A counter since the baseline; a module's counters only grow, but a
// baseline from another session (never here) must not wrap.
uint64_t since(uint64_t now, uint64_t base) { return now >= base ? now - base : now; }

}  // namespace

std::vector<ProbeRow> Model::probes(SortKey key) const {
  std::vector<ProbeRow> rows;
  if (!have_) return rows;
  double dt = have_prev_ ? last_s_ - prev_s_ : 0;
  for (size_t i = 0; i < names_.probes.size() && i < last_.probes.size(); i++) {
    const auto &p = last_.probes[i];
    const runner::SnapProbe none{};
    const auto &b = i < base_.probes.size() ? base_.probes[i] : none;
    ProbeRow r;
    r.point = names_.probes[i];
    r.hits = since(p.hits, b.hits);
    uint64_t cycles = since(p.cycles_sum, b.cycles_sum);
    r.avg = r.hits ? cycles / r.hits : 0;
    r.max = p.cycles_max;
    if (have_prev_ && dt > 0 && i < prev_.probes.size())
      r.rate = double(since(p.hits, prev_.probes[i].hits)) / dt;
    rows.push_back(r);
  }
  auto by = [key](const ProbeRow &a, const ProbeRow &b) {
    switch (key) {
      case SortKey::Hits: return a.hits > b.hits;
      case SortKey::Rate: return a.rate > b.rate;
      case SortKey::Avg: return a.avg > b.avg;
      case SortKey::Max: return a.max > b.max;
      case SortKey::Name: return a.point < b.point;
    }
    return false;
  };
  std::stable_sort(rows.begin(), rows.end(), by);
  return rows;
}

Totals Model::totals() const {
  Totals t;
  if (!have_) return t;
  const auto &s = last_.session, &b = base_.session;
  t.hits = since(s.hits, b.hits);
  t.skipped = since(s.skipped, b.skipped);
  t.skipped_reentrant = since(s.skipped_reentrant, b.skipped_reentrant);
  t.skipped_lock = since(s.skipped_lock, b.skipped_lock);
  t.errors = since(s.errors, b.errors);
  t.warnings = since(s.warnings, b.warnings);
  t.lost_records = since(s.dropped_records, b.dropped_records);
  t.lost_bytes = since(s.dropped_bytes, b.dropped_bytes);
  double dt = last_s_ - prev_s_;
  if (have_prev_ && dt > 0) t.rate = double(since(s.hits, prev_.session.hits)) / dt;
  return t;
}

namespace {

std::string value_text(SnapType type, const SnapValue &v) {
  if (type == SnapType::String) return "\"" + v.str + "\"";
  if (type != SnapType::Stat) return std::to_string(v.num);
  const auto &s = v.stat;
  if (!s.count) return "count=0";
  return "count=" + std::to_string(s.count) + " avg=" + std::to_string(s.sum / s.count) +
         " min=" + std::to_string(s.min) + " max=" + std::to_string(s.max);
}

std::string keys_text(const std::vector<SnapType> &types, const SnapEntry &e) {
  std::string out;
  for (size_t k = 0; k < e.keys.size(); k++) {
    if (k) out += ",";
    bool str = k < types.size() && types[k] == SnapType::String;
    out += str ? "\"" + e.keys[k].str + "\"" : std::to_string(e.keys[k].num);
  }
  return out;
}

// Biggest first: numbers by value, statistics by count; strings keep the
// module's order.
std::vector<const SnapEntry *> top_entries(SnapType type, const std::vector<SnapEntry> &all,
                                           size_t top) {
  std::vector<const SnapEntry *> v;
  v.reserve(all.size());
  for (const auto &e : all) v.push_back(&e);
  auto key = [type](const SnapEntry *e) {
    return type == SnapType::Stat ? e->value.stat.count : e->value.num;
  };
  if (type != SnapType::String)
    std::stable_sort(v.begin(), v.end(),
                     [&key](const SnapEntry *a, const SnapEntry *b) { return key(a) > key(b); });
  if (v.size() > top) v.resize(top);
  return v;
}

}  // namespace

std::vector<std::string> Model::globals(size_t top) const {
  std::vector<std::string> scalars, arrays;
  if (!have_) return scalars;
  for (size_t i = 0; i < names_.globals.size() && i < last_.globals.size(); i++) {
    const auto &d = names_.globals[i];
    const auto &g = last_.globals[i];
    if (!g.present) continue;
    if (g.lock_timeout) {
      (d.kind == SnapKind::Array ? arrays : scalars).push_back(d.name + ": busy (lock held)");
      continue;
    }
    if (d.kind != SnapKind::Array) {
      scalars.push_back(d.name + " = " + value_text(d.value_type, g.value));
      continue;
    }
    arrays.push_back(
        d.name + ": " + std::to_string(g.total) + " entries" +
        (g.truncated ? " (a sample of " + std::to_string(g.entries.size()) + ")" : ""));
    for (const SnapEntry *e : top_entries(d.value_type, g.entries, top))
      arrays.push_back("  " + d.name + "[" + keys_text(d.key_types, *e) +
                       "] = " + value_text(d.value_type, e->value));
  }
  scalars.insert(scalars.end(), arrays.begin(), arrays.end());
  return scalars;
}

}  // namespace xtap::monitor
