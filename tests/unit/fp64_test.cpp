// The runtime's soft-float (runtime-kmod/fp64.c, fp64_decimal.c, compiled
// for user space with runtime-kmod/userspace/) against glibc and the FPU: every
// operation on random operands of every kind (normal, subnormal, zero,
// infinite, NaN, near overflow) must give the hardware's bits, the
// conversions glibc's strtod and "%.*f". NaNs compare as NaNs (the default
// NaN is stap's, not x86's).
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

// runtime-kmod/include/xtap/fp64.h, with user-space types
extern "C" {
uint64_t xtap_fp64_add(uint64_t a, uint64_t b);
uint64_t xtap_fp64_sub(uint64_t a, uint64_t b);
uint64_t xtap_fp64_mul(uint64_t a, uint64_t b);
uint64_t xtap_fp64_div(uint64_t a, uint64_t b);
uint64_t xtap_fp64_rem(uint64_t a, uint64_t b);
uint64_t xtap_fp64_sqrt(uint64_t a);
int xtap_fp64_eq(uint64_t a, uint64_t b);
int xtap_fp64_le(uint64_t a, uint64_t b);
int xtap_fp64_lt(uint64_t a, uint64_t b);
uint64_t xtap_fp64_from_s64(int64_t v);
uint64_t xtap_fp64_from_fp32(uint32_t f);
int64_t xtap_fp64_to_s64(uint64_t a, int mode);
char *xtap_fp64_to_string(char *dst, size_t size, uint64_t a, int64_t precision);
bool xtap_fp64_from_string(const char *s, uint64_t *out);
}

constexpr uint64_t XTAP_FP64_DEFAULT_NAN = 0x7ff8000000000000ULL;

namespace {

uint64_t bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

double dbl(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

// Operands of every kind, weighted towards the interesting ones.
class Operands {
 public:
  explicit Operands(uint64_t seed) : rng_(seed) {}

  uint64_t next() {
    switch (rng_() % 10) {
      case 0:  // any bit pattern
        return rng_();
      case 1:  // subnormal
        return (rng_() & ((1ULL << 52) - 1)) | (rng_() & (1ULL << 63));
      case 2: {  // special
        static const uint64_t specials[] = {0,
                                            1ULL << 63,
                                            0x7ff0000000000000ULL,
                                            0xfff0000000000000ULL,
                                            0x7ff8000000000000ULL,
                                            0x7ff4000000000001ULL,
                                            0x0010000000000000ULL,
                                            0x7fefffffffffffffULL,
                                            0x3ff0000000000000ULL,
                                            0x0000000000000001ULL};
        return specials[rng_() % (sizeof specials / sizeof specials[0])];
      }
      case 3:  // near the edges of the exponent range
        return (rng_() & 0x800fffffffffffffULL) |
               ((uint64_t)(rng_() % 4 == 0 ? rng_() % 60 : 2046 - rng_() % 60) << 52);
      case 4:  // small integers
        return bits((double)((int64_t)(rng_() % 2001) - 1000));
      case 5:  // short significands: ties and exact results
        return (rng_() & 0xfff0000000000000ULL & ~(0x400ULL << 52)) | ((rng_() % 64) << 46) |
               ((uint64_t)(1023 + rng_() % 40 - 20) << 52);
      default:  // moderate magnitudes
        return (rng_() & 0x800fffffffffffffULL) |
               ((uint64_t)(1023 + (int)(rng_() % 200) - 100) << 52);
    }
  }

  std::mt19937_64 &rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

void expect_same(uint64_t got, double want, const char *op, uint64_t a, uint64_t b) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(dbl(got)))
        << op << std::hex << " a=" << a << " b=" << b << " got=" << got;
    return;
  }
  EXPECT_EQ(got, bits(want)) << op << std::hex << " a=" << a << " b=" << b << " want=" << bits(want)
                             << " (" << want << ")";
}

TEST(Fp64, ArithmeticMatchesTheFpu) {
  Operands ops(1);
  for (int i = 0; i < 300000; i++) {
    uint64_t a = ops.next(), b = ops.next();
    volatile double x = dbl(a), y = dbl(b);
    expect_same(xtap_fp64_add(a, b), x + y, "add", a, b);
    expect_same(xtap_fp64_sub(a, b), x - y, "sub", a, b);
    expect_same(xtap_fp64_mul(a, b), x * y, "mul", a, b);
    expect_same(xtap_fp64_div(a, b), x / y, "div", a, b);
    // IEEE: a zero remainder has x's sign (glibc's remainder() sometimes gives -0)
    double r = std::remainder(x, y);
    expect_same(xtap_fp64_rem(a, b), r == 0 ? std::copysign(0.0, x) : r, "rem", a, b);
    expect_same(xtap_fp64_sqrt(a), std::sqrt(x), "sqrt", a, 0);
    EXPECT_EQ(xtap_fp64_eq(a, b), x == y) << std::hex << a << " " << b;
    EXPECT_EQ(xtap_fp64_le(a, b), x <= y) << std::hex << a << " " << b;
    EXPECT_EQ(xtap_fp64_lt(a, b), x < y) << std::hex << a << " " << b;
    if (HasFailure()) break;
  }
}

