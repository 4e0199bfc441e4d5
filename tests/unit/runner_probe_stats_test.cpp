// xtap-run's reading of the module's per-probe loss messages (PROBE_STATS)
// and the summary it writes from them, text and JSON.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <xtap/abi.h>

#include "runner/probe_stats.h"

namespace xtap::runner {
namespace {

Message stats_message(const xtap_probe_stats &st, const std::string &names) {
  Message m;
  m.type = XTAP_MSG_PROBE_STATS;
  m.payload.assign(reinterpret_cast<const char *>(&st), sizeof(st));
  m.payload += names;
  return m;
}

TEST(RunnerProbeStats, ReadsCountersAndNames) {
  xtap_probe_stats st{};
  st.size = sizeof(st);
  st.index = 3;
  st.budget_ns = 2000000;
  st.skipped_budget = 1418;
  st.dropped_records = 7;
  st.dropped_bytes = 700;
  ProbeStats p;
  ASSERT_TRUE(
      parse_probe_stats(stats_message(st, std::string("timer.profile\0t.stp:2:7\0", 24)), &p));
  EXPECT_EQ(p.index, 3u);
  EXPECT_EQ(p.skipped_budget, 1418u);
  EXPECT_EQ(p.point, "timer.profile");
  EXPECT_EQ(p.location, "t.stp:2:7");
  EXPECT_EQ(probe_stats_text({p}),
            "WARNING: probe timer.profile (t.stp:2:7): 1418 runs skipped over its budget "
            "(2000000 ns/s per CPU) and 7 output records (700 bytes) dropped\n");
  EXPECT_EQ(probe_stats_json({p}),
            "[{\"point\":\"timer.profile\",\"location\":\"t.stp:2:7\",\"budget_ns\":2000000,"
            "\"skipped_budget\":1418,\"skipped_overload\":0,\"skipped_reentrant\":0,"
            "\"skipped_lock\":0,\"dropped_records\":7,\"dropped_bytes\":700}]");
}

// A newer module's larger structure: the names follow its own size.
TEST(RunnerProbeStats, StepsOverFieldsItDoesNotKnow) {
  xtap_probe_stats st{};
  st.size = sizeof(st) + 8;
  st.skipped_lock = 2;
  ProbeStats p;
  ASSERT_TRUE(parse_probe_stats(
      stats_message(st, std::string(8, '\x7f') + std::string("begin\0x.stp:1:7\0", 16)), &p));
  EXPECT_EQ(p.point, "begin");
  EXPECT_EQ(p.location, "x.stp:1:7");
  EXPECT_EQ(probe_stats_text({p}),
            "WARNING: probe begin (x.stp:1:7): 2 runs skipped for a global lock timeout\n");
}

TEST(RunnerProbeStats, RefusesATruncatedMessageAndNamesNothingLost) {
  Message m;
  m.payload = "abc";
  ProbeStats p;
  EXPECT_FALSE(parse_probe_stats(m, &p));
  EXPECT_EQ(probe_stats_text({ProbeStats{}}), "");
  EXPECT_EQ(probe_stats_json({}), "[]");
}

}  // namespace
}  // namespace xtap::runner
