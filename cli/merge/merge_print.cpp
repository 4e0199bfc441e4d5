// Text and JSON of merged globals (merge_print.h).
#include "merge/merge_print.h"

#include <cstdio>

#include "common/json.h"
#include "merge/stat_text.h"

namespace xtap::merge {

namespace {

using runner::SnapGlobalDesc;
using runner::SnapStat;
using runner::SnapType;
using runner::SnapValue;

std::string quoted(const std::string &s) { return "\"" + s + "\""; }

// ["x",1] as display_unread prints keys.
std::string keys_text(const SnapGlobalDesc &d, const std::vector<runner::SnapKey> &keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) out += ",";
    out += d.key_types[i] == SnapType::String ? quoted(keys[i].str) : std::to_string(keys[i].num);
  }
  return out + "]";
}

// stap's _stp_div64: x / 0 is 0.
int64_t avg(const SnapStat &s) { return s.count ? s.sum / s.count : 0; }

std::string stat_fields(const SnapStat &s) {
  return " @count=" + std::to_string(s.count) + " @min=" + std::to_string(s.min) +
         " @max=" + std::to_string(s.max) + " @sum=" + std::to_string(s.sum) +
         " @avg=" + std::to_string(avg(s));
}

std::string percent(int64_t part, int64_t whole) {
  if (whole == 0) return "";
  char buf[32];
  std::snprintf(buf, sizeof(buf), " (%.1f%%)", 100.0 * part / whole);
  return buf;
}

// One host's share of a value: "  [web1] 3 (37.5%)".
std::string share_text(const SnapGlobalDesc &d, const std::string &host, const SnapValue &v,
                       const SnapValue &total) {
  std::string out = "  [" + host + "] ";
  switch (d.value_type) {
    case SnapType::String: return out + quoted(v.str) + "\n";
    case SnapType::Stat:
      return out + stat_fields(v.stat).substr(1) + percent(v.stat.count, total.stat.count) + "\n";
    default: return out + std::to_string(v.num) + percent(v.num, total.num) + "\n";
  }
}

// One scalar's or entry's lines; `label` is the name with its keys.
std::string entry_text(const Merged &m, const SnapGlobalDesc &d, const std::string &label,
                       const MergedEntry &e, const PrintOptions &o) {
  std::string out;
  const SnapValue &v = e.value;
  if (d.value_type == SnapType::String && e.strings_differ) {
    // Strings are not combined: each host's, as --remote prefixes lines.
    for (const Share &s : e.hosts)
      out += "[" + m.hosts[s.host] + "] " + label + "=" + quoted(s.value.str) + "\n";
    return out;
  }
  if (d.value_type == SnapType::Stat) {
    if (v.stat.count == 0) return "";
    out += label + stat_fields(v.stat) + "\n";
  } else if (d.value_type == SnapType::String) {
    out += label + "=" + quoted(v.str) + "\n";
  } else {
    out += label + "=" + std::to_string(v.num) + "\n";
  }
  if (o.per_host)
    for (const Share &s : e.hosts) out += share_text(d, m.hosts[s.host], s.value, v);
  if (d.value_type == SnapType::Stat) {
    out += hist_text(d, v.stat);
    out += quantiles_text(d, v.stat);
  }
  return out;
}

}  // namespace

std::string merged_text(const Merged &m, const PrintOptions &o) {
  std::string out;
  for (const MergedGlobal &g : m.globals) {
    if (!g.present) continue;
    if (g.desc.kind != runner::SnapKind::Array) {
      out += entry_text(m, g.desc, g.desc.name, g.scalar, o);
      continue;
    }
    for (const MergedEntry &e : g.entries)
      out += entry_text(m, g.desc, g.desc.name + keys_text(g.desc, e.keys), e, o);
  }
  return out;
}

