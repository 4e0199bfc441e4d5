// Pass 2's regex check (translator/regex/), which runs the runtime's own
// compiler (runtime-kmod/regex_compile.c) in user space: every rejection
// path of the compiler, with the message and the offset pass 2 shows, the
// edges of the grammar, and the sizes of the programs it builds. Each
// rejection also has a pass-2 case under tests/lang/semko/regex_*.stp.
#include <gtest/gtest.h>

#include <xtap/limits.h>

#include <string>
#include <vector>

#include "regex/regex_check.h"

namespace xtap {
namespace {

struct Rejected {
  std::string pattern;
  std::string says;  // part of the message
  size_t offset;     // where pass 2 puts the caret
};

// One pattern per rejection path of regex_compile.c, in source order.
const std::vector<Rejected> kRejections = {
    {"[[:alpha", "'[:' without its ':]'", 1},
    {"[[:word:]]", "unknown character class '[:word:]' (known: alpha, alnum,", 1},
    {"[ab\\", "unterminated '['", 0},
    {"x[z-a]", "inverted range 'z-a'", 2},
    {"[^", "unterminated '['", 0},
    {"a{x}", "expected a number in '{m,n}'", 1},
    {"a{1001}", "repetition count too large (at most 1000)", 1},
    {"a{2x}", "expected ',' or '}' in '{m,n}'", 1},
    {"a{2", "unterminated '{'", 1},
    {"a{2,3x}", "expected '}' to end '{m,n}'", 1},
    {"a{3,2}", "repetition '{3,2}' with n < m", 1},
    {std::string(17, '(') + "a" + std::string(17, ')'),
     "parentheses nested too deeply (at most 16)", 16},
    {"(?=a)", "'(?' is supported only as '(?:...)'", 0},
    {"(ab", "unmatched '('", 0},
    {"ab\\", "trailing backslash", 2},
    {"a|*b", "nothing to repeat before '*'", 2},
    {"^*", "'*' cannot repeat the anchor '^'", 1},
    {"a$+", "'+' cannot repeat the anchor '$'", 2},
    {"a**?", "too many repetition operators in a row (at most 2", 3},
    {"ab)", "unmatched ')'", 2},
    {"(abc){1000}", "it compiles to 5003 instructions, at most 2048", 0},
};

TEST(RegexCheck, EachRejectionSaysWhatAndWhere) {
  for (const auto &r : kRejections) {
    SCOPED_TRACE(r.pattern);
    RegexCheck c = analyze_regex(r.pattern);
    EXPECT_NE(c.error.find(r.says), std::string::npos) << c.error;
    EXPECT_EQ(c.offset, r.offset) << c.error;
    EXPECT_EQ(c.instructions, 0u);
  }
}

// The compiler's pools of nodes and classes are sized from the pattern so
// that "regular expression too complex" from them cannot happen: the
// largest consumers per byte of pattern still fit.
TEST(RegexCheck, NodeAndClassPoolsCannotRunOut) {
  for (const std::string &re :
       {std::string(16, '(') + std::string(16, ')'), std::string("(|||)(|)"),
        std::string("[[:alpha:]][a][b]"), std::string("a?b?c?d?")}) {
    EXPECT_EQ(analyze_regex(re).error, "") << re;
  }
}

// Stacked operators once overflowed the kernel stack at session start
// (the compiler recursed once per operator); they are bounded now.
TEST(RegexCheck, StackedRepetitionsAreBounded) {
  std::string deep = "a";
  for (int i = 0; i < 3000; i++) deep += "{1}";
  EXPECT_NE(analyze_regex(deep).error, "");
  EXPECT_EQ(analyze_regex("a*?").error, "");
  EXPECT_EQ(analyze_regex("a{2}{3}").error, "");
  EXPECT_EQ(analyze_regex("((a*)*)*").error, "");
}

TEST(RegexCheck, TheEdgesOfTheGrammar) {
  const std::vector<std::string> accepted = {
      // empty branches and groups, a non-capturing group
      "", "a|", "|", "()", "(?:ab)+",
      // ']' as a member, '-' at either end, escapes, ranges ending in '[' or a class alias
      "[]]", "[^]a]", "[]-a]", "[a-]", "[-a]", "[\\]]", "[\\\\-z]", "[a-a]", "[A-[:alpha:]]",
      "[[:digit:][:alpha:]_]", "[[:d:]]", "[[:s:][:u:][:l:]]",
      // escaped specials, bounds, stray closing braces and brackets
      "\\.", "\\(", "a{0}", "a{0,}", "a{1000}", "a{2,1000}", "}", "]",
      // two operators, anchors inside a repeated group
      ".*?", "^$", "(^a|b$)*"};
  for (const std::string &re : accepted) EXPECT_EQ(analyze_regex(re).error, "") << re;
  const std::vector<std::string> refused = {"x{}", "a{,", "(a){2047}"};
  for (const std::string &re : refused) EXPECT_NE(analyze_regex(re).error, "") << re;
  EXPECT_EQ(analyze_regex(std::string(16, '(') + "a" + std::string(16, ')')).error, "");
}

TEST(RegexCheck, ProgramSizes) {
  // SAVE 0, a class, then {1,3}: one copy and two optional ones (SPLIT +
  // class each), SAVE 1, MATCH.
  EXPECT_EQ(analyze_regex("[a-z]{1,3}").instructions, 3u + 1 + 2 * 2);
  // At the size limit exactly: SAVE 0 + 2045 x 'a' + SAVE 1 + MATCH.
  EXPECT_EQ(analyze_regex("a{1000}b{1000}c{45}").instructions, unsigned(XTAP_RE_MAX_INST));
  EXPECT_NE(analyze_regex("a{1000}b{1000}c{46}").error, "");
}

TEST(RegexCheck, GroupsPastTheLimitParseButDoNotCapture) {
  std::string re;
  for (int i = 0; i < 40; i++) re += "(a)";
  RegexCheck r = analyze_regex(re);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.groups, 40);
  // 31 groups capture (two SAVEs each), the other 9 do not.
  EXPECT_EQ(r.instructions, 3u + 40 + 2 * (XTAP_RE_MAX_GROUPS - 1));
}

TEST(RegexCheck, ANulEndsThePatternForTheRuntime) {
  RegexCheck r = analyze_regex(std::string("ab\0c", 4));
  EXPECT_NE(r.error.find("NUL character"), std::string::npos);
  EXPECT_EQ(r.offset, 2u);
}

}  // namespace
}  // namespace xtap
