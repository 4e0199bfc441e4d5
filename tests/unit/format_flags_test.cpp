// kernel_format() drops the flags the kernel's vsnprintf ignores (so that
// GCC's -Wformat has nothing to say of the generated printf calls, a
// finding of the generative fuzzer): the output must stay what the kernel
// printed with the flags as written. The runner's formatter
// (common/printf_format, pinned to lib/vsprintf.c by printf_format_test)
// stands in for the kernel.
#include <gtest/gtest.h>

#include <random>

#include "common/printf_format.h"
#include "format/format.h"

namespace xtap {
namespace {

std::string kernel_out(const std::string &f, uint64_t v, const std::string &s) {
  Format parsed = parse_format(f);
  EXPECT_EQ(parsed.error, "") << f;
  std::string out;
  std::vector<std::string_view> strs;
  std::vector<uint64_t> longs;
  for (const auto &p : parsed.pieces) {
    if (p.literal) continue;
    if (p.conv == 's') strs.push_back(s);
    else longs.push_back(v);
  }
  format_kernel(parsed, FormatArgs{std::move(longs), std::move(strs)}, &out);
  return out;
}

TEST(FormatFlags, DroppedFlagsPrintTheSame) {
  std::mt19937_64 rng(26);
  const char *flags[] = {"",   "-",  "+",  " ",  "#",  "0",  "+ ", " +",
                         "-0", "0-", "#0", "+0", " 0", "++", "00", "-+ #0"};
  const char convs[] = {'d', 'i', 'u', 'x', 'X', 'o', 'c', 's', 'p'};
  const uint64_t values[] = {0, 1, 7, 255, uint64_t(-1), uint64_t(-300), 123456789};
  for (int i = 0; i < 20000; ++i) {
    std::string f = "%";
    f += flags[rng() % std::size(flags)];
    if (rng() % 2) f += std::to_string(rng() % 12);
    if (rng() % 2) f += "." + std::to_string(rng() % 8);
    char conv = convs[rng() % std::size(convs)];
    f += conv;
    Format parsed = parse_format(f);
    ASSERT_EQ(parsed.error, "") << f;
    std::string rewritten = kernel_format(parsed);
    uint64_t v = values[rng() % std::size(values)];
    if (conv == 'c') v &= 0x7f;
    EXPECT_EQ(kernel_out(f, v, "ab"), kernel_out(rewritten, v, "ab"))
        << f << " -> " << rewritten << " of " << int64_t(v);
  }
}

TEST(FormatFlags, WhatGccWarnsAboutIsGone) {
  auto k = [](const std::string &f) { return kernel_format(parse_format(f)); };
  EXPECT_EQ(k("%+ 5u"), "%5llu");
  EXPECT_EQ(k("% +d"), "%+lld");
  EXPECT_EQ(k("%05s|%#c|%+X"), "%5s|%c|%llX");
  EXPECT_EQ(k("%-05d"), "%-5lld");
  EXPECT_EQ(k("%08.3x"), "%08llx");
  EXPECT_EQ(k("%#05.4x"), "%#5.4llx");
  EXPECT_EQ(k("%+08.3d"), "%+08lld");
  EXPECT_EQ(k("%06.5d"), "%06lld");
  EXPECT_EQ(k("%05.5d"), "%5.5lld");
  EXPECT_EQ(k("%0.3u"), "%.3llu");
  EXPECT_EQ(k("%3.2c"), "%3c");
  EXPECT_EQ(k("%##x"), "%#llx");
}

}  // namespace
}  // namespace xtap
