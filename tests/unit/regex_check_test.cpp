// The translator's regex checker (pass 2) against the runtime's compiler
// (runtime-kmod/regex_compile.c, compiled for user space with
// unit/kernel_shim/): every pattern one accepts the other must accept with
// the same program size, and every pattern one rejects the other must
// reject. Each rejection path of the compiler has a case here and a pass-2
// case under tests/lang/semko/regex_*.stp.
#include <gtest/gtest.h>

#include <xtap/limits.h>

#include <random>
#include <string>
#include <vector>

#include "regex/regex_check.h"

extern "C" {
struct xtap_re_prog;
struct xtap_re_prog *xtap_re_compile(const char *src, char *err, size_t errlen);
void xtap_re_free(struct xtap_re_prog *p);
unsigned int xtap_test_re_ninst(const struct xtap_re_prog *p);
unsigned int xtap_test_re_nsave(const struct xtap_re_prog *p);
}

namespace xtap {
namespace {

struct Compiled {
  bool ok = false;
  std::string error;
  unsigned instructions = 0, saves = 0;
};

// What the runtime does with the pattern at session start.
Compiled runtime_compile(const std::string &re) {
  Compiled c;
  char err[160] = "";
  struct xtap_re_prog *p = xtap_re_compile(re.c_str(), err, sizeof err);
  c.ok = p != nullptr;
  c.error = err;
  if (p) {
    c.instructions = xtap_test_re_ninst(p);
    c.saves = xtap_test_re_nsave(p);
  }
  xtap_re_free(p);
  return c;
}

// Both sides agree on `re`; returns the checker's answer.
RegexCheck agree(const std::string &re) {
  RegexCheck mine = analyze_regex(re);
  Compiled kernel = runtime_compile(re);
  EXPECT_EQ(mine.error.empty(), kernel.ok)
      << "pattern \"" << re << "\": pass 2 says '" << mine.error << "', the runtime '"
      << kernel.error << "'";
  if (mine.error.empty() && kernel.ok) {
    EXPECT_EQ(mine.instructions, kernel.instructions) << "pattern \"" << re << "\"";
    EXPECT_EQ(2 * (std::min(mine.groups, XTAP_RE_MAX_GROUPS - 1) + 1), int(kernel.saves)) << re;
  }
  return mine;
}

struct Rejected {
  std::string pattern;
  std::string runtime_says;  // part of regex_compile.c's message
  std::string pass2_says;    // part of the checker's message
  size_t offset;             // where pass 2 puts the caret
};

// One pattern per rejection path of regex_compile.c, in source order.
const std::vector<Rejected> kRejections = {
    {"[[:alpha", "unclosed character class '[:'", "'[:' without its ':]'", 1},
    {"[[:word:]]", "unknown character class 'word'",
     "unknown character class '[:word:]' (known: alpha", 1},
    {"[ab\\", "unclosed character class", "unterminated '['", 0},
    {"x[z-a]", "inverted character range z-a", "inverted range 'z-a'", 2},
    {"[^", "unclosed character class", "unterminated '['", 0},
    {"a{x}", "expected number", "expected a number in '{m,n}'", 1},
    {"a{1001}", "repetition count too large (at most 1000)",
     "repetition count too large (at most 1000)", 1},
    {"a{2x}", "expected ',' or '}'", "expected ',' or '}'", 1},
    {"a{2,3x}", "expected '}'", "expected '}' to end '{m,n}'", 1},
    {"a{3,2}", "invalid repetition bounds {3,2}", "repetition '{3,2}' with n < m", 1},
    {std::string(17, '(') + "a" + std::string(17, ')'),
     "parentheses nested too deeply (at most 16)", "parentheses nested too deeply (at most 16)",
     16},
    {"(?=a)", "unexpected '(?'", "'(?' is supported only as '(?:...)'", 0},
    {"(ab", "expected ')'", "unmatched '('", 0},
    {"ab\\", "trailing backslash", "trailing backslash", 2},
    {"a|*b", "unexpected '*'", "nothing to repeat before '*'", 2},
    {"^*", "postfix closure '*' applied to anchoring operator", "'*' cannot repeat the anchor '^'",
     1},
    {"a**?", "too many repetition operators in a row (at most 2)",
     "too many repetition operators in a row (at most 2", 3},
    {"ab)", "unbalanced ')'", "unmatched ')'", 2},
    {"(abc){1000}", "regular expression too complex (5003 instructions, at most 2048)",
     "it compiles to 5003 instructions, at most 2048", 0},
};

TEST(RegexCheck, RejectsWhatTheRuntimeRejects) {
  for (const auto &r : kRejections) {
    SCOPED_TRACE(r.pattern);
    Compiled kernel = runtime_compile(r.pattern);
    EXPECT_FALSE(kernel.ok);
    EXPECT_NE(kernel.error.find(r.runtime_says), std::string::npos) << kernel.error;
    RegexCheck mine = analyze_regex(r.pattern);
    EXPECT_NE(mine.error.find(r.pass2_says), std::string::npos) << mine.error;
    EXPECT_EQ(mine.offset, r.offset) << mine.error;
  }
}

// The compiler's pools of nodes and classes are sized from the pattern so
// that "regular expression too complex" from them cannot happen: the
// largest consumers per byte of pattern still fit.
TEST(RegexCheck, NodeAndClassPoolsCannotRunOut) {
  for (const std::string &re :
       {std::string(16, '(') + std::string(16, ')'), std::string("(|||)(|)"),
        std::string("[[:alpha:]][a][b]"), std::string("a?b?c?d?")}) {
    EXPECT_EQ(agree(re).error, "") << re;
  }
}

// Stacked operators once overflowed the kernel stack at session start
// (the compiler recursed once per operator); they are bounded now.
TEST(RegexCheck, StackedRepetitionsAreBounded) {
  std::string deep = "a";
  for (int i = 0; i < 3000; i++) deep += "{1}";
  EXPECT_NE(agree(deep).error, "");
  EXPECT_EQ(agree("a*?").error, "");
  EXPECT_EQ(agree("a{2}{3}").error, "");
  EXPECT_EQ(agree("((a*)*)*").error, "");
}

TEST(RegexCheck, AgreesOnTheEdgesOfTheGrammar) {
  const std::vector<std::string> edges = {
      // empty branches and groups, a non-capturing group
      "", "a|", "|", "()", "(?:ab)+",
      // ']' as a member, '-' at either end, escapes, ranges ending in '[' or a class alias
      "[]]", "[^]a]", "[]-a]", "[a-]", "[-a]", "[\\]]", "[\\\\-z]", "[a-a]", "[A-[:alpha:]]",
      "[[:digit:][:alpha:]_]", "[[:d:]]", "[[:s:][:u:][:l:]]",
      // escaped specials; bounds, and stray braces and brackets (some refused by both)
      "\\.", "\\(", "a{0}", "a{0,}", "a{1000}", "a{2,1000}", "x{}", "}", "]", "a{,",
      // two operators, anchors inside a repeated group, too large a program
      ".*?", "^$", "(^a|b$)*", "(a){2047}"};
  for (const std::string &re : edges) {
    SCOPED_TRACE(re);
    agree(re);
  }
  agree(std::string(16, '(') + "a" + std::string(16, ')'));
  EXPECT_EQ(analyze_regex("[a-z]{1,3}").instructions, 3u + 1 + 2 * 2);
  // At the size limit exactly: SAVE 0 + 2045 x 'a' + SAVE 1 + MATCH.
  EXPECT_EQ(agree("a{1000}b{1000}c{45}").error, "");
  EXPECT_NE(agree("a{1000}b{1000}c{46}").error, "");
}

TEST(RegexCheck, GroupsPastTheLimitParseButDoNotCapture) {
  std::string re;
  for (int i = 0; i < 40; i++) re += "(a)";
  RegexCheck r = agree(re);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.groups, 40);
}

TEST(RegexCheck, ANulEndsThePatternForTheRuntime) {
  RegexCheck r = analyze_regex(std::string("ab\0c", 4));
  EXPECT_NE(r.error.find("NUL character"), std::string::npos);
  EXPECT_EQ(r.offset, 2u);
}

// Random patterns over the grammar's characters: the two must agree on
// every one. Deterministic (fixed seed), so a failure reproduces.
TEST(RegexCheck, AgreesWithTheRuntimeOnRandomPatterns) {
  const std::vector<std::string> pieces = {
      "a",      "b",  "z",   "0",         "1",     "9",       ".",   "^",     "$",    "|",
      "(",      ")",  "(?:", "(?",        "[",     "]",       "[^",  "-",     "\\",   "\\]",
      "*",      "+",  "?",   "{",         "}",     ",",       "{2}", "{1,3}", "{0,}", "{1000}",
      "{1001}", "[:", ":]",  "[:alpha:]", "[:d:]", "[:bad:]", ":",   "z-a",   "a-z"};
  std::mt19937 rng(20261123);
  int accepted = 0;
  const int kPatterns = 100000;
  for (int i = 0; i < kPatterns; i++) {
    std::string re;
    int n = std::uniform_int_distribution<int>(0, 12)(rng);
    for (int k = 0; k < n; k++) re += pieces[rng() % pieces.size()];
    if (agree(re).error.empty()) accepted++;
    if (HasFailure()) break;  // the first disagreement says enough
  }
  // Both outcomes are exercised, not only the easy one.
  EXPECT_GT(accepted, kPatterns / 20);
  EXPECT_LT(accepted, kPatterns - kPatterns / 20);
}

}  // namespace
}  // namespace xtap