TEST(Fp64, SignsOfZeroAndNanPropagation) {
  const uint64_t pz = 0, nz = 1ULL << 63, one = bits(1.0);
  EXPECT_EQ(xtap_fp64_add(nz, nz), nz);
  EXPECT_EQ(xtap_fp64_add(nz, pz), pz);
  EXPECT_EQ(xtap_fp64_sub(one, one), pz);
  EXPECT_EQ(xtap_fp64_sqrt(nz), nz);
  EXPECT_EQ(xtap_fp64_rem(bits(-4.0), bits(2.0)), nz);
  EXPECT_EQ(xtap_fp64_sqrt(bits(-1.0)), XTAP_FP64_DEFAULT_NAN);
  EXPECT_EQ(xtap_fp64_add(0x7ff4000000000001ULL, one), 0x7ffc000000000001ULL);  // quieted
  EXPECT_EQ(xtap_fp64_mul(one, 0xfff8000000000002ULL), 0xfff8000000000002ULL);
  EXPECT_EQ(xtap_fp64_div(pz, pz), XTAP_FP64_DEFAULT_NAN);
}

TEST(Fp64, ConversionsFromIntegersAndFloats) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 200000; i++) {
    int64_t v = (int64_t)rng() >> (rng() % 64);
    ASSERT_EQ(xtap_fp64_from_s64(v), bits((double)v)) << v;
    uint32_t f = (uint32_t)rng();
    if (i % 4 == 0) f &= 0x807fffff;  // subnormal floats
    float ff;
    std::memcpy(&ff, &f, sizeof ff);
    volatile float vf = ff;
    ASSERT_EQ(xtap_fp64_from_fp32(f), bits((double)vf)) << std::hex << f;
  }
  EXPECT_EQ(xtap_fp64_from_s64(INT64_MIN), bits(-9223372036854775808.0));
  EXPECT_EQ(xtap_fp64_from_s64(INT64_MAX), bits(9223372036854775808.0));
}

TEST(Fp64, ToIntegerInEachRoundingMode) {
  Operands ops(3);
  for (int i = 0; i < 200000; i++) {
    uint64_t a = ops.next();
    double x = dbl(a);
    if (std::isnan(x) || std::fabs(x) >= 9.2e18) continue;
    ASSERT_EQ(xtap_fp64_to_s64(a, 0), (int64_t)std::nearbyint(x)) << x;
    ASSERT_EQ(xtap_fp64_to_s64(a, 1), (int64_t)std::trunc(x)) << x;
    ASSERT_EQ(xtap_fp64_to_s64(a, 2), (int64_t)std::floor(x)) << x;
    ASSERT_EQ(xtap_fp64_to_s64(a, 3), (int64_t)std::ceil(x)) << x;
    ASSERT_EQ(xtap_fp64_to_s64(a, 4), (int64_t)std::round(x)) << x;
    int64_t t = (int64_t)std::trunc(x), mag = t < 0 ? -t : t;
    if (x != std::trunc(x)) mag |= 1;  // to odd: an inexact magnitude made odd
    ASSERT_EQ(xtap_fp64_to_s64(a, 6), x < 0 ? -mag : mag) << x;
  }
  EXPECT_EQ(xtap_fp64_to_s64(bits(2.5), 0), 2);
  EXPECT_EQ(xtap_fp64_to_s64(bits(-2.5), 6), -3);
  EXPECT_EQ(xtap_fp64_to_s64(bits(-3.5), 6), -3);
  EXPECT_EQ(xtap_fp64_to_s64(bits(1e300), 0), INT64_MAX);
  EXPECT_EQ(xtap_fp64_to_s64(bits(-1e300), 0), INT64_MIN);
  EXPECT_EQ(xtap_fp64_to_s64(bits(-9223372036854775808.0), 0), INT64_MIN);
  EXPECT_EQ(xtap_fp64_to_s64(bits(9223372036854775808.0), 0), INT64_MAX);
  EXPECT_EQ(xtap_fp64_to_s64(0x7ff8000000000000ULL, 0), 0);
}

std::string to_string(uint64_t a, int precision) {
  char buf[2048];
  xtap_fp64_to_string(buf, sizeof buf, a, precision);
  return buf;
}

