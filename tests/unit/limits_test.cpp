// The session limits the translator emits against the ones the runtime
// shares with it (runtime-kmod/include/xtap/limits.h): one source of truth
// for the relay buffers' defaults and bounds.
#include <gtest/gtest.h>

#include <xtap/limits.h>

#include "codegen/module.h"

namespace xtap {
namespace {

TEST(Limits, RelayDefaultsAreTheSharedOnes) {
  Limits l;
  EXPECT_EQ(l.subbuf_size, XTAP_RELAY_DEFAULT_SUBBUF_SIZE);
  EXPECT_EQ(l.n_subbufs, XTAP_RELAY_DEFAULT_SUBBUFS);
  EXPECT_LE(l.subbuf_size * l.n_subbufs, XTAP_RELAY_MAX_BYTES_PER_CPU);
}

TEST(Limits, RelayBoundsAreTheSharedOnes) {
  Limits l;
  auto set = [&](const char *name, unsigned long long v) { return l.set(name, std::to_string(v)); };
  EXPECT_EQ(set("STP_BUFFER_SUBBUF_SIZE", XTAP_RELAY_MIN_SUBBUF_SIZE), "");
  EXPECT_NE(set("STP_BUFFER_SUBBUF_SIZE", XTAP_RELAY_MIN_SUBBUF_SIZE - 1), "");
  EXPECT_EQ(set("STP_BUFFER_SUBBUF_SIZE", XTAP_RELAY_MAX_SUBBUF_SIZE), "");
  EXPECT_NE(set("STP_BUFFER_SUBBUF_SIZE", XTAP_RELAY_MAX_SUBBUF_SIZE + 1ull), "");
  EXPECT_EQ(set("STP_BUFFER_SUBBUFS", XTAP_RELAY_MIN_SUBBUFS), "");
  EXPECT_NE(set("STP_BUFFER_SUBBUFS", XTAP_RELAY_MIN_SUBBUFS - 1), "");
  EXPECT_EQ(set("STP_BUFFER_SUBBUFS", XTAP_RELAY_MAX_SUBBUFS), "");
  EXPECT_NE(set("STP_BUFFER_SUBBUFS", XTAP_RELAY_MAX_SUBBUFS + 1), "");
}

TEST(Limits, OverloadGuardAsInStap) {
  Limits l;
  EXPECT_EQ(l.overload_interval, 1000000000u);
  EXPECT_EQ(l.overload_threshold, 500000000u);
  EXPECT_EQ(l.no_overload, 0u);
  EXPECT_EQ(l.set("STP_OVERLOAD_THRESHOLD", "1000"), "");
  EXPECT_EQ(l.overload_threshold, 1000u);
  EXPECT_NE(l.set("STP_OVERLOAD_INTERVAL", "10"), "");  // a window of a few cycles measures nothing
  EXPECT_NE(l.set("STP_OVERLOAD_THRESHOLD", "0"), "");  // -DSTP_NO_OVERLOAD says "off"
  EXPECT_EQ(l.set("STP_NO_OVERLOAD", "1"), "");
  EXPECT_EQ(l.no_overload, 1u);
  Limits lifted;
  lifted.lift_time_limits();  // --suppress-time-limits, as stap's, turns it off too
  EXPECT_EQ(lifted.no_overload, 1u);
}

TEST(Limits, OverloadSkipsUnlessStapsGuardIsAskedFor) {
  Limits l;
  EXPECT_TRUE(l.overload_skip());
  EXPECT_EQ(l.set("XTAP_OVERLOAD", "abort"), "");
  EXPECT_FALSE(l.overload_skip());
  EXPECT_NE(l.set("XTAP_OVERLOAD", "1"), "");
  // stap's command lines set its guard's knobs, with C suffixes: its guard.
  Limits stap;
  EXPECT_EQ(stap.set("STP_OVERLOAD_INTERVAL", "1000LL"), "");
  EXPECT_EQ(stap.overload_interval, 1000u);
  EXPECT_FALSE(stap.overload_skip());
  EXPECT_EQ(stap.set("XTAP_OVERLOAD", "skip"), "");
  EXPECT_TRUE(stap.overload_skip());
  EXPECT_NE(stap.set("STP_OVERLOAD_THRESHOLD", "LL"), "");
}

TEST(Limits, ProbeBudgetIsAShareOfTheWindow) {
  Limits l;
  EXPECT_EQ(l.budget_cycles(0), 0u);
  EXPECT_EQ(l.set("XTAP_PROBE_BUDGET", "10000000"), "");     // 10 ms a second: 1%
  EXPECT_EQ(l.budget_cycles(l.probe_budget_ns), 10000000u);  // of 10^9 cycles
  EXPECT_EQ(l.set("STP_OVERLOAD_INTERVAL", "20000000"), "");
  EXPECT_EQ(l.budget_cycles(l.probe_budget_ns), 200000u);
  EXPECT_EQ(l.budget_cycles(1), 1u);  // never 0, which would mean none
  EXPECT_NE(l.set("XTAP_PROBE_BUDGET", "0"), "");
  EXPECT_NE(l.set("XTAP_PROBE_BUDGET", "1000000001"), "");
}

}  // namespace
}  // namespace xtap
