// Pass 3 on inline scripts: the generated C for constructs whose shape
// matters (evaluation order, calls as statements, lock modes). Behaviour is
// tested in the VM by tests/runtime; these catch translator slips early.
#include <gtest/gtest.h>

#include "codegen/module.h"
#include "helpers.h"

namespace xtap {
namespace {

std::string translate(const std::string &text) {
  auto r = test::run(text);
  EXPECT_TRUE(r->ok) << r->printed();
  if (!r->ok) return "";
  ModuleOptions mo;
  mo.script_name = "t.stp";
  mo.version = "test";
  return emit_module(*r->script, r->elab, mo);
}

TEST(Codegen, WatchpointsTakeAnAddressOrASymbolResolvedAtLoad) {
  std::string c = translate(
      "probe kernel.data(0xffffffff82a00008).length(8).write { println(pp()) }"
      " probe kernel.data(\"vm_dirty_ratio\").rw { }");
  EXPECT_NE(c.find(".address = 0xffffffff82a00008UL, .len = 8, .type = 2"), std::string::npos) << c;
  EXPECT_NE(c.find(".symbol_address = &xtap_data_addrs[0], .len = 1, .type = 3"),
            std::string::npos);
  EXPECT_NE(c.find("xtap_data_names[] = { \"vm_dirty_ratio\", }"), std::string::npos);
  EXPECT_NE(c.find("\"kernel.data(0xffffffff82a00008).length(8).write\""), std::string::npos);
  EXPECT_NE(c.find("{ .ops = &xtap_hwbkpt_ops, .specs = xtap_hwbkpt_specs, .nspecs = 2 }"),
            std::string::npos);
}

TEST(Codegen, ScriptFunctionCalledAsAStatement) {
  std::string c = translate("global n function bump() { n++ } probe begin { bump() }");
  EXPECT_NE(c.find("xtap_fn_bump(c)"), std::string::npos);
}

TEST(Codegen, OverloadsGetDistinctCNames) {
  std::string c = translate(
      "function f(a) { return a } function f(a, b) { return a + b }"
      " probe begin { println(f(1) + f(1, 2)) }");
  EXPECT_NE(c.find("xtap_fn_f(c, "), std::string::npos);
  EXPECT_NE(c.find("xtap_fn_f__1(c, "), std::string::npos);
}

TEST(Codegen, WrapAndSlicesReachTheRuntime) {
  std::string c =
      translate("global a%[8] probe begin { a[1, 2] = 3; delete a[*, 2]; println([1, *] in a) }");
  EXPECT_NE(c.find(".max_entries = 8, .wrap = 1"), std::string::npos);
  EXPECT_NE(c.find("xtap_map_delete_slice("), std::string::npos);
  EXPECT_NE(c.find("xtap_map_exists_slice("), std::string::npos);
}

TEST(Codegen, ArgumentsWithSideEffectsAreEvaluatedInOrder) {
  std::string c = translate(
      "global n function f() { return ++n } probe begin { printf(\"%d %d\\n\", f(), n) }");
  // Both arguments go to temporaries, the call first.
  auto at = c.find("xtap_printf(c, \"%lld %lld");
  ASSERT_NE(at, std::string::npos) << c;
  std::string line = c.substr(c.rfind('\n', at), at - c.rfind('\n', at));
  auto call = line.find("xtap_fn_f(c)");
  auto read = line.find(" = g_n;");
  ASSERT_NE(call, std::string::npos) << c;
  ASSERT_NE(read, std::string::npos) << c;
  EXPECT_LT(call, read);
}

TEST(Codegen, PrintfWithAConstantFormatWritesABinaryItemWithATextFallback) {
  std::string c = translate(
      "probe begin { printf(\"%d %s\\n\", 1, \"a\"); printf(\"%d %s\\n\", 2, \"b\"); "
      "printf(\"%m\", 0); x = sprintf(\"%d\", 3) }");
  // One table entry per distinct format; %m (kernel memory) and sprintf stay text.
  EXPECT_NE(c.find("xtap_formats[] = \"XTF1\\x06\\x00\\x00\\x00%d %s\\n\";"), std::string::npos)
      << c;
  EXPECT_NE(c.find(".formats_len = 14"), std::string::npos) << c;
  EXPECT_NE(c.find("if (!(xtap_binary_output && xtap_bprintf(c, 1, \"ls\", _v"), std::string::npos)
      << c;
  EXPECT_EQ(c.find("xtap_bprintf(c, 2"), std::string::npos) << c;
  EXPECT_NE(c.find("xtap_printf(c, \"%lld %s\\n\", (long long)((s64)_v"), std::string::npos) << c;
  EXPECT_NE(c.find("xtap_print_memory("), std::string::npos) << c;
}

TEST(Codegen, ScalarStatisticsTakeNoLockToAddAndAnExclusiveOneToRead) {
  // As stap: <<< to a scalar statistic writes this CPU's part, which
  // readers copy under its sequence count (runtime-kmod/stat.c).
  std::string c =
      translate("global s probe timer.ms(10) { s <<< 1 } probe end { println(@count(s)) }");
  EXPECT_EQ(c.find("{ .global = 0, .write = 0 }, /* s */"), std::string::npos) << c;
  EXPECT_NE(c.find("{ .global = 0, .write = 1 }, /* s */"), std::string::npos) << c;
}

TEST(Codegen, StatisticArraysTakeASharedLockToAdd) {
  std::string c =
      translate("global s probe timer.ms(10) { s[1] <<< 1 } probe end { println(@count(s[1])) }");
  EXPECT_NE(c.find("{ .global = 0, .write = 0 }, /* s */"), std::string::npos) << c;
  EXPECT_NE(c.find("{ .global = 0, .write = 1 }, /* s */"), std::string::npos) << c;
}

TEST(Codegen, UnreadGlobalsGetADisplayHandler) {
  std::string c =
      translate("global shown, used probe begin { shown = 1; used = 2; println(used) }");
  EXPECT_NE(c.find("\"shown=%lld\\n\""), std::string::npos) << c;
  EXPECT_EQ(c.find("\"used=%lld\\n\""), std::string::npos) << c;
}

TEST(Codegen, UnusedTapsetFunctionsArePruned) {
  std::string c = translate("probe begin { println(pid()) }");
  EXPECT_NE(c.find("xtap_fn_pid("), std::string::npos);
  EXPECT_EQ(c.find("xtap_fn_substr("), std::string::npos);
}

}  // namespace
}  // namespace xtap
