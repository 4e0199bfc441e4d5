// User-space twins of runtime-kmod/stat_hist.c and stat_pct.c (stat_text.h).
// They must draw and compute exactly as the module does: the VM test
// compares a merged histogram with one a module printed.
#include "merge/stat_text.h"

#include <algorithm>
#include <climits>
#include <cstdarg>
#include <cstdio>

namespace xtap::merge {

namespace {

constexpr int kHistWidth = 50;   // stap's HIST_WIDTH
constexpr int kLogBucket0 = 64;  // the log bucket of 0
constexpr int kHistLinear = 1, kHistLog = 2;

int digits(int64_t v) {
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  int n = v < 0 ? 1 : 0;
  if (v == 0) return 1;
  for (; u; u /= 10) n++;
  return n;
}

// Is row i empty along with its neighbours within stap's elision distance?
bool elide(const std::vector<int64_t> &h, int i, int lo, int hi) {
  int reach = std::min<int>(2, static_cast<int>(h.size()));
  for (int k = std::max(lo, i - reach); k <= std::min(hi, i + reach); k++)
    if (h[k]) return false;
  return true;
}

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof(buf), f, ap);
  va_end(ap);
  return buf;
}

}  // namespace

int64_t bucket_value(const runner::SnapGlobalDesc &d, int i) {
  if (d.hist == kHistLinear) return d.lo + static_cast<int64_t>(i - 1) * d.step;
  if (i == kLogBucket0) return 0;
  if (i < kLogBucket0) return INT64_MIN >> i;
  return int64_t{1} << (i - kLogBucket0 - 1);
}

std::string hist_text(const runner::SnapGlobalDesc &d, const runner::SnapStat &s) {
  const std::vector<int64_t> &h = s.buckets;
  bool linear = d.hist == kHistLinear;
  int n = static_cast<int>(h.size()), lo = -1, hi = 0;
  if ((d.hist != kHistLinear && d.hist != kHistLog) || s.count == 0 || n == 0) return "";
  int64_t valmax = 0;
  for (int i = 0; i < n; i++) {
    if (h[i] > 0 && lo == -1) lo = i;
    if (h[i] > 0) hi = i;
    valmax = std::max(valmax, h[i]);
  }
  if (lo == -1) lo = 0;  // no counts at all (a sum of negative counts cannot happen)
  for (int i = 0; i < 2; i++) {
    if (linear ? lo > 0 : lo > 0 && lo != kLogBucket0) lo--;
    if (hi < n - 1) hi++;
  }
  bool under = false, over = false;
  if (linear) {
    if (lo == 0 && h[0] == 0) lo++;
    if (hi == n - 1 && h[hi] == 0) hi--;
    under = lo == 0;
    over = hi == n - 1;
  }
  int64_t scale = valmax <= kHistWidth ? 1 : (valmax + kHistWidth - 1) / kHistWidth;
  int cnt_space = digits(valmax), val_space;
  if (linear) val_space = std::max(digits(d.lo) + under, digits(d.lo + d.step * hi) + over);
  else val_space = std::max(digits(bucket_value(d, hi)), digits(bucket_value(d, lo)));
  val_space = std::max(val_space, 5);
  std::string bar(kHistWidth, '@'), rule(kHistWidth, '-');
  std::string out = fmt("%*s |%s count\n", val_space, "value", rule.c_str());
  bool eliding = false;
  for (int i = lo; i <= hi; i++) {
    if (elide(h, i, lo, hi)) {
      eliding = true;
      continue;
    }
    if (eliding) out += fmt("%*s ~\n", val_space, "");
    eliding = false;
    const char *prefix = "";
    int64_t val = bucket_value(d, i);
    if (linear && i == 0) val = d.lo, prefix = "<";
    else if (linear && i == n - 1) val = d.lo + static_cast<int64_t>(i - 2) * d.step, prefix = ">";
    int b = static_cast<int>(h[i] / scale);
    out += fmt("%*s%lld |%.*s%*lld\n", val_space - digits(val), prefix, static_cast<long long>(val),
               b, bar.c_str(), kHistWidth - b + 1 + cnt_space, static_cast<long long>(h[i]));
  }
  return out + "\n";
}

namespace {

// The sketch's buckets for one sign: magnitudes up to 2^64 - 1 (stat.h).
uint32_t pct_side(uint32_t k) { return (65u - k) << k; }

// The middle of a magnitude bucket's range (stat_pct.c).
uint64_t mag_value(uint32_t idx, uint32_t k) {
  int shift = static_cast<int>(idx >> k) - 1;
  if (shift <= 0) return idx;
  uint64_t lower = static_cast<uint64_t>(idx - (static_cast<uint32_t>(shift) << k)) << shift;
  return lower + (uint64_t{1} << (shift - 1));
}

int64_t sketch_bucket_value(uint32_t b, uint32_t k) {
  if (b >= pct_side(k)) return static_cast<int64_t>(mag_value(b - pct_side(k), k));
  uint64_t mag = mag_value(pct_side(k) - 1 - b, k);
  return mag > static_cast<uint64_t>(INT64_MAX) ? INT64_MIN : -static_cast<int64_t>(mag);
}

// ceil(n * p / d), at least 1.
uint64_t pct_rank(uint64_t n, uint64_t p, uint64_t d) {
  unsigned __int128 x = static_cast<unsigned __int128>(n) * p;
  uint64_t q = static_cast<uint64_t>(x / d);
  if (x % d) q++;
  return q ? q : 1;
}

}  // namespace

int64_t pct_value(const runner::SnapGlobalDesc &d, const runner::SnapStat &s, uint64_t p,
                  uint64_t den) {
  uint64_t r = pct_rank(static_cast<uint64_t>(s.count), p, den);
  if (r <= 1) return s.min;
  if (r >= static_cast<uint64_t>(s.count)) return s.max;
  uint64_t seen = 0;
  int64_t v = s.max;
  for (uint32_t b = 0; b < s.pct.size(); b++) {
    seen += static_cast<uint64_t>(s.pct[b]);
    if (seen >= r) {
      v = sketch_bucket_value(b, static_cast<uint32_t>(d.pct_bits));
      break;
    }
  }
  return std::clamp(v, s.min, s.max);
}

std::string quantiles_text(const runner::SnapGlobalDesc &d, const runner::SnapStat &s) {
  if (s.pct.empty() || s.count == 0) return "";
  static const struct {
    const char *name;
    uint64_t p, d;
  } q[] = {{"p50", 50, 100}, {"p90", 90, 100}, {"p99", 99, 100}, {"p99.9", 999, 1000}};
  std::string out =
      fmt("count=%lld min=%lld", static_cast<long long>(s.count), static_cast<long long>(s.min));
  for (const auto &x : q)
    out += fmt(" %s=%lld", x.name, static_cast<long long>(pct_value(d, s, x.p, x.d)));
  return out + fmt(" max=%lld\n", static_cast<long long>(s.max));
}

}  // namespace xtap::merge