namespace {

std::string num(int64_t v) { return std::to_string(v); }

std::string stat_json(const SnapGlobalDesc &d, const SnapStat &s) {
  std::string out = "{\"count\":" + num(s.count) + ",\"sum\":" + num(s.sum) +
                    ",\"min\":" + num(s.min) + ",\"max\":" + num(s.max) + ",\"avg\":" + num(avg(s));
  if (d.hist && !s.buckets.empty()) {
    // Only the buckets that hold values: {"value": the row's lower bound, "count"}.
    out += std::string(",\"hist\":{\"type\":") + (d.hist == 1 ? "\"linear\"" : "\"log\"");
    if (d.hist == 1)
      out += ",\"lo\":" + num(d.lo) + ",\"hi\":" + num(d.hi) + ",\"step\":" + num(d.step);
    out += ",\"buckets\":[";
    bool first = true;
    int n = static_cast<int>(s.buckets.size());
    for (int i = 0; i < n; ++i) {
      if (!s.buckets[i]) continue;
      std::string where = "\"value\":" + num(bucket_value(d, i));
      if (d.hist == 1 && i == 0) where = "\"below\":" + num(d.lo);
      if (d.hist == 1 && i == n - 1) where = "\"above\":" + num(d.lo + (int64_t)(i - 2) * d.step);
      out += std::string(first ? "" : ",") + "{" + where + ",\"count\":" + num(s.buckets[i]) + "}";
      first = false;
    }
    out += "]}";
  }
  if (!s.pct.empty() && s.count) {
    out += ",\"quantiles\":{\"p50\":" + num(pct_value(d, s, 50, 100)) +
           ",\"p90\":" + num(pct_value(d, s, 90, 100)) +
           ",\"p99\":" + num(pct_value(d, s, 99, 100)) +
           ",\"p99.9\":" + num(pct_value(d, s, 999, 1000)) + "}";
  }
  return out + "}";
}

std::string value_json(const SnapGlobalDesc &d, const SnapValue &v) {
  switch (d.value_type) {
    case SnapType::String: return json::quote(v.str);
    case SnapType::Stat: return stat_json(d, v.stat);
    default: return num(v.num);
  }
}

// "value" (absent for strings that differ), "hosts" with --per-host or
// when strings differ.
std::string entry_json(const Merged &m, const SnapGlobalDesc &d, const MergedEntry &e,
                       const PrintOptions &o) {
  std::string out;
  if (!e.strings_differ) out += "\"value\":" + value_json(d, e.value);
  if (o.per_host || e.strings_differ) {
    out += std::string(out.empty() ? "" : ",") + "\"hosts\":{";
    for (size_t i = 0; i < e.hosts.size(); ++i)
      out += std::string(i ? "," : "") + json::quote(m.hosts[e.hosts[i].host]) + ":" +
             value_json(d, e.hosts[i].value);
    out += "}";
  }
  return out;
}

std::string type_name(SnapType t) {
  return t == SnapType::String ? "string" : t == SnapType::Stat ? "stat" : "number";
}

}  // namespace

std::string merged_json(const Merged &m, const PrintOptions &o) {
  std::string out = "{\"module\":" + json::quote(m.module) +
                    ",\"script\":" + json::quote(m.script) + ",\"hosts\":[";
  for (size_t i = 0; i < m.hosts.size(); ++i)
    out += std::string(i ? "," : "") + "{\"host\":" + json::quote(m.hosts[i]) +
           ",\"kernel\":" + json::quote(m.kernels[i]) + "}";
  out += "],\"globals\":[";
  bool first = true;
  for (const MergedGlobal &g : m.globals) {
    if (!g.present) continue;
    out += std::string(first ? "" : ",") + "{\"name\":" + json::quote(g.desc.name) +
           ",\"type\":\"" + type_name(g.desc.value_type) + "\"";
    first = false;
    if (g.desc.kind != runner::SnapKind::Array) {
      out += "," + entry_json(m, g.desc, g.scalar, o) + "}";
      continue;
    }
    out += ",\"entries\":[";
    for (size_t i = 0; i < g.entries.size(); ++i) {
      const MergedEntry &e = g.entries[i];
      out += std::string(i ? "," : "") + "{\"keys\":[";
      for (size_t k = 0; k < e.keys.size(); ++k)
        out += std::string(k ? "," : "") + (g.desc.key_types[k] == SnapType::String
                                                ? json::quote(e.keys[k].str)
                                                : num(e.keys[k].num));
      out += "]," + entry_json(m, g.desc, e, o) + "}";
    }
    out += "]}";
  }
  out += "],\"warnings\":[";
  for (size_t i = 0; i < m.warnings.size(); ++i)
    out += std::string(i ? "," : "") + json::quote(m.warnings[i]);
  return out + "]}\n";
}

}  // namespace xtap::merge
