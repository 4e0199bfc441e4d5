// --monitor's data side (monitor/model): rates between snapshots, the
// reset baseline, sorting, and the globals' lines (top array entries).
#include <gtest/gtest.h>

#include "monitor/model.h"
#include "monitor/view.h"

namespace xtap::monitor {
namespace {

using runner::SnapKind;
using runner::SnapType;

runner::SnapNames names() {
  runner::SnapNames n;
  n.probes = {"timer.ms(100)", "kernel.function(\"vfs_read\")"};
  runner::SnapGlobalDesc ticks;
  ticks.name = "ticks";
  runner::SnapGlobalDesc reads;
  reads.name = "reads";
  reads.kind = SnapKind::Array;
  reads.key_types = {SnapType::String};
  n.globals = {ticks, reads};
  return n;
}

runner::Snapshot snap(uint64_t hits0, uint64_t hits1, int64_t ticks) {
  runner::Snapshot s;
  s.session.hits = hits0 + hits1;
  s.session.dropped_records = 2;
  s.probes = {{true, hits0, hits0 * 100, 50, 300}, {true, hits1, hits1 * 10, 5, 40}};
  s.globals.resize(2);
  s.globals[0].present = true;
  s.globals[0].value.num = ticks;
  auto &a = s.globals[1];
  a.present = true;
  a.total = 7;
  for (int i = 0; i < 7; i++) {
    runner::SnapEntry e;
    e.keys = {{0, "k" + std::to_string(i)}};
    e.value.num = i * 10;
    a.entries.push_back(e);
  }
  return s;
}

TEST(MonitorModel, RatesSortingAndReset) {
  Model m(names());
  EXPECT_FALSE(m.has_snapshot());
  m.update(snap(10, 100, 1), 5.0);
  auto rows = m.probes(SortKey::Hits);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].point, "kernel.function(\"vfs_read\")");
  EXPECT_EQ(rows[0].rate, 0);  // one snapshot: no rate yet
  m.update(snap(30, 110, 2), 7.0);
  rows = m.probes(SortKey::Rate);
  EXPECT_EQ(rows[0].point, "timer.ms(100)");
  EXPECT_DOUBLE_EQ(rows[0].rate, 10.0);  // 20 hits in 2 s
  EXPECT_EQ(rows[0].avg, 100u);
  EXPECT_EQ(rows[0].max, 300u);
  EXPECT_DOUBLE_EQ(m.totals().rate, 15.0);
  EXPECT_EQ(m.probes(SortKey::Name)[0].point, "kernel.function(\"vfs_read\")");
  m.reset();
  m.update(snap(33, 110, 3), 8.0);
  rows = m.probes(SortKey::Hits);
  EXPECT_EQ(rows[0].point, "timer.ms(100)");
  EXPECT_EQ(rows[0].hits, 3u);  // since the reset
  EXPECT_EQ(rows[1].hits, 0u);
  EXPECT_EQ(m.totals().hits, 3u);
  EXPECT_EQ(m.totals().lost_records, 0u);
}

TEST(MonitorModel, GlobalsShowTopEntries) {
  Model m(names());
  m.update(snap(1, 1, 42), 1.0);
  auto g = m.globals(3);
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g[0], "ticks = 42");
  EXPECT_EQ(g[1], "reads: 7 entries");
  EXPECT_EQ(g[2], "  reads[\"k6\"] = 60");
  EXPECT_EQ(g[4], "  reads[\"k4\"] = 40");
}

TEST(MonitorModel, Formats) {
  EXPECT_EQ(short_count(1234567), "1234567");
  EXPECT_EQ(short_count(12345678901ull), "12.3G");
  EXPECT_EQ(parse_interval(""), 1.0);
  EXPECT_EQ(parse_interval("0.5"), 0.5);
  EXPECT_FALSE(parse_interval("0"));
  EXPECT_FALSE(parse_interval("x"));
  EXPECT_EQ(next_sort_key(SortKey::Name), SortKey::Hits);
}

}  // namespace
}  // namespace xtap::monitor