TEST(Fp64, ToStringIsGlibcsFixedFormat) {
  Operands ops(4);
  char want[2048];
  for (int i = 0; i < 100000; i++) {
    uint64_t a = ops.next();
    int precision = i % 10 == 0 ? (int)(ops.rng()() % 1100) : (int)(ops.rng()() % 25);
    std::snprintf(want, sizeof want, "%.*f", precision, dbl(a));
    if (std::strlen(want) >= sizeof want - 1) continue;
    ASSERT_EQ(to_string(a, precision), want)
        << std::hex << a << std::dec << " precision " << precision;
  }
  EXPECT_EQ(to_string(bits(0.5), 0), "0");
  EXPECT_EQ(to_string(bits(1.5), 0), "2");
  EXPECT_EQ(to_string(bits(-0.0001), 2), "-0.00");
  EXPECT_EQ(to_string(bits(3.14159), 5), "3.14159");
  EXPECT_EQ(to_string(bits(9223372036854775807.0), 0), "9223372036854775808");
  EXPECT_EQ(to_string(bits(1.0), -3), "1");
  char small[6];
  xtap_fp64_to_string(small, sizeof small, bits(123.456), 3);
  EXPECT_STREQ(small, "123.4");  // cut to the buffer
}

uint64_t parse(const std::string &s, bool *ok = nullptr) {
  uint64_t out = 0;
  bool r = xtap_fp64_from_string(s.c_str(), &out);
  if (ok) *ok = r;
  return out;
}

void expect_parse(const std::string &s) {
  bool ok = false;
  uint64_t got = parse(s, &ok);
  ASSERT_TRUE(ok) << s;
  ASSERT_EQ(got, bits(std::strtod(s.c_str(), nullptr))) << s;
}

TEST(Fp64, FromStringIsCorrectlyRounded) {
  Operands ops(5);
  auto &rng = ops.rng();
  char buf[4096];
  for (int i = 0; i < 100000; i++) {
    double x = dbl(ops.next());
    if (!std::isfinite(x)) continue;
    std::snprintf(buf, sizeof buf, "%.*g", 1 + (int)(rng() % 20), x);
    expect_parse(buf);
    std::snprintf(buf, sizeof buf, "%.*e", (int)(rng() % 30), x);
    expect_parse(buf);
    // random digits with a random point and exponent
    std::string s = rng() % 2 ? "-" : "";
    int n = 1 + (int)(rng() % 40);
    for (int k = 0; k < n; k++) s += (char)('0' + rng() % 10);
    if (rng() % 2) s.insert(s.size() - rng() % n, ".");
    if (rng() % 2) s += "e" + std::to_string((int)(rng() % 700) - 350);
    expect_parse(s);
  }
}

// Exactly halfway between two doubles, and a hair above: the tie must go
// to the even one, a digit far past the 800 kept must break it upwards.
TEST(Fp64, FromStringTiesAndLongInputs) {
  Operands ops(6);
  char buf[4096];
  int done = 0;
  for (int i = 0; done < 3000 && i < 100000; i++) {
    uint64_t a = ops.next() & ~(1ULL << 63);
    double x = dbl(a);
    if (!std::isfinite(x) || a >= 0x7fe0000000000000ULL) continue;
    long double mid = ((long double)x + (long double)std::nextafter(x, INFINITY)) / 2;
    std::snprintf(buf, sizeof buf, "%.1100Lf", mid);
    std::string s = buf;
    expect_parse(s);
    expect_parse(s + "000000001");
    std::string longer = s;
    while (longer.size() < 1200) longer += "0";
    expect_parse(longer + "1");
    done++;
  }
  EXPECT_GT(done, 1000);
}

TEST(Fp64, FromStringSyntax) {
  bool ok;
  EXPECT_EQ(parse("1e400", &ok), 0x7ff0000000000000ULL);
  EXPECT_EQ(parse("-1e-400", &ok), 1ULL << 63);
  EXPECT_EQ(parse("inf"), 0x7ff0000000000000ULL);
  EXPECT_EQ(parse("-Infinity"), 0xfff0000000000000ULL);
  EXPECT_TRUE(std::isnan(dbl(parse("nan"))));
  EXPECT_EQ(parse(".5"), bits(0.5));
  EXPECT_EQ(parse("5."), bits(5.0));
  EXPECT_EQ(parse("+0012.50e+1"), bits(125.0));
  for (const char *bad :
       {"", "-", ".", "e5", "1e", "1e+", "deadbeef", "1.2.3", "12abc", " 1", "1 ", "infx"}) {
    parse(bad, &ok);
    EXPECT_FALSE(ok) << bad;
  }
}

}  // namespace
