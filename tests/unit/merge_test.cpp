// Fleet merges (cli/merge): aggregates files built as xtap-run writes
// them, merged; the merge of two halves of some data must equal the dump of
// all of it, exactly, for @hist_log, @hist_linear and the percentile sketch.
#include <gtest/gtest.h>
#include "snapshot_bytes.h"

#include <cstring>
#include <random>

#include <xtap/abi.h>

#include "merge/merge.h"
#include "merge/merge_print.h"
#include "merge/stat_text.h"
#include "runner/aggregates_file.h"

namespace xtap::merge {
namespace {

using runner::AggregatesFile;

using test::Bytes;

constexpr int kPctBits = 4;
constexpr uint32_t kPctSide = (65u - kPctBits) << kPctBits;
constexpr int64_t kLo = 0, kHi = 100, kStep = 10;
constexpr uint32_t kLinearBuckets = (kHi - kLo) / kStep + 3;

// A model of one statistic as the module keeps it (runtime-kmod/stat.c).
struct Stat {
  int hist;  // 1 linear, 2 log
  int64_t count = 0, sum = 0, min = 0, max = 0;
  std::vector<int64_t> buckets, pct;
  explicit Stat(int h) : hist(h), buckets(h == 1 ? kLinearBuckets : 128), pct(2 * kPctSide) {}

