// A statistic's text in user space, as the module prints it: the
// histogram as print(@hist_log(s)) / print(@hist_linear(...)) draws it
// (runtime-kmod/stat_hist.c, stap's layout) and the percentiles as
// @percentile and print(@quantiles(s)) compute them (runtime-kmod/stat_pct.c),
// so that a merged statistic reads like one host's.
#pragma once

#include <cstdint>
#include <string>

#include "runner/snapshot.h"

namespace xtap::merge {

// "" when the statistic has no histogram or no values.
std::string hist_text(const runner::SnapGlobalDesc &d, const runner::SnapStat &s);

// The value of percentile p / d (0 <= p <= d, count > 0, a sketch present).
int64_t pct_value(const runner::SnapGlobalDesc &d, const runner::SnapStat &s, uint64_t p,
                  uint64_t den);

// print(@quantiles(s))'s line with its newline; "" without a sketch or values.
std::string quantiles_text(const runner::SnapGlobalDesc &d, const runner::SnapStat &s);

// The lower bound a histogram bucket's row shows (stap's _stp_bucket_to_val
// for @hist_log; lo + (i - 1) * step for @hist_linear's inner rows).
int64_t bucket_value(const runner::SnapGlobalDesc &d, int i);

}  // namespace xtap::merge
