// The merge of aggregates files (merge.h).
#include "merge/merge.h"

#include <algorithm>
#include <map>

namespace xtap::merge {

using runner::SnapEntry;
using runner::SnapGlobalDesc;
using runner::SnapKind;
using runner::SnapStat;
using runner::SnapType;
using runner::SnapValue;

std::optional<HostDump> decode_dump(const std::string &bytes, const std::string &path,
                                    std::string *error) {
  HostDump d;
  d.path = path;
  std::string err;
  auto f = runner::decode_aggregates(bytes, &err);
  auto fail = [&](const std::string &why) {
    *error = path + ": " + why;
    return std::nullopt;
  };
  if (!f) return fail(err);
  d.file = std::move(*f);
  auto names = runner::parse_snapshot_names(d.file.names, &err);
  if (!names) return fail(err);
  d.names = std::move(*names);
  auto snap = runner::parse_snapshot(d.file.snapshot, d.names, &err);
  if (!snap) return fail(err);
  d.snap = std::move(*snap);
  d.label = d.file.host.empty() ? path : d.file.host;
  return d;
}

namespace {
// Sums wrap as the module's do (two's complement), never undefined.
int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
}  // namespace

bool merge_stat(SnapStat *into, const SnapStat &add) {
  if (into->buckets.size() != add.buckets.size() || into->pct.size() != add.pct.size())
    return false;
  if (add.count == 0) return true;
  if (into->count == 0) {
    into->min = add.min, into->max = add.max;
  } else {
    into->min = std::min(into->min, add.min);
    into->max = std::max(into->max, add.max);
  }
  into->count += add.count;
  into->sum = wrapping_add(into->sum, add.sum);
  for (size_t i = 0; i < add.buckets.size(); ++i) into->buckets[i] += add.buckets[i];
  for (size_t i = 0; i < add.pct.size(); ++i) into->pct[i] += add.pct[i];
  return true;
}

namespace {

// Globals of one script have the same names, kinds, types and buckets
// whatever kernel the module was built for.
bool same_desc(const SnapGlobalDesc &a, const SnapGlobalDesc &b) {
  return a.name == b.name && a.kind == b.kind && a.value_type == b.value_type &&
         a.key_types == b.key_types && a.hist == b.hist && a.lo == b.lo && a.hi == b.hi &&
         a.step == b.step && a.nbuckets == b.nbuckets && a.pct_bits == b.pct_bits &&
         a.npct == b.npct;
}

bool check_same_script(const std::vector<HostDump> &dumps, std::string *error) {
  const HostDump &first = dumps.front();
  for (const HostDump &d : dumps) {
    if (d.file.module != first.file.module) {
      *error = d.path + " holds module " + d.file.module + ", " + first.path + " module " +
               first.file.module + ": not dumps of one script (merge the results of one run)";
      return false;
    }
    bool same = d.names.globals.size() == first.names.globals.size();
    for (size_t i = 0; same && i < d.names.globals.size(); ++i)
      same = same_desc(d.names.globals[i], first.names.globals[i]);
    if (!same) {
      *error = d.path + " and " + first.path + " are both module " + d.file.module +
               " but their globals differ: built from different scripts with one -m name?";
      return false;
    }
  }
  return true;
}

// One host's value merged into the fleet's entry.
void merge_value(const SnapGlobalDesc &desc, size_t host, const SnapValue &v, MergedEntry *e) {
  bool first = e->hosts.empty();
  e->hosts.push_back({host, v});
  switch (desc.value_type) {
    case SnapType::String:
      if (first) e->value.str = v.str;
      else if (v.str != e->value.str) e->strings_differ = true;
      break;
    case SnapType::Stat:
      if (first) e->value.stat = v.stat;
      else merge_stat(&e->value.stat, v.stat);  // layouts checked by same_desc
      break;
    default: e->value.num = wrapping_add(e->value.num, v.num);
  }
}

// A map key for an entry's keys: type-tagged, so "1" and 1 differ.
std::string key_of(const std::vector<runner::SnapKey> &keys, const SnapGlobalDesc &desc) {
  std::string k;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (desc.key_types[i] == SnapType::String)
      k += "s" + std::to_string(keys[i].str.size()) + ":" + keys[i].str;
    else k += "n" + std::to_string(keys[i].num) + ";";
  }
  return k;
}

// stap's order for an array's display: by value, largest first (statistics
// by @count). Ties go by key, ascending: which host met a key first must
// not change the view.
bool keys_less(const SnapGlobalDesc &d, const MergedEntry &a, const MergedEntry &b) {
  for (size_t i = 0; i < a.keys.size(); ++i) {
    if (d.key_types[i] == SnapType::String) {
      if (a.keys[i].str != b.keys[i].str) return a.keys[i].str < b.keys[i].str;
    } else if (a.keys[i].num != b.keys[i].num) {
      return a.keys[i].num < b.keys[i].num;
    }
  }
  return false;
}

void sort_entries(const SnapGlobalDesc &desc, std::vector<MergedEntry> *entries) {
  std::sort(entries->begin(), entries->end(), [&](const MergedEntry &a, const MergedEntry &b) {
    const runner::SnapValue &x = a.value, &y = b.value;
    switch (desc.value_type) {
      case SnapType::String:
        if (x.str != y.str) return x.str > y.str;
        break;
      case SnapType::Stat:
        if (x.stat.count != y.stat.count) return x.stat.count > y.stat.count;
        break;
      default:
        if (x.num != y.num) return x.num > y.num;
    }
    return keys_less(desc, a, b);
  });
}

void merge_global(const std::vector<HostDump> &dumps, size_t gi, Merged *m) {
  MergedGlobal &mg = m->globals[gi];
  std::map<std::string, size_t> index;
  for (size_t h = 0; h < dumps.size(); ++h) {
    const runner::SnapGlobal &g = dumps[h].snap.globals[gi];
    if (!g.present) continue;
    if (g.lock_timeout) {
      m->warnings.push_back(mg.desc.name + ": " + m->hosts[h] +
                            "'s value is missing (its lock was busy when the dump was made)");
      continue;
    }
    if (g.truncated)
      m->warnings.push_back(mg.desc.name + ": " + m->hosts[h] + " sent " +
                            std::to_string(g.entries.size()) + " of its " +
                            std::to_string(g.total) + " entries; the rest are not merged");
    mg.present = true;
    if (mg.desc.kind != SnapKind::Array) {
      merge_value(mg.desc, h, g.value, &mg.scalar);
      continue;
    }
    for (const SnapEntry &e : g.entries) {
      auto [it, added] = index.emplace(key_of(e.keys, mg.desc), mg.entries.size());
      if (added) {
        mg.entries.emplace_back();
        mg.entries.back().keys = e.keys;
      }
      merge_value(mg.desc, h, e.value, &mg.entries[it->second]);
    }
  }
  sort_entries(mg.desc, &mg.entries);
}

}  // namespace

std::optional<Merged> merge_dumps(const std::vector<HostDump> &dumps, std::string *error) {
  if (dumps.empty()) {
    *error = "no aggregates files to merge";
    return std::nullopt;
  }
  if (!check_same_script(dumps, error)) return std::nullopt;
  Merged m;
  m.module = dumps.front().file.module;
  m.script = dumps.front().file.script;
  for (const HostDump &d : dumps) {
    m.hosts.push_back(d.label);
    m.kernels.push_back(d.file.kernel);
  }
  for (const SnapGlobalDesc &desc : dumps.front().names.globals) {
    m.globals.emplace_back();
    m.globals.back().desc = desc;
  }
  for (size_t gi = 0; gi < m.globals.size(); ++gi) merge_global(dumps, gi, &m);
  return m;
}

}  // namespace xtap::merge
