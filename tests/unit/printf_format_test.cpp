// The runner's formatter of binary printf records (common/printf_format)
// against the kernel's vsnprintf semantics that the in-kernel text path has.
// The kernel's lib/vsprintf.c is not on the build machines, so: the cases
// where the kernel differs from C are pinned by hand (from lib/vsprintf.c's
// number() and string()), and random cases where the two agree are checked
// against glibc's snprintf. The runtime test printf/binary_matches_kernel
// compares the formatter with the kernel itself, case by case, in the VM.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "common/printf_format.h"

namespace xtap {
namespace {

std::string fmt(const std::string &f, std::vector<uint64_t> longs,
                std::vector<std::string> strs = {}) {
  Format parsed = parse_format(f);
  EXPECT_EQ(parsed.error, "") << f;
  std::string out;
  std::vector<std::string_view> views(strs.begin(), strs.end());
  format_kernel(parsed, FormatArgs{std::move(longs), std::move(views)}, &out);
  return out;
}

TEST(PrintfFormat, KernelSemanticsWhereCDiffers) {
  EXPECT_EQ(fmt("%.0d", {0}), "0");   // a precision is a minimum digit count
  EXPECT_EQ(fmt("%#x", {0}), "0x0");  // the prefix even for 0
  EXPECT_EQ(fmt("%#X", {255}), "0XFF");
  EXPECT_EQ(fmt("%#o", {0}), "0");
  EXPECT_EQ(fmt("%#.5o", {8}), "000010");     // "0" and then the precision
  EXPECT_EQ(fmt("%08.3d", {5}), "00000005");  // '0' still pads with a precision
  EXPECT_EQ(fmt("%-08d|", {5}), "5       |");
  EXPECT_EQ(fmt("%08x", {0xab}), "000000ab");
  EXPECT_EQ(fmt("%#08x", {0xab}), "0x0000ab");
  EXPECT_EQ(fmt("%+d % d %+u", {5, 5, 5}), "+5  5 5");
  EXPECT_EQ(fmt("%d", {uint64_t(INT64_MIN)}), "-9223372036854775808");
  EXPECT_EQ(fmt("%u %x", {uint64_t(-1), uint64_t(-1)}), "18446744073709551615 ffffffffffffffff");
  EXPECT_EQ(fmt("%05s|%-5s|%.2s", {}, {"ab", "ab", "abc"}), "   ab|ab   |ab");
  EXPECT_EQ(fmt("%3c|%-3c|%03c", {'a', 'b', 'c'}), "  a|b  |  c");
  EXPECT_EQ(fmt("%c", {0}), std::string(1, '\0'));  // vsnprintf writes the NUL
  EXPECT_EQ(fmt("%p %10p %-10p|", {0x1234, 0x1234, 0x1234}), "0x1234     0x1234 0x1234    |");
  EXPECT_EQ(fmt("%.3p", {0x1}), "0x1");  // kernel_format() drops a %p precision
}

TEST(PrintfFormat, StarWidthsClampLikeXtapFmtWidth) {
  EXPECT_EQ(fmt("%*d|", {uint64_t(-5), 7}), "7|");  // negative: 0, not left-justified
  EXPECT_EQ(fmt("%*d|", {4, 7}), "   7|");
  EXPECT_EQ(fmt("%.*s|", {2}, {"abcdef"}), "ab|");
  EXPECT_EQ(fmt("%*.*d|", {6, 4, 7}), "  0007|");
  EXPECT_EQ(fmt("%*s", {40000}, {"x"}).size(), 32767u);
}

TEST(PrintfFormat, RawBytesAndLiterals) {
  EXPECT_EQ(fmt("%b", {0x0102030405060708}), std::string("\x08\x07\x06\x05\x04\x03\x02\x01", 8));
  EXPECT_EQ(fmt("%2b", {0x4142}), "BA");
  // stap's %b: the precision is the byte count, the width then the field's.
  EXPECT_EQ(fmt("%.2b|", {0x4142}), "BA|");
  EXPECT_EQ(fmt("%4.1b|", {0x41}), "   A|");
  EXPECT_EQ(fmt("%-4.1b|", {0x41}), "A   |");
  EXPECT_EQ(fmt("%1.2b|", {0x4142}), "BA|");
  EXPECT_EQ(fmt("%*b|", {1, 0x4142}), "B|");
  EXPECT_EQ(fmt("%*.*b|", {3, 1, 0x41}), "  A|");
  EXPECT_EQ(fmt("%*b|", {3, 0x41}).size(), 9u);  // not 1, 2, 4 or 8: 8 bytes
  EXPECT_FALSE(parse_format("%*b").error.size());
  EXPECT_FALSE(parse_format("%3.4b").error.size());
  EXPECT_TRUE(parse_format("%3b").error.size());
  EXPECT_TRUE(parse_format("%8.3b").error.size());
  EXPECT_EQ(fmt("100%% %s\n", {}, {"done"}), "100% done\n");
  EXPECT_EQ(fmt("%s", {}, {std::string("a\0b", 3)}), "a");  // the kernel stops at a NUL
}

TEST(PrintfFormat, DecodesItems) {
  Format f = parse_format("%d %s %*x");
  EXPECT_EQ(f.arg_kinds(), "lsll");
  std::string rec;
  auto u64 = [&](uint64_t v) { rec.append(reinterpret_cast<const char *>(&v), 8); };
  auto str = [&](const std::string &s) {
    uint32_t n = uint32_t(s.size());
    rec.append(reinterpret_cast<const char *>(&n), 4);
    rec += s;
  };
  u64(uint64_t(-3));
  str("hey");
  u64(6);
  u64(255);
  const char *p = rec.data();
  std::string out;
  {
    FormatSink sink(&out);
    ASSERT_TRUE(format_item(f, &p, rec.data() + rec.size(), &sink));
  }
  EXPECT_EQ(p, rec.data() + rec.size());
  EXPECT_EQ(out, "-3 hey     ff");
  for (size_t cut = 0; cut < rec.size(); ++cut) {  // every truncation is refused, nothing written
    p = rec.data();
    std::string part = "x";
    {
      FormatSink sink(&part);
      EXPECT_FALSE(format_item(f, &p, rec.data() + cut, &sink)) << cut;
    }
    EXPECT_EQ(p, rec.data()) << cut;
    EXPECT_EQ(part, "x") << cut;
  }
}

// An item formatted where it lies gives what the same values give through
// FormatArgs, for random formats of several conversions ('*' included).
TEST(PrintfFormat, ItemsAgreeWithArgs) {
  std::mt19937_64 rng(11);
  const std::string convs = "diuxXoscpb";
  for (int n = 0; n < 20000; ++n) {
    std::string f;
    for (int k = 1 + int(rng() % 4); k > 0; --k) {
      char conv = convs[rng() % convs.size()];
      f += "<%";
      if (rng() % 3 == 0) f += "-";
      if (conv == 'b') f += std::string(1, "1248"[rng() % 4]);  // its only widths
      else if (rng() % 4 == 0) f += "*";
      else if (rng() % 2) f += std::to_string(rng() % 12);
      if (conv != 'c' && conv != 'b' && rng() % 4 == 0) f += ".*";
      f += conv;
    }
    Format parsed = parse_format(f);
    ASSERT_EQ(parsed.error, "") << f;
    FormatArgs args;
    std::vector<std::string> strs;
    std::string rec;
    for (char k : parsed.arg_kinds()) {
      if (k == 'l') {
        uint64_t v = rng() % 3 ? rng() % 100000 : rng();
        args.longs.push_back(v);
        rec.append(reinterpret_cast<const char *>(&v), 8);
      } else {
        strs.emplace_back(rng() % 20, char('a' + rng() % 26));
        uint32_t len = uint32_t(strs.back().size());
        rec.append(reinterpret_cast<const char *>(&len), 4);
        rec += strs.back();
      }
    }
    for (const auto &s : strs) args.strs.emplace_back(s);
    std::string want, got;
    format_kernel(parsed, args, &want);
    const char *p = rec.data();
    {
      FormatSink sink(&got);
      ASSERT_TRUE(format_item(parsed, &p, rec.data() + rec.size(), &sink)) << f;
    }
    ASSERT_EQ(p, rec.data() + rec.size()) << f;
    ASSERT_EQ(got, want) << f;
  }
}

// Random conversions in the part of printf where the kernel and C agree:
// no '#', no precision of 0, no '0' beside a precision or on %s/%c.
TEST(PrintfFormat, RandomCasesAgreeWithC) {
  std::mt19937_64 rng(10);
  const char convs[] = "diuxXosc";
  for (int n = 0; n < 100000; ++n) {
    char conv = convs[rng() % 8];
    std::string flags;
    for (char fl : std::string("-+ 0"))
      if (rng() % 3 == 0) flags += fl;
    std::string width = rng() % 2 ? std::to_string(rng() % 25) : "";
    std::string prec = rng() % 3 == 0 ? std::to_string(1 + rng() % 22) : "";
    if (!prec.empty() || conv == 's' || conv == 'c')
      flags.erase(std::remove(flags.begin(), flags.end(), '0'), flags.end());
    if (!width.empty() && width[0] == '0') width.clear();  // "0" would read as a flag
    std::string f =
        "[%" + flags + width + (prec.empty() || conv == 'c' ? "" : "." + prec) + conv + "]";
    uint64_t v = rng();
    switch (rng() % 4) {
      case 0: v %= 1000; break;
      case 1: v = uint64_t(-int64_t(v % 100000)); break;
      default: break;
    }
    std::string s(rng() % 30, 'a' + char(rng() % 26));
    char want[512];
    std::string cfmt = f;
    if (conv != 's' && conv != 'c') cfmt.insert(cfmt.size() - 2, "ll");
    if (conv == 's') snprintf(want, sizeof want, cfmt.c_str(), s.c_str());
    else if (conv == 'c') v = 'A' + v % 26, snprintf(want, sizeof want, cfmt.c_str(), int(v));
    else snprintf(want, sizeof want, cfmt.c_str(), (unsigned long long)v);
    std::string got = conv == 's' ? fmt(f, {}, {s}) : fmt(f, {v});
    ASSERT_EQ(got, want) << f << " value " << v;
  }
}

}  // namespace
}  // namespace xtap
