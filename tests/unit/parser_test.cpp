#include "parse/parser.h"
#include <algorithm>

#include <gtest/gtest.h>

#include "helpers.h"
#include "parse/printer.h"

namespace xtap {
namespace {

std::string reprint(const std::string &text) {
  auto r = test::run(text, false);
  EXPECT_TRUE(r->ok) << r->printed();
  return r->ok ? print_script(*r->script) : "";
}

TEST(Parser, PrecedenceFollowsStap) {
  // '.' binds looser than '+', tighter than '<<'; '&&' looser than '|'.
  EXPECT_EQ(reprint("probe begin { x = a . b + c }"), "probe begin\n{\n    x = (a . (b + c))\n}\n");
  EXPECT_EQ(reprint("probe begin { x = 1 << 2 . 3 }"),
            "probe begin\n{\n    x = (1 << (2 . 3))\n}\n");
  EXPECT_EQ(reprint("probe begin { x = a | b && c == d * 2 }"),
            "probe begin\n{\n    x = ((a | b) && (c == (d * 2)))\n}\n");
}

TEST(Parser, AssignmentIsRightAssociative) {
  EXPECT_EQ(reprint("probe begin { a = b += 1 }"), "probe begin\n{\n    a = (b += 1)\n}\n");
}

// Found by the generative fuzzer (tests/fuzz/fuzz_gen.cpp): what -p1
// prints must parse back to the same script.
TEST(Parser, PrintedScriptsParseBackTheSame) {
  for (const char *text : {
           "probe begin { x = a % (b = c); if ((y = 2)) println(y) }",
           "probe begin { x = - -5; y = -(--x) }",
           "probe begin { println(1)\n;\n--x }",
           "probe begin { y = 1; ; ++y; return }",
           "function f() { if (x) return 1\n; --x; return 2 }",
           "probe begin { \"a\"; \"b\"; f(); -34; x; (y) }",
       }) {
    std::string once = reprint(text);
    EXPECT_EQ(reprint(once), once) << text;
  }
  EXPECT_EQ(reprint("probe begin { x = a % (b = c) }"),
            "probe begin\n{\n    x = (a % (b = c))\n}\n");
  EXPECT_EQ(reprint("probe begin { f()\n;\n;\n--x }"),
            "probe begin\n{\n    f();\n    ;\n    --x\n}\n");
}

TEST(Parser, SemicolonsAreOptional) {
  EXPECT_EQ(reprint("probe begin { println(\"hello\") exit() }"),
            "probe begin\n{\n    println(\"hello\")\n    exit()\n}\n");
}

TEST(Parser, GlobalsWithSizesAndInitializers) {
  EXPECT_EQ(reprint("global a[100], b = -5, c = \"s\"; probe end {}"),
            "global a[100]\nglobal b = -5\nglobal c = \"s\"\nprobe end\n{\n}\n");
}

TEST(Parser, WrapAroundGlobals) {
  EXPECT_EQ(reprint("global a%, b%[16], c probe end {}"),
            "global a%\nglobal b%[16]\nglobal c\nprobe end\n{\n}\n");
  auto r = test::run("global b%[16] probe end {}", false);
  ASSERT_TRUE(r->ok) << r->printed();
  const GlobalDecl *b = r->script->find_global("b");
  EXPECT_TRUE(b->wrap);
  EXPECT_EQ(b->max_entries, 16);
  // stap takes the size after the '%' only.
  EXPECT_EQ(test::run("global b[16]% probe end {}", false)->first_error(), "XTP1010");
}

TEST(Parser, SliceKeysAreStars) {
  EXPECT_EQ(
      reprint("global a probe end { foreach ([x, y] in a[1, *]) delete a[*, y]; n = [*, 2] in a }"),
      "global a\nprobe end\n{\n    foreach ([x, y] in a[1, *])\n        delete a[*, y]\n"
      "    n = ([*, 2] in a)\n}\n");
  // A '*' that is not a whole key is multiplication.
  EXPECT_EQ(reprint("global a probe end { x = a[2 * 3] }"),
            "global a\nprobe end\n{\n    x = a[(2 * 3)]\n}\n");
}

TEST(Parser, FunctionsOverloadedByArity) {
  auto r =
      test::run("function f(a) { } function f(a, b) { } function f() { } probe end { }", false);
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(r->script->find_function("f", 2)->params.size(), 2u);
  EXPECT_EQ(r->script->find_function("f", 0)->overload, 2);
  EXPECT_EQ(r->script->find_function("f", 3), nullptr);
  // Two of one arity: overloaded at run time (`next`), as in stap.
  EXPECT_TRUE(test::run("function f(a) { } function f(b) { }", false)->ok);
}

TEST(Parser, ProbePointsWithArgumentsAndSuffixes) {
  auto r = test::run("probe kprobe.function(\"vfs_read\").return, timer.ms(100) { }", false);
  ASSERT_TRUE(r->ok) << r->printed();
  const auto &p = r->script->probes[0]->points;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].str(), "kprobe.function(\"vfs_read\").return");
  EXPECT_EQ(p[1].str(), "timer.ms(100)");
}

TEST(Parser, ForeachInMembershipAndDelete) {
  EXPECT_EQ(
      reprint("global m probe begin { foreach ([a, b] in m) if ([a, b] in m) delete m[a, b] }"),
      "global m\nprobe begin\n{\n    foreach ([a, b] in m)\n        if (([a, b] in m))\n"
      "            delete m[a, b]\n}\n");
  EXPECT_EQ(reprint("global m probe begin { x = k in m }"),
            "global m\nprobe begin\n{\n    x = ([k] in m)\n}\n");
}

TEST(Parser, ErrorsCarryLocationAndCaret) {
  auto r = test::run("probe begin {\n  x = (1 + \n}\n", false);
  ASSERT_FALSE(r->ok);
  EXPECT_EQ(r->first_error(), "XTP1010");
  EXPECT_EQ(r->printed(),
            "t.stp:3:1: error[XTP1010]: expected an expression, found '}'\n"
            "  }\n"
            "  ^\n");
}

TEST(Parser, RecoversAndReportsSeveralErrors) {
  auto r = test::run("probe begin { x = }\nprobe end { y = ) }\nprobe begin { }", false);
  EXPECT_EQ(r->diags.error_count(), 2) << r->printed();
  // The script's own probes (tapset files may add theirs, such as argv.stp's).
  auto own = std::count_if(r->script->probes.begin(), r->script->probes.end(),
                           [](const auto &p) { return !p->from_tapset; });
  EXPECT_EQ(own, 1);
}

TEST(Parser, UnclosedBrace) {
  auto r = test::run("probe begin {\n  x = 1\n", false);
  EXPECT_EQ(r->first_error(), "XTP1013");
}

TEST(Parser, ReservedWordAsName) {
  auto r = test::run("global probe", false);
  ASSERT_FALSE(r->ok);
  EXPECT_NE(r->printed().find("reserved word"), std::string::npos);
}

}  // namespace
}  // namespace xtap
