// Encoding and decoding of the aggregates file (aggregates_file.h).
#include "runner/aggregates_file.h"

#include <cstdint>
#include <cstring>

#include "common/file_io.h"
#include "runner/snapshot.h"

namespace xtap::runner {

namespace {

constexpr char kMagic[] = "XTAPAGG\n";
constexpr size_t kMagicLen = 8;

void put_u32(std::string *out, uint32_t v) { out->append(reinterpret_cast<const char *>(&v), 4); }

void put_str(std::string *out, const std::string &s) {
  put_u32(out, static_cast<uint32_t>(s.size()));
  *out += s;
}

// Bounded reads over the file's bytes.
struct Cursor {
  const std::string &b;
  size_t at = 0;
  bool u32(uint32_t *v) {
    if (b.size() - at < 4) return false;
    std::memcpy(v, b.data() + at, 4);
    at += 4;
    return true;
  }
  bool str(std::string *s) {
    uint32_t n;
    if (!u32(&n) || b.size() - at < n) return false;
    s->assign(b, at, n);
    at += n;
    return true;
  }
};

}  // namespace

std::string encode_aggregates(const AggregatesFile &f) {
  std::string out(kMagic, kMagicLen);
  put_u32(&out, kAggregatesVersion);
  for (const std::string *s :
       {&f.module, &f.script, &f.host, &f.kernel, &f.time, &f.names, &f.snapshot})
    put_str(&out, *s);
  return out;
}

std::optional<AggregatesFile> decode_aggregates(const std::string &bytes, std::string *error) {
  if (bytes.size() < kMagicLen || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0) {
    *error = "not an xtap aggregates file (written by xtap-run --aggregates)";
    return std::nullopt;
  }
  Cursor c{bytes, kMagicLen};
  uint32_t version = 0;
  if (!c.u32(&version)) {
    *error = "truncated aggregates file";
    return std::nullopt;
  }
  if (version != kAggregatesVersion) {
    *error = "aggregates file format v" + std::to_string(version) + ", this xtap reads v" +
             std::to_string(kAggregatesVersion);
    return std::nullopt;
  }
  AggregatesFile f;
  for (std::string *s : {&f.module, &f.script, &f.host, &f.kernel, &f.time, &f.names, &f.snapshot})
    if (!c.str(s)) {
      *error = "truncated aggregates file";
      return std::nullopt;
    }
  return f;
}

bool read_module_aggregates(const std::string &dir, AggregatesFile *f, std::string *error) {
  bool ok = false;
  f->names = read_file(dir + "/snapshot_names", &ok);
  if (!ok) {
    *error = "cannot read " + dir + "/snapshot_names (a module built by an older xtap?)";
    return false;
  }
  f->snapshot = read_file(dir + "/snapshot", &ok);
  if (!ok) {
    *error = "cannot read " + dir + "/snapshot";
    return false;
  }
  auto names = parse_snapshot_names(f->names, error);
  return names && parse_snapshot(f->snapshot, *names, error);
}

}  // namespace xtap::runner
