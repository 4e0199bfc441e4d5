// The Prometheus text format of a snapshot (docs/cli.md, "--prometheus").
#include "runner/prometheus.h"

#include <algorithm>
#include <cstdint>

namespace xtap::runner {

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
size_t utf8_len(const std::string &s, size_t i) {
  unsigned char c = s[i];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  if (n == 2 && c < 0xc2) return 0;  // overlong
  return n;
}

std::string num(int64_t v) { return std::to_string(v); }
std::string unum(uint64_t v) { return std::to_string(v); }

class Page {
 public:
  void family(const std::string &name, const char *type, const std::string &help) {
    out_ += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void sample(const std::string &name, const std::string &labels, const std::string &value) {
    out_ += name;
    if (!labels.empty()) out_ += "{" + labels + "}";
    out_ += " " + value + "\n";
  }
  std::string &str() { return out_; }

 private:
  std::string out_;
};

std::string label(const std::string &name, const std::string &value) {
  return name + "=\"" + prometheus_label_value(value) + "\"";
}

std::string join(const std::string &a, const std::string &b) {
  return a.empty() ? b : b.empty() ? a : a + "," + b;
}

std::string key_labels(const SnapEntry &e, const SnapGlobalDesc &d) {
  std::string out;
  for (size_t k = 0; k < e.keys.size(); ++k) {
    const std::string v =
        d.key_types[k] == SnapType::String ? e.keys[k].str : std::to_string(e.keys[k].num);
    out = join(out, label("key" + std::to_string(k), v));
  }
  return out;
}

// The inclusive upper bound of histogram bucket i, as stap fills them
// (runtime-kmod/stat.c); nullopt for the last linear bucket (overflow).
std::optional<int64_t> bucket_le(const SnapGlobalDesc &d, size_t i, size_t n) {
  if (d.hist == 2) {  // @hist_log: bucket 64 holds 0, 64+k holds [2^(k-1), 2^k)
    const int b = int(i) - 64;
    if (b == 0) return 0;
    if (b > 0) return b >= 64 ? INT64_MAX : int64_t((uint64_t(1) << b) - 1);
    return b <= -64 ? INT64_MIN : -int64_t(uint64_t(1) << (-b - 1));
  }
  if (i + 1 >= n) return std::nullopt;    // overflow bucket
  return d.lo + int64_t(i) * d.step - 1;  // bucket 0: below lo
}

void histogram(Page *p, const std::string &name, const std::string &labels, const SnapGlobalDesc &d,
               const SnapStat &st) {
  size_t n = st.buckets.size(), first = n, last = 0;
  for (size_t i = 0; i < n; ++i)
    if (st.buckets[i]) first = std::min(first, i), last = i;
  // @hist_log has 128 buckets: show 0 up to the highest one used (and
  // negatives only when used); @hist_linear's all.
  if (d.hist == 2) first = std::min<size_t>(first, 64), last = std::max<size_t>(last, 64);
  else first = 0, last = n ? n - 1 : 0;
  int64_t cum = 0;
  for (size_t i = 0; i < first; ++i) cum += st.buckets[i];
  for (size_t i = first; i <= last && i < n; ++i) {
    cum += st.buckets[i];
    auto le = bucket_le(d, i, n);
    if (!le) break;  // the overflow bucket is +Inf's
    p->sample(name + "_bucket", join(labels, label("le", num(*le))), num(cum));
  }
  p->sample(name + "_bucket", join(labels, "le=\"+Inf\""), num(st.count));
  p->sample(name + "_sum", labels, num(st.sum));
  p->sample(name + "_count", labels, num(st.count));
}

void stat_sample(Page *p, const std::string &name, const std::string &labels,
                 const SnapGlobalDesc &d, const SnapStat &st) {
  if (d.hist) return histogram(p, name, labels, d, st);
  p->sample(name + "_sum", labels, num(st.sum));
  p->sample(name + "_count", labels, num(st.count));
}

void session_metrics(Page *p, const Snapshot &s) {
  const SnapSession &c = s.session;
  struct {
    const char *name, *help;
    uint64_t v;
  } counters[] = {
      {"xtap_hits_total", "Handler runs completed.", c.hits},
      {"xtap_skipped_total", "Handler runs skipped (reentrancy or lock contention).", c.skipped},
      {"xtap_skipped_reentrant_total", "Handler runs skipped: the CPU was in a handler.",
       c.skipped_reentrant},
      {"xtap_skipped_lock_total", "Handler runs skipped: a global's lock timed out.",
       c.skipped_lock},
      {"xtap_errors_total", "Run-time errors raised by handlers.", c.errors},
      {"xtap_warnings_total", "Run-time warnings.", c.warnings},
      {"xtap_dropped_records_total", "Output records that did not fit a relay buffer.",
       c.dropped_records},
      {"xtap_dropped_bytes_total", "Bytes of the dropped output records.", c.dropped_bytes},
  };
  for (const auto &k : counters) {
    p->family(k.name, "counter", k.help);
    p->sample(k.name, "", unum(k.v));
  }
  p->family("xtap_session_state", "gauge",
            "The session's state: 0 loaded, 1 starting, 2 running, 3 stopping, 4 ending, 5 done.");
  p->sample("xtap_session_state", "", unum(s.state));
}

void probe_metrics(Page *p, const SnapNames &names, const Snapshot &s) {
  if (names.probes.empty()) return;
  p->family("xtap_probe_hits_total", "counter", "Handler runs of each probe (built with -t).");
  for (size_t i = 0; i < names.probes.size(); ++i)
    p->sample("xtap_probe_hits_total", label("probe", names.probes[i]), unum(s.probes[i].hits));
  p->family("xtap_probe_cycles_total", "counter", "Handler cycles of each probe (built with -t).");
  for (size_t i = 0; i < names.probes.size(); ++i)
    p->sample("xtap_probe_cycles_total", label("probe", names.probes[i]),
              unum(s.probes[i].cycles_sum));
  p->family("xtap_probe_cycles_max", "gauge", "Longest handler run of each probe, in cycles.");
  for (size_t i = 0; i < names.probes.size(); ++i)
    p->sample("xtap_probe_cycles_max", label("probe", names.probes[i]),
              unum(s.probes[i].cycles_max));
}

const char *family_type(const SnapGlobalDesc &d) {
  if (d.value_type != SnapType::Stat) return "gauge";
  return d.hist ? "histogram" : "summary";
}

void global_metrics(Page *p, const SnapGlobalDesc &d, const SnapGlobal &g, size_t max_series,
                    std::string *omitted) {
  const std::string name = "xtap_global_" + d.name;
  p->family(name, family_type(d), "The script's global '" + d.name + "'.");
  uint64_t left_out = 0;
  if (d.kind != SnapKind::Array) {
    if (d.value_type == SnapType::String) p->sample(name, label("value", g.value.str), "1");
    else if (d.value_type == SnapType::Stat) stat_sample(p, name, "", d, g.value.stat);
    else p->sample(name, "", num(g.value.num));
  } else {
    size_t shown = std::min(max_series, g.entries.size());
    for (size_t i = 0; i < shown; ++i) {
      const SnapEntry &e = g.entries[i];
      std::string keys = key_labels(e, d);
      if (d.value_type == SnapType::String)
        p->sample(name, join(keys, label("value", e.value.str)), "1");
      else if (d.value_type == SnapType::Stat) stat_sample(p, name, keys, d, e.value.stat);
      else p->sample(name, keys, num(e.value.num));
    }
    left_out = std::max<uint64_t>(g.total, g.entries.size()) - shown;
  }
  if (left_out)
    *omitted +=
        "xtap_global_omitted_entries{" + label("global", d.name) + "} " + unum(left_out) + "\n";
}

}  // namespace

std::string prometheus_label_value(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_len(s, i);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
      continue;
    }
    char c = s[i];
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out.append(s, i, n);
    i += n;
  }
  return out;
}

std::string prometheus_text(const SnapNames &names, const Snapshot &snap, size_t max_series) {
  Page p;
  session_metrics(&p, snap);
  probe_metrics(&p, names, snap);
  std::string omitted;
  // A global whose lock was busy past MAXTRYLOCK is missing from this page
  // only (its series are stale for one scrape interval), not an error.
  for (size_t i = 0; i < names.globals.size() && i < snap.globals.size(); ++i)
    if (snap.globals[i].present && !snap.globals[i].lock_timeout)
      global_metrics(&p, names.globals[i], snap.globals[i], max_series, &omitted);
  p.family("xtap_global_omitted_entries", "gauge",
           "Entries of an array left out of this page (the cap), by global.");
  p.str() += omitted;
  return p.str();
}

}  // namespace xtap::runner
