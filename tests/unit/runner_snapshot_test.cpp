// The snapshot decoders (runner/snapshot) on dumps built by hand as the
// module writes them (runtime-kmod/snapshot.c, abi.h), and the Prometheus
// text made of them (runner/prometheus), escaping included.
#include <gtest/gtest.h>
#include "snapshot_bytes.h"

#include <unistd.h>

#include <cstring>

#include <xtap/abi.h>

#include "runner/prometheus.h"
#include "runner/snapshot.h"

namespace xtap::runner {
namespace {

using test::Bytes;

xtap_snap_global_desc desc(uint8_t kind, uint8_t type, const std::string &name) {
  xtap_snap_global_desc d{};
  d.size = uint32_t(sizeof(d) + name.size());
  d.kind = kind;
  d.value_type = type;
  d.name_len = uint32_t(name.size());
  return d;
}

// Globals: n (number), s (string), a[string, number] (numbers),
// h (@hist_log statistic); one timed probe.
std::string names_table() {
  Bytes o;
  xtap_snap_names h{sizeof(h), XTAP_SNAP_MAGIC, XTAP_SNAP_VERSION, 0, 4, 1, 1000};
  o.raw(h);
  o.raw(desc(XTAP_SNAP_SCALAR, 1, "n")).b += "n";
  o.raw(desc(XTAP_SNAP_SCALAR, 2, "s")).b += "s";
  auto a = desc(XTAP_SNAP_ARRAY, 1, "a");
  a.nkeys = 2, a.key_types[0] = 2, a.key_types[1] = 1;
  o.raw(a).b += "a";
  auto st = desc(XTAP_SNAP_STAT, 3, "h");
  st.hist = 2, st.nbuckets = 128;
  o.raw(st).b += "h";
  xtap_snap_probe_desc p{uint32_t(sizeof(p) + 11), 11};
  o.raw(p).b += "timer.s(1)x";
  return o.b;
}

// A record: header, then the payload.
void rec(Bytes *o, uint16_t type, uint32_t index, const std::string &payload, uint16_t flags = 0) {
  xtap_snap_rec r{uint32_t(sizeof(r) + payload.size()), type, flags, index};
  o->raw(r).b += payload;
}

std::string dump(uint32_t total_entries = 2) {
  Bytes body;
  xtap_snap_session ss{};
  ss.size = sizeof(ss), ss.hits = 12, ss.errors = 1, ss.dropped_records = 3;
  rec(&body, XTAP_SNAP_REC_SESSION, 0, Bytes().raw(ss).b);
  xtap_snap_probe p{};
  p.size = sizeof(p), p.hits = 5, p.cycles_sum = 500, p.cycles_max = 200;
  rec(&body, XTAP_SNAP_REC_PROBE, 0, Bytes().raw(p).b);
  rec(&body, XTAP_SNAP_REC_GLOBAL, 0, Bytes().s64(-42).b);
  rec(&body, XTAP_SNAP_REC_GLOBAL, 1, Bytes().str("a\"b\\c\nd").b);
  Bytes arr;
  arr.raw(xtap_snap_array{sizeof(xtap_snap_array), 2, total_entries, 0});
  arr.str("read").s64(1).s64(7).str("wr\xff").s64(2).s64(9);
  rec(&body, XTAP_SNAP_REC_GLOBAL, 2, arr.b, total_entries > 2 ? XTAP_SNAP_F_TRUNCATED : 0);
  Bytes hist;
  xtap_snap_stat st{sizeof(st), 128, 4, 11, 0, 8, 0, 0};
  hist.raw(st);
  for (int i = 0; i < 128; ++i) hist.s64(i == 64 ? 1 : i == 66 ? 2 : i == 68 ? 1 : 0);
  rec(&body, XTAP_SNAP_REC_GLOBAL, 3, hist.b);
  rec(&body, 99, 0, "a newer record type");  // stepped over
  Bytes o;
  xtap_snap_hdr h{};
  h.size = sizeof(h), h.magic = XTAP_SNAP_MAGIC, h.version = XTAP_SNAP_VERSION;
  h.abi = XTAP_ABI_VERSION, h.nrecords = 7, h.state = 2;
  h.total = sizeof(h) + body.b.size();
  o.raw(h).b += body.b;
  return o.b;
}

TEST(RunnerSnapshot, NamesTable) {
  std::string err;
  auto n = parse_snapshot_names(names_table(), &err);
  ASSERT_TRUE(n) << err;
  ASSERT_EQ(n->globals.size(), 4u);
  EXPECT_EQ(n->globals[2].name, "a");
  EXPECT_EQ(n->globals[2].kind, SnapKind::Array);
  ASSERT_EQ(n->globals[2].key_types.size(), 2u);
  EXPECT_EQ(n->globals[2].key_types[0], SnapType::String);
  EXPECT_EQ(n->globals[3].hist, 2);
  EXPECT_EQ(n->probes, std::vector<std::string>{"timer.s(1)x"});
  EXPECT_EQ(n->max_entries, 1000u);
}

TEST(RunnerSnapshot, Dump) {
  std::string err;
  auto n = parse_snapshot_names(names_table(), &err);
  ASSERT_TRUE(n) << err;
  auto s = parse_snapshot(dump(), *n, &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->session.hits, 12u);
  EXPECT_EQ(s->session.dropped_records, 3u);
  EXPECT_EQ(s->probes[0].hits, 5u);
  EXPECT_EQ(s->globals[0].value.num, -42);
  EXPECT_EQ(s->globals[1].value.str, "a\"b\\c\nd");
  ASSERT_EQ(s->globals[2].entries.size(), 2u);
  EXPECT_EQ(s->globals[2].entries[1].keys[0].str, "wr\xff");
  EXPECT_EQ(s->globals[2].entries[1].value.num, 9);
  EXPECT_EQ(s->globals[3].value.stat.count, 4);
  EXPECT_EQ(s->globals[3].value.stat.buckets[66], 2);
}

TEST(RunnerSnapshot, RefusesShortOrForeignBytes) {
  std::string err;
  auto n = parse_snapshot_names(names_table(), &err);
  ASSERT_TRUE(n);
  std::string d = dump();
  for (size_t cut : {size_t(0), size_t(10), d.size() / 2, d.size() - 1}) {
    EXPECT_FALSE(parse_snapshot(d.substr(0, cut), *n, &err)) << cut;
    EXPECT_NE(err, "");
  }
  std::string bad = d;
  bad[4] ^= 1;  // magic
  EXPECT_FALSE(parse_snapshot(bad, *n, &err));
  EXPECT_NE(err.find("magic"), std::string::npos);
  EXPECT_FALSE(parse_snapshot_names(names_table().substr(0, 40), &err));
}

TEST(RunnerPrometheus, LabelEscaping) {
  EXPECT_EQ(prometheus_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(prometheus_label_value("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(prometheus_label_value("x\xff"), "x\xef\xbf\xbd");
  EXPECT_EQ(prometheus_label_value("\xc0\x80"), "\xef\xbf\xbd\xef\xbf\xbd");  // overlong
}

TEST(RunnerPrometheus, Page) {
  std::string err;
  auto n = parse_snapshot_names(names_table(), &err);
  auto s = parse_snapshot(dump(5), *n, &err);
  ASSERT_TRUE(s) << err;
  std::string page = prometheus_text(*n, *s, 1);
  auto has = [&](const std::string &line) {
    EXPECT_NE(page.find("\n" + line + "\n"), std::string::npos) << line << "\n" << page;
  };
  has("xtap_hits_total 12");
  has("xtap_errors_total 1");
  has("xtap_probe_hits_total{probe=\"timer.s(1)x\"} 5");
  has("# TYPE xtap_global_n gauge");
  has("xtap_global_n -42");
  has("xtap_global_s{value=\"a\\\"b\\\\c\\nd\"} 1");
  has("xtap_global_a{key0=\"read\",key1=\"1\"} 7");
  EXPECT_EQ(page.find("key0=\"wr"), std::string::npos);  // past the cap of 1
  has("xtap_global_omitted_entries{global=\"a\"} 4");    // 5 held, 1 shown
  has("# TYPE xtap_global_h histogram");
  has("xtap_global_h_bucket{le=\"0\"} 1");
  has("xtap_global_h_bucket{le=\"1\"} 1");
  has("xtap_global_h_bucket{le=\"3\"} 3");
  has("xtap_global_h_bucket{le=\"15\"} 4");
  has("xtap_global_h_bucket{le=\"+Inf\"} 4");
  has("xtap_global_h_sum 11");
  has("xtap_global_h_count 4");
  EXPECT_EQ(page.find("le=\"31\""), std::string::npos);  // above the highest bucket used
}

TEST(RunnerPrometheus, ListenAddress) {
  std::string err;
  EXPECT_LT(prometheus_listen("localhost:9100", &err), 0);
  EXPECT_NE(err.find("numeric"), std::string::npos);
  EXPECT_LT(prometheus_listen("127.0.0.1", &err), 0);
  EXPECT_LT(prometheus_listen("127.0.0.1:99999", &err), 0);
  int fd = prometheus_listen("127.0.0.1:0", &err);
  EXPECT_GE(fd, 0) << err;
  if (fd >= 0) close(fd);
}

std::string fixture(const std::string &name) {
  std::string path = std::string(XTAP_SOURCE_DIR) + "/tests/unit/snapshot_fixture/" + name;
  std::string cmd = "base64 -d " + path;
  std::string out;
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

// What a real module wrote (snapshot_fixture/README): the globals of
// script.stp after its begin probe, in declaration order.
TEST(RunnerSnapshot, RealModuleDump) {
  std::string err;
  auto n = parse_snapshot_names(fixture("snapshot_names.b64"), &err);
  ASSERT_TRUE(n) << err;
  ASSERT_EQ(n->globals.size(), 5u);
  EXPECT_EQ(n->globals[0].name, "count");
  EXPECT_EQ(n->globals[1].value_type, SnapType::String);
  EXPECT_EQ(n->globals[2].kind, SnapKind::Array);
  EXPECT_EQ(n->globals[3].hist, 2);
  EXPECT_EQ(n->globals[3].nbuckets, 128u);
  EXPECT_EQ(n->globals[4].hist, 1);
  EXPECT_EQ(n->globals[4].step, 2);
  auto s = parse_snapshot(fixture("snapshot.b64"), *n, &err);
  ASSERT_TRUE(s) << err;
  EXPECT_EQ(s->state, 2u);  // running
  EXPECT_EQ(s->globals[0].value.num, 3);
  EXPECT_EQ(s->globals[1].value.str, "fixture");
  ASSERT_EQ(s->globals[2].entries.size(), 2u);
  EXPECT_EQ(s->globals[2].entries[1].keys[0].str, "write");
  EXPECT_EQ(s->globals[2].entries[1].keys[1].num, 2);
  EXPECT_EQ(s->globals[2].entries[1].value.num, 20);
  const SnapStat &lat = s->globals[3].value.stat;  // 10 20 30 40 50
  EXPECT_EQ(lat.count, 5);
  EXPECT_EQ(lat.sum, 150);
  EXPECT_EQ(lat.min, 10);
  EXPECT_EQ(lat.max, 50);
  EXPECT_EQ(lat.buckets[64 + 4], 1);  // 8..15
  EXPECT_EQ(lat.buckets[64 + 6], 2);  // 32..63
  // v2: the sketch of a statistic whose percentiles the script asks for.
  EXPECT_GT(n->globals[3].pct_bits, 0);
  EXPECT_EQ(lat.pct.size(), n->globals[3].npct);
  int64_t in_sketch = 0;
  for (int64_t b : lat.pct) in_sketch += b;
  EXPECT_EQ(in_sketch, 5);
  EXPECT_TRUE(s->globals[4].entries[0].value.stat.pct.empty());
  ASSERT_EQ(s->globals[4].entries.size(), 1u);
  EXPECT_EQ(s->globals[4].entries[0].value.stat.sum, 15);
  std::string page = prometheus_text(*n, *s, 1000);
  EXPECT_NE(page.find("\nxtap_global_ops{key0=\"write\",key1=\"2\"} 20\n"), std::string::npos);
  EXPECT_NE(page.find("\nxtap_global_lat_bucket{le=\"63\"} 5\n"), std::string::npos);
  EXPECT_NE(page.find("\nxtap_global_bycpu_bucket{key0=\"c0\",le=\"1\"} 1\n"), std::string::npos);
}

}  // namespace
}  // namespace xtap::runner
