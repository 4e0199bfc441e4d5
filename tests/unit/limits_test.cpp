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

}  // namespace
}  // namespace xtap
