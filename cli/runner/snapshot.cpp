// The snapshot decoders: every read is checked against the bytes at hand.
#include "runner/snapshot.h"

#include <cstring>

#include <xtap/abi.h>

#include "common/file_io.h"

namespace xtap::runner {

namespace {

// A bounded reader over one structure or record.
class Reader {
 public:
  Reader(const char *p, size_t n) : p_(p), n_(n) {}
  bool ok() const { return ok_; }
  size_t left() const { return n_ - at_; }
  const char *here() const { return p_ + at_; }

  // A structure that starts with its __u32 size: the fields this runner
  // knows are copied (zero when an older writer's is shorter), the rest
  // are stepped over.
  template <typename T>
  bool sized(T *out) {
    uint32_t size = 0;
    if (!peek(&size, sizeof(size)) || size < sizeof(uint32_t) || size > left()) return fail();
    std::memset(out, 0, sizeof(T));
    std::memcpy(out, here(), std::min<size_t>(size, sizeof(T)));
    at_ += size;
    return true;
  }
  bool bytes(void *out, size_t n) {
    if (!peek(out, n)) return fail();
    at_ += n;
    return true;
  }
  bool s64(int64_t *v) { return bytes(v, sizeof(*v)); }
  bool str(std::string *s) {
    uint32_t n = 0;
    if (!bytes(&n, sizeof(n)) || n > left()) return fail();
    s->assign(here(), n);
    at_ += n;
    return true;
  }
  bool skip(size_t n) {
    if (n > left()) return fail();
    at_ += n;
    return true;
  }

 private:
  bool peek(void *out, size_t n) {
    if (n > left()) return false;
    std::memcpy(out, here(), n);
    return true;
  }
  bool fail() { return ok_ = false; }

