// Pass 2: name resolution, types, probe points, with the diagnostics users see.
#include <gtest/gtest.h>

#include "helpers.h"

namespace xtap {
namespace {

TEST(Semantic, InfersTypesAcrossProbes) {
  auto r = test::run("global a, s probe begin { a[\"x\", 1] = s } probe end { s = execname() }");
  ASSERT_TRUE(r->ok) << r->printed();
  auto *a = r->script->find_global("a");
  EXPECT_EQ(a->type, Type::String);
  ASSERT_EQ(a->key_types.size(), 2u);
  EXPECT_EQ(a->key_types[0], Type::String);
  EXPECT_EQ(a->key_types[1], Type::Long);
}

TEST(Semantic, OverloadsAreChosenByArgumentCount) {
  auto r = test::run(
      "function f(a) { return a } function f(a, b) { return a . b }"
      " probe begin { println(f(1), f(\"x\", \"y\")) }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(r->script->find_function("f", 1)->return_type, Type::Long);
  EXPECT_EQ(r->script->find_function("f", 2)->return_type, Type::String);
  auto bad =
      test::run("function f(a) { return a } function f(a, b) { return a } probe begin { f() }");
  EXPECT_EQ(bad->first_error(), "XTP2214");
  EXPECT_NE(bad->printed().find("takes 1 or 2 argument(s), 0 given"), std::string::npos)
      << bad->printed();
}

TEST(Semantic, SlicesTakeTheArrayKeyTypes) {
  auto r =
      test::run("global a probe begin { a[\"k\", 1] = 2; foreach ([s, n] in a[*, 1]) println(s) }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(test::run("global a probe begin { a[1, 2] = 3; x = a[*, 2] }")->first_error(),
            "XTP2242");
  EXPECT_EQ(test::run("global a probe begin { a[1, 2] = 3; foreach ([x, y] in a[*]) println(x) }")
                ->first_error(),
            "XTP2204");
}

TEST(Semantic, WrapNeedsAnArrayAndProbesAreRequired) {
  EXPECT_EQ(test::run("global n% probe begin { n = 1 }")->first_error(), "XTP2240");
  EXPECT_EQ(test::run("function f() { return 1 }")->first_error(), "XTP2241");
  EXPECT_TRUE(test::run("global a% probe begin { a[1] = 1 }")->ok);
}

// As stap, a @hist_linear shape the runtime refuses is accepted in pass 2:
// a warning here, and the session fails to start.
TEST(Semantic, BadLinearHistogramIsAWarning) {
  for (const char *shape : {"0, 1500, 0", "0, 1500, -1", "10, 0, 1", "0, 1500, 2"}) {
    auto r = test::run(std::string("global s probe begin { s <<< 1; print(@hist_linear(s, ") +
                       shape + ")) }");
    EXPECT_TRUE(r->ok) << shape << ": " << r->printed();
    EXPECT_NE(r->printed().find("warning[XTP2220]"), std::string::npos) << r->printed();
  }
  for (const char *shape : {"0, 0, 1", "0, 1250, 10", "-5, 5, 1"}) {
    auto r = test::run(std::string("global s probe begin { s <<< 1; print(@hist_linear(s, ") +
                       shape + ")) }");
    EXPECT_TRUE(r->ok) << shape << ": " << r->printed();
    EXPECT_EQ(r->printed().find("XTP2220"), std::string::npos) << shape << ": " << r->printed();
  }
}

TEST(Semantic, HistogramBucketsAreLongs) {
  auto r = test::run(
      "global s probe begin { s <<< 1; x = @hist_log(s)[65]; y = 3 in @hist_log(s);"
      " foreach (n = [b] in @hist_log(s)) z = n + b; t = sprint(@hist_log(s)); println(x, y, z, t) "
      "}");
  ASSERT_TRUE(r->ok) << r->printed();
  for (const auto &l : r->script->probes[0]->locals)
    EXPECT_EQ(l->type, l->name == "t" ? Type::String : Type::Long) << l->name;
}

// Code without effect is dropped before it is checked, as in stap
// (passes/elide_pure_code.cpp): a conflict in it is no error.
TEST(Semantic, DroppedCodeIsNotTypeChecked) {
  auto r = test::run(
      "function unused() { return 1 + \"s\" }\n"
      "probe begin { x = 1; x = \"s\"; 2 + \"s\"; println(\"ok\") }");
  EXPECT_TRUE(r->ok) << r->printed();
  EXPECT_NE(r->printed().find("warning[XTP2320]"), std::string::npos) << r->printed();
  EXPECT_NE(r->printed().find("warning[XTP2322]"), std::string::npos) << r->printed();
}

TEST(Semantic, TypeConflictIsAnError) {
  auto r = test::run("probe begin { x = 1; x = \"s\"; println(x) }");
  EXPECT_EQ(r->first_error(), "XTP2305");
  EXPECT_NE(r->printed().find("t.stp:1:26"), std::string::npos) << r->printed();
}

TEST(Semantic, UnknownFunctionSuggestsTheClosest) {
  auto r = test::run("probe begin { prinln(\"x\") }");
  EXPECT_EQ(r->first_error(), "XTP2207");
  EXPECT_NE(r->printed().find("did you mean 'println'?"), std::string::npos) << r->printed();
}

TEST(Semantic, UnknownProbePointSuggests) {
  auto r = test::run("probe begn { }");
  EXPECT_EQ(r->first_error(), "XTP2100");
  EXPECT_NE(r->printed().find("did you mean 'begin'?"), std::string::npos) << r->printed();
  auto t = test::run("probe timer.mss(10) { }");
  EXPECT_EQ(t->first_error(), "XTP2103");
  EXPECT_NE(t->printed().find("timer.ms"), std::string::npos) << t->printed();
}

TEST(Semantic, ArraysMustBeGlobal) {
  auto r = test::run("probe begin { a[1] = 2 }");
  EXPECT_EQ(r->first_error(), "XTP2201");
  EXPECT_NE(r->printed().find("global a"), std::string::npos);
}

TEST(Semantic, ArrayArityMustAgree) {
  auto r = test::run("global a probe begin { a[1] = 2; a[1, 2] = 3 }");
  EXPECT_EQ(r->first_error(), "XTP2204");
}

TEST(Semantic, ScalarAndArrayUseConflict) {
  auto r = test::run("global a probe begin { a[1] = 2; a = 3 }");
  EXPECT_EQ(r->first_error(), "XTP2206");
}

TEST(Semantic, PrintfArgumentsAreChecked) {
  EXPECT_EQ(test::run("probe begin { printf(\"%d %s\\n\", 1) }")->first_error(), "XTP2313");
  EXPECT_EQ(test::run("probe begin { printf(\"%d\\n\", \"s\") }")->first_error(), "XTP2305");
  EXPECT_EQ(test::run("probe begin { printf(\"%q\\n\", 1) }")->first_error(), "XTP2312");
  EXPECT_TRUE(test::run("probe begin { printf(\"%-*d|%5s|%%|%x\\n\", 4, 1, \"a\", 255) }")->ok);
}

TEST(Semantic, BreakOutsideLoop) {
  EXPECT_EQ(test::run("probe begin { break }")->first_error(), "XTP2210");
}

TEST(Semantic, UnresolvedLocalType) {
  auto r = test::run("probe begin { println(x) }");
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->printed().find("'x'"), std::string::npos) << r->printed();
}

TEST(Semantic, TimerPeriodRange) {
  EXPECT_EQ(test::run("probe timer.us(1) { }")->first_error(), "XTP2105");
  EXPECT_EQ(test::run("probe timer.ms(0) { }")->first_error(), "XTP2104");
  EXPECT_TRUE(test::run("probe timer.s(1), timer.hz(100) { }")->ok);
}

TEST(Semantic, KprobePointShapes) {
  EXPECT_TRUE(test::run("probe kprobe.function(\"vfs_read\").return { }")->ok);
  EXPECT_EQ(test::run("probe kprobe.function(1) { }")->first_error(), "XTP2111");
  EXPECT_EQ(test::run("probe kprobe.fnction(\"x\") { }")->first_error(), "XTP2110");
}

TEST(Semantic, LocalsAssignedButNeverReadWarn) {
  auto r =
      test::run("probe my.a = begin { from_alias = 1 } probe my.a { x = 1; y = 2; println(y) }");
  ASSERT_TRUE(r->ok) << r->printed();
  std::vector<std::string> warned;
  for (const auto &d : r->diags.all())
    if (d.code == "XTP2320") warned.push_back(d.message);
  ASSERT_EQ(warned.size(), 1u) << r->printed();
  EXPECT_NE(warned[0].find("'x'"), std::string::npos);
}

TEST(Semantic, ForeachKeysTakeArrayKeyTypes) {
  auto r = test::run(
      "global m probe begin { m[\"a\", 1] = 1; foreach ([s, n] in m) println(s . \"x\", n + 1) }");
  ASSERT_TRUE(r->ok) << r->printed();
}

}  // namespace
}  // namespace xtap