  static int fls64(uint64_t u) { return u ? 64 - __builtin_clzll(u) : 0; }
  void add(int64_t v) {
    if (!count) min = max = v;
    min = std::min(min, v), max = std::max(max, v);
    count++, sum += v;
    if (hist == 2) {
      buckets[v == 0 ? 64 : v > 0 ? 64 + fls64(v) : 64 - fls64(0 - uint64_t(v))]++;
    } else {
      int64_t off = v - kLo;
      uint64_t b = off < 0 ? 0 : uint64_t(off) / kStep + 1;
      buckets[std::min<uint64_t>(b, kLinearBuckets - 1)]++;
    }
    uint64_t u = v < 0 ? 0 - uint64_t(v) : uint64_t(v);
    int shift = std::max(0, fls64(u) - kPctBits - 1);
    uint32_t m = (uint32_t(shift) << kPctBits) + uint32_t(u >> shift);
    pct[v < 0 ? kPctSide - 1 - m : kPctSide + m]++;
  }
  std::string record() const {
    Bytes o;
    xtap_snap_stat st{};
    st.size = sizeof(st), st.nbuckets = uint32_t(buckets.size()), st.npct = uint32_t(pct.size());
    st.count = count, st.sum = sum, st.min = min, st.max = max;
    o.raw(st);
    for (auto b : buckets) o.s64(b);
    for (auto b : pct) o.s64(b);
    return o.b;
  }
};

xtap_snap_global_desc desc(uint8_t kind, uint8_t type, const std::string &name) {
  xtap_snap_global_desc d{};
  d.size = uint32_t(sizeof(d) + name.size());
  d.kind = kind, d.value_type = type, d.name_len = uint32_t(name.size());
  return d;
}

xtap_snap_global_desc stat_desc(uint8_t kind, int hist, const std::string &name) {
  auto d = desc(kind, 3, name);
  d.hist = uint8_t(hist), d.pct_bits = kPctBits, d.npct = 2 * kPctSide;
  d.nbuckets = hist == 1 ? kLinearBuckets : 128;
  if (hist == 1) d.lo = kLo, d.hi = kHi, d.step = kStep;
  return d;
}

// The globals of every test dump: n (number), s (string), lg (@hist_log
// with a sketch), ln (@hist_linear with a sketch), a[string] (numbers),
// sa[number] (@hist_log statistics).
std::string names_table(const std::string &extra_global = "") {
  Bytes o;
  uint32_t n = extra_global.empty() ? 6 : 7;
  xtap_snap_names h{sizeof(h), XTAP_SNAP_MAGIC, XTAP_SNAP_VERSION, 0, n, 0, 1000};
  o.raw(h);
  o.raw(desc(XTAP_SNAP_SCALAR, 1, "n")).b += "n";
  o.raw(desc(XTAP_SNAP_SCALAR, 2, "s")).b += "s";
  o.raw(stat_desc(XTAP_SNAP_STAT, 2, "lg")).b += "lg";
  o.raw(stat_desc(XTAP_SNAP_STAT, 1, "ln")).b += "ln";
  auto a = desc(XTAP_SNAP_ARRAY, 1, "a");
  a.nkeys = 1, a.key_types[0] = 2;
  o.raw(a).b += "a";
  auto sa = stat_desc(XTAP_SNAP_ARRAY, 2, "sa");
  sa.nkeys = 1, sa.key_types[0] = 1;
  o.raw(sa).b += "sa";
  if (!extra_global.empty()) o.raw(desc(XTAP_SNAP_SCALAR, 1, extra_global)).b += extra_global;
  return o.b;
}

void rec(Bytes *o, uint32_t index, const std::string &payload, uint16_t flags = 0) {
  xtap_snap_rec r{uint32_t(sizeof(r) + payload.size()), XTAP_SNAP_REC_GLOBAL, flags, index};
  o->raw(r).b += payload;
}

// One host's data: values fed to lg, ln and sa[v % 3].
struct Host {
  int64_t n = 0;
  std::string s;
  std::vector<std::pair<std::string, int64_t>> a;
  std::vector<int64_t> values;
  uint16_t version = XTAP_SNAP_VERSION;
};

std::string snapshot(const Host &h) {
  Stat lg(2), ln(1);
  std::map<int64_t, Stat> sa;
  for (int64_t v : h.values) {
    lg.add(v), ln.add(v);
    sa.try_emplace(v % 3, 2).first->second.add(v);
  }
  Bytes body;
  rec(&body, 0, Bytes().s64(h.n).b);
  rec(&body, 1, Bytes().str(h.s).b);
  rec(&body, 2, lg.record());
  rec(&body, 3, ln.record());
  Bytes arr;
  arr.raw(xtap_snap_array{sizeof(xtap_snap_array), uint32_t(h.a.size()), uint32_t(h.a.size()), 0});
  for (auto &[k, v] : h.a) arr.str(k).s64(v);
  rec(&body, 4, arr.b);
  Bytes sarr;
  sarr.raw(xtap_snap_array{sizeof(xtap_snap_array), uint32_t(sa.size()), uint32_t(sa.size()), 0});
  for (auto &[k, st] : sa) sarr.s64(k).b += st.record();
  rec(&body, 5, sarr.b);
  xtap_snap_hdr hd{};
  hd.size = sizeof(hd), hd.magic = XTAP_SNAP_MAGIC, hd.version = h.version;
  hd.abi = XTAP_ABI_VERSION, hd.nrecords = 6, hd.total = sizeof(hd) + body.b.size();
  return Bytes().raw(hd).b + body.b;
}

HostDump host_dump(const Host &h, const std::string &label, const std::string &module = "xtap_1",
                   const std::string &names = names_table()) {
  AggregatesFile f{module, "t.stp", label, "6.1.0", "now", names, snapshot(h)};
  std::string err;
  auto d = decode_dump(runner::encode_aggregates(f), label + ".agg", &err);
  EXPECT_TRUE(d) << err;
  return d ? *d : HostDump{};
}

const MergedGlobal &global(const Merged &m, const std::string &name) {
  for (const auto &g : m.globals)
    if (g.desc.name == name) return g;
  throw std::runtime_error("no global " + name);
}

// Deterministic data with negatives, zeros, big values and a long tail.
std::vector<int64_t> data(size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> exp(1e-4);
  std::vector<int64_t> v;
  for (size_t i = 0; i < n; ++i) {
    int64_t x = int64_t(exp(rng));
    v.push_back(i % 17 == 0 ? -x : i % 29 == 0 ? 0 : i % 101 == 0 ? x * 1000000 : x);
  }
  return v;
}

void expect_same_stat(const runner::SnapGlobalDesc &d, const runner::SnapStat &a,
                      const runner::SnapStat &b) {
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.sum, b.sum);
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  EXPECT_EQ(a.buckets, b.buckets);
  EXPECT_EQ(a.pct, b.pct);
  EXPECT_EQ(hist_text(d, a), hist_text(d, b));
  EXPECT_EQ(quantiles_text(d, a), quantiles_text(d, b));
  for (uint64_t p = 0; p <= 1000; p += 7)
    EXPECT_EQ(pct_value(d, a, p, 1000), pct_value(d, b, p, 1000)) << p;
}

TEST(FleetMerge, TwoHalvesEqualTheWhole) {
  std::vector<int64_t> all = data(200000, 7);
  Host h1, h2, whole;
  h1.values.assign(all.begin(), all.begin() + 77777);
  h2.values.assign(all.begin() + 77777, all.end());
  whole.values = all;
  std::string err;
  auto halves = merge_dumps({host_dump(h1, "web1"), host_dump(h2, "web2")}, &err);
  auto one = merge_dumps({host_dump(whole, "all")}, &err);
  ASSERT_TRUE(halves && one) << err;
  for (const char *name : {"lg", "ln"}) {
    SCOPED_TRACE(name);
    const auto &g = global(*halves, name);
    expect_same_stat(g.desc, g.scalar.value.stat, global(*one, name).scalar.value.stat);
    EXPECT_EQ(g.scalar.value.stat.count, 200000);
  }
  const auto &sa = global(*halves, "sa"), &sa1 = global(*one, "sa");
  ASSERT_EQ(sa.entries.size(), sa1.entries.size());
  for (size_t i = 0; i < sa.entries.size(); ++i) {
    EXPECT_EQ(sa.entries[i].keys[0].num, sa1.entries[i].keys[0].num);
    expect_same_stat(sa.desc, sa.entries[i].value.stat, sa1.entries[i].value.stat);
  }
  PrintOptions po;
  EXPECT_EQ(merged_text(*halves, po), merged_text(*one, po));
}

TEST(FleetMerge, NumbersAddStringsStayPerHost) {
  Host h1, h2;
  h1.n = 3, h2.n = 5, h1.s = h2.s = "same";
  h1.a = {{"read", 2}, {"write", 1}};
  h2.a = {{"write", 9}, {"open", 4}};
  std::string err;
  auto m = merge_dumps({host_dump(h1, "web1"), host_dump(h2, "web2")}, &err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(global(*m, "n").scalar.value.num, 8);
  EXPECT_FALSE(global(*m, "s").scalar.strings_differ);
  const auto &a = global(*m, "a");
  ASSERT_EQ(a.entries.size(), 3u);  // by value, largest first
  EXPECT_EQ(a.entries[0].keys[0].str, "write");
  EXPECT_EQ(a.entries[0].value.num, 10);
  EXPECT_EQ(a.entries[1].keys[0].str, "open");
  EXPECT_EQ(a.entries[2].keys[0].str, "read");
  PrintOptions po;
  std::string text = merged_text(*m, po);
  EXPECT_NE(text.find("n=8\ns=\"same\"\na[\"write\"]=10\na[\"open\"]=4\na[\"read\"]=2\n"),
            std::string::npos)
      << text;
  po.per_host = true;
  text = merged_text(*m, po);
  EXPECT_NE(text.find("n=8\n  [web1] 3 (37.5%)\n  [web2] 5 (62.5%)\n"), std::string::npos) << text;

  h2.s = "other";
  m = merge_dumps({host_dump(h1, "web1"), host_dump(h2, "web2")}, &err);
  ASSERT_TRUE(m) << err;
  EXPECT_TRUE(global(*m, "s").scalar.strings_differ);
  text = merged_text(*m, {});
  EXPECT_NE(text.find("[web1] s=\"same\"\n[web2] s=\"other\"\n"), std::string::npos) << text;
  std::string json = merged_json(*m, {});
  EXPECT_NE(json.find("{\"name\":\"s\",\"type\":\"string\",\"hosts\":{\"web1\":\"same\","
                      "\"web2\":\"other\"}}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\":\"n\",\"type\":\"number\",\"value\":8}"), std::string::npos);
}

TEST(FleetMerge, HistogramAndQuantilesText) {
  Host h;
  h.values = {1, 2, 2, 3, 8, 8, 8, 100};
  std::string err;
  auto m = merge_dumps({host_dump(h, "web1")}, &err);
  ASSERT_TRUE(m) << err;
  const auto &lg = global(*m, "lg");
  // As the module prints @hist_log (stap's layout): two empty rows either side.
  EXPECT_EQ(hist_text(lg.desc, lg.scalar.value.stat),
            "value |-------------------------------------------------- count\n"
            "    0 |                                                   0\n"
            "    1 |@                                                  1\n"
            "    2 |@@@                                                3\n"
            "    4 |                                                   0\n"
            "    8 |@@@                                                3\n"
            "   16 |                                                   0\n"
            "   32 |                                                   0\n"
            "   64 |@                                                  1\n"
            "  128 |                                                   0\n"
            "  256 |                                                   0\n"
            "\n");
  // Values below 2^(k+1) have a bucket each: exact.
  EXPECT_EQ(quantiles_text(lg.desc, lg.scalar.value.stat),
            "count=8 min=1 p50=3 p90=100 p99=100 p99.9=100 max=100\n");
  std::string text = merged_text(*m, {});
  EXPECT_NE(text.find("lg @count=8 @min=1 @max=100 @sum=132 @avg=16\nvalue |"), std::string::npos)
      << text;
}

TEST(FleetMerge, RefusesDumpsOfOtherScripts) {
  Host h;
  std::string err;
  EXPECT_FALSE(merge_dumps({host_dump(h, "a"), host_dump(h, "b", "xtap_2")}, &err));
  EXPECT_NE(err.find("holds module xtap_2"), std::string::npos) << err;
  EXPECT_FALSE(
      merge_dumps({host_dump(h, "a"), host_dump(h, "b", "xtap_1", names_table("extra"))}, &err));
  EXPECT_NE(err.find("their globals differ"), std::string::npos) << err;
  EXPECT_FALSE(merge_dumps({}, &err));
}

TEST(FleetMerge, SaysWhichSnapshotVersionAModuleSpoke) {
  Host h;
  h.version = 1;
  AggregatesFile f{"xtap_1", "t.stp", "old", "6.1.0", "now", names_table(), snapshot(h)};
  std::string err;
  EXPECT_FALSE(decode_dump(runner::encode_aggregates(f), "old.agg", &err));
  EXPECT_NE(
      err.find("old.agg: snapshot: the module speaks snapshot format v1, this runner reads v" +
               std::to_string(XTAP_SNAP_VERSION)),
      std::string::npos)
      << err;
  EXPECT_FALSE(decode_dump("not one", "x", &err));
  EXPECT_NE(err.find("not an xtap aggregates file"), std::string::npos) << err;
  std::string truncated = runner::encode_aggregates(f);
  truncated.resize(truncated.size() - 3);
  EXPECT_FALSE(decode_dump(truncated, "x", &err));
  EXPECT_NE(err.find("truncated"), std::string::npos) << err;
}

TEST(FleetMerge, AggregatesFileRoundTrip) {
  AggregatesFile f{"m", "s.stp", "h", "k", "t", std::string("\0n", 2), "snap"};
  std::string err;
  auto g = runner::decode_aggregates(runner::encode_aggregates(f), &err);
  ASSERT_TRUE(g) << err;
  EXPECT_EQ(g->module, "m");
  EXPECT_EQ(g->host, "h");
  EXPECT_EQ(g->names, std::string("\0n", 2));
  EXPECT_EQ(g->snapshot, "snap");
}

TEST(FleetMerge, MinMaxAndEmptyStatistics) {
  runner::SnapStat a, b, empty;
  a.count = 2, a.sum = 10, a.min = 3, a.max = 7, a.buckets = {1, 1};
  b.count = 1, b.sum = -4, b.min = -4, b.max = -4, b.buckets = {0, 1};
  empty.buckets = {0, 0};
  runner::SnapStat m = empty;
  ASSERT_TRUE(merge_stat(&m, a));
  ASSERT_TRUE(merge_stat(&m, empty));
  ASSERT_TRUE(merge_stat(&m, b));
  EXPECT_EQ(m.count, 3);
  EXPECT_EQ(m.sum, 6);
  EXPECT_EQ(m.min, -4);
  EXPECT_EQ(m.max, 7);
  EXPECT_EQ(m.buckets, (std::vector<int64_t>{1, 2}));
  runner::SnapStat other;
  other.buckets = {0};
  EXPECT_FALSE(merge_stat(&m, other));
}

}  // namespace
}  // namespace xtap::merge