  const char *p_;
  size_t n_, at_ = 0;
  bool ok_ = true;
};

bool read_stat(Reader *r, SnapStat *st) {
  xtap_snap_stat s{};
  if (!r->sized(&s) || s.nbuckets > r->left() / sizeof(int64_t) ||
      s.npct > r->left() / sizeof(int64_t) - s.nbuckets)
    return false;
  st->count = s.count, st->sum = s.sum, st->min = s.min, st->max = s.max;
  st->buckets.resize(s.nbuckets);
  st->pct.resize(s.npct);
  for (auto &b : st->buckets)
    if (!r->s64(&b)) return false;
  for (auto &b : st->pct)
    if (!r->s64(&b)) return false;
  return true;
}

bool read_value(Reader *r, const SnapGlobalDesc &d, SnapValue *v) {
  switch (d.value_type) {
    case SnapType::String: return r->str(&v->str);
    case SnapType::Stat: return read_stat(r, &v->stat);
    default: return r->s64(&v->num);
  }
}

bool read_array(Reader *r, const SnapGlobalDesc &d, SnapGlobal *g) {
  xtap_snap_array a{};
  if (!r->sized(&a)) return false;
  g->total = a.total;
  for (uint32_t i = 0; i < a.nentries; ++i) {
    SnapEntry e;
    e.keys.resize(d.key_types.size());
    for (size_t k = 0; k < d.key_types.size(); ++k) {
      bool ok =
          d.key_types[k] == SnapType::String ? r->str(&e.keys[k].str) : r->s64(&e.keys[k].num);
      if (!ok) return false;
    }
    if (!read_value(r, d, &e.value)) return false;
    g->entries.push_back(std::move(e));
  }
  return true;
}

bool read_global(Reader *r, const SnapGlobalDesc &d, uint16_t flags, SnapGlobal *g) {
  g->present = true;
  g->lock_timeout = flags & XTAP_SNAP_F_LOCK_TIMEOUT;
  g->truncated = flags & XTAP_SNAP_F_TRUNCATED;
  if (g->lock_timeout) return true;
  if (d.kind == SnapKind::Array) return read_array(r, d, g);
  return read_value(r, d, &g->value);
}

bool check_magic(uint32_t magic, uint16_t version, const char *what, std::string *error) {
  if (magic != XTAP_SNAP_MAGIC) {
    *error = std::string(what) + ": not an xtap snapshot (bad magic)";
    return false;
  }
  if (version != XTAP_SNAP_VERSION) {
    *error = std::string(what) + ": the module speaks snapshot format v" + std::to_string(version) +
             ", this runner reads v" + std::to_string(XTAP_SNAP_VERSION) +
             " (run it with the xtap-run of the xtap that built it)";
    return false;
  }
  return true;
}

}  // namespace

std::optional<SnapNames> parse_snapshot_names(const std::string &bytes, std::string *error) {
  Reader r(bytes.data(), bytes.size());
  xtap_snap_names h{};
  if (!r.sized(&h)) {
    *error = "snapshot_names: truncated header";
    return std::nullopt;
  }
  if (!check_magic(h.magic, h.version, "snapshot_names", error)) return std::nullopt;
  SnapNames names;
  names.max_entries = h.max_entries;
  for (uint32_t i = 0; i < h.nglobals && r.ok(); ++i) {
    const char *start = r.here();
    xtap_snap_global_desc d{};
    if (!r.sized(&d)) break;
    // The name ends the structure's d.size bytes.
    uint32_t size;
    std::memcpy(&size, start, sizeof(size));
    if (size < sizeof(d) || d.name_len > size - sizeof(d)) {
      *error = "snapshot_names: bad global description";
      return std::nullopt;
    }
    SnapGlobalDesc g;
    g.name.assign(start + size - d.name_len, d.name_len);
    g.kind = SnapKind(d.kind);
    g.value_type = SnapType(d.value_type);
    if (d.nkeys > sizeof(d.key_types)) {
      *error = "snapshot_names: too many keys";
      return std::nullopt;
    }
    for (int k = 0; k < d.nkeys; ++k) g.key_types.push_back(SnapType(d.key_types[k]));
    g.hist = d.hist, g.lo = d.lo, g.hi = d.hi, g.step = d.step, g.nbuckets = d.nbuckets;
    g.pct_bits = d.pct_bits, g.npct = d.npct;
    names.globals.push_back(std::move(g));
  }
  for (uint32_t i = 0; i < h.nprobes && r.ok(); ++i) {
    const char *start = r.here();
    xtap_snap_probe_desc d{};
    if (!r.sized(&d)) break;
    uint32_t size;
    std::memcpy(&size, start, sizeof(size));
    if (size < sizeof(d) || d.point_len > size - sizeof(d)) break;
    names.probes.emplace_back(start + size - d.point_len, d.point_len);
  }
  if (!r.ok() || names.globals.size() != h.nglobals || names.probes.size() != h.nprobes) {
    *error = "snapshot_names: truncated";
    return std::nullopt;
  }
  return names;
}

std::optional<Snapshot> parse_snapshot(const std::string &bytes, const SnapNames &names,
                                       std::string *error) {
  Reader r(bytes.data(), bytes.size());
  xtap_snap_hdr h{};
  if (!r.sized(&h)) {
    *error = "snapshot: truncated header";
    return std::nullopt;
  }
  if (!check_magic(h.magic, h.version, "snapshot", error)) return std::nullopt;
  if (h.total > bytes.size()) {
    *error =
        "snapshot: " + std::to_string(bytes.size()) + " of " + std::to_string(h.total) + " bytes";
    return std::nullopt;
  }
  Snapshot s;
  s.time_ns = h.time_ns;
  s.state = h.state;
  s.probes.resize(names.probes.size());
  s.globals.resize(names.globals.size());
  for (uint32_t i = 0; i < h.nrecords; ++i) {
    xtap_snap_rec rec{};
    if (!r.bytes(&rec, sizeof(rec)) || rec.size < sizeof(rec) ||
        rec.size - sizeof(rec) > r.left()) {
      *error = "snapshot: truncated record " + std::to_string(i);
      return std::nullopt;
    }
    Reader body(r.here(), rec.size - sizeof(rec));
    r.skip(rec.size - sizeof(rec));
    bool ok = true;
    if (rec.type == XTAP_SNAP_REC_SESSION) {
      xtap_snap_session ss{};
      ok = body.sized(&ss);
      s.session = {ss.hits,   ss.skipped,  ss.skipped_reentrant, ss.skipped_lock,
                   ss.errors, ss.warnings, ss.dropped_records,   ss.dropped_bytes};
    } else if (rec.type == XTAP_SNAP_REC_PROBE && rec.index < s.probes.size()) {
      xtap_snap_probe p{};
      ok = body.sized(&p);
      s.probes[rec.index] = {true, p.hits, p.cycles_sum, p.cycles_min, p.cycles_max};
    } else if (rec.type == XTAP_SNAP_REC_GLOBAL && rec.index < s.globals.size()) {
      ok = read_global(&body, names.globals[rec.index], rec.flags, &s.globals[rec.index]);
    }  // else: a newer module's record, stepped over
    if (!ok) {
      *error = "snapshot: malformed record " + std::to_string(i);
      return std::nullopt;
    }
  }
  return s;
}

std::optional<SnapNames> read_snapshot_names(const std::string &dir, std::string *error) {
  bool ok = false;
  std::string bytes = read_file(dir + "/snapshot_names", &ok);
  if (!ok) {
    *error = "cannot read " + dir + "/snapshot_names (a module built by an older xtap?)";
    return std::nullopt;
  }
  return parse_snapshot_names(bytes, error);
}

std::optional<Snapshot> read_snapshot(const std::string &dir, const SnapNames &names,
                                      std::string *error) {
  bool ok = false;
  std::string bytes = read_file(dir + "/snapshot", &ok);
  if (!ok) {
    *error = "cannot read " + dir + "/snapshot";
    return std::nullopt;
  }
  return parse_snapshot(bytes, names, error);
}

}  // namespace xtap::runner
