// $var in process probes from the program's DWARF (probes/process_vars.cpp)
// on a fixture tests/CMakeLists.txt builds from the runtime tests' uvars
// workload with gcc -g -O2 (a PIE), and a copy without its debuginfo:
// parameters and their types, member chains read in user memory, .return
// with a typed $return, statements at source lines, and the error (and
// @defined) where the program has no DWARF. Skipped without the fixture.
#include <gtest/gtest.h>

#include "codegen/module.h"
#include "helpers.h"
#include "symbols/dwarf.h"

namespace xtap {
namespace {

#ifdef XTAP_UVARS_FIXTURE
const std::string kProgram = XTAP_UVARS_FIXTURE;
#else
const std::string kProgram;
#endif

#define NEED_FIXTURE() \
  if (kProgram.empty()) GTEST_SKIP() << "no uvars fixture in this build"

std::string translate(test::Run &r) {
  ModuleOptions mo;
  mo.script_name = "t.stp";
  mo.version = "test";
  return emit_module(*r.script, r.elab, mo);
}

// The context variables of the first derived probe: "name:type ...".
std::string vars_of(const test::Run &r) {
  std::string out;
  const DerivedProbe &dp = *r.elab.probes.at(0);
  for (const ContextVar &v : dp.context_vars())
    out += (out.empty() ? "" : " ") + v.name + ":" + dp.types()->spelling(v.type);
  return out;
}

TEST(ProcessVars, TheProgramsDwarfOpensAsTheKernelsDoes) {
  NEED_FIXTURE();
  std::string error;
  auto d = KernelDwarf::open(kProgram, "", "", &error);
  ASSERT_TRUE(d) << error;
  auto fs = d->match("xt_visit", "");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0]->file.find("uvars.c"), std::string::npos) << fs[0]->file;
  std::vector<KParam> params;
  int ret = -1;
  ASSERT_TRUE(d->prototype(*fs[0], &params, &ret));
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(d->types().spelling(params[0].type), "struct xt_node*");
  EXPECT_EQ(params[2].name, "who");
  EXPECT_EQ(d->types().spelling(ret), "long int");
}

TEST(ProcessVars, ParametersAtEntryAndChainsThroughUserMemory) {
  NEED_FIXTURE();
  auto r = test::run(
      "probe process(\"" + kProgram +
      "\").function(\"xt_visit\") { println($n->inner->depth, user_string($who), $n->vals[2]) }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(vars_of(*r), "n:struct xt_node* scale:int who:const char*");
  std::string c = translate(*r);
  // Every load of the chain is a user read; none is a kernel one.
  EXPECT_NE(c.find("xtap_uread(c, "), std::string::npos);
  EXPECT_EQ(c.find("xtap_kread(c, "), std::string::npos);
}

TEST(ProcessVars, KernelTargetsStayKernelReads) {
  NEED_FIXTURE();
  auto r = test::run("probe process(\"" + kProgram +
                     "\").function(\"xt_visit\") { println(@cast($n, \"task_struct\")->pid) }");
  if (!r->ok) GTEST_SKIP() << "no task_struct in the test catalog: " << r->printed();
  std::string c = translate(*r);
  EXPECT_NE(c.find("xtap_kread(c, "), std::string::npos);
}

TEST(ProcessVars, ReturnHasATypedReturnAndEntryValues) {
  NEED_FIXTURE();
  auto r = test::run("probe process(\"" + kProgram +
                     "\").function(\"xt_find\").return { printf(\"%d %d %d\\n\", $return->id, $id, "
                     "@entry($id)) }");
  ASSERT_TRUE(r->ok) << r->printed();
  std::string c = translate(*r);
  // The uretprobe keeps the arguments and runs @entry's half at entry.
  EXPECT_NE(c.find(".save_args = 1"), std::string::npos);
  EXPECT_NE(c.find(".entry_probe = &xtap_uprobe_probes["), std::string::npos);
  bool typed = false;
  for (const auto &dp : r->elab.probes)
    for (const ContextVar &v : dp->context_vars())
      if (v.name == "return") typed = dp->types()->spelling(v.type) == "struct xt_node*";
  EXPECT_TRUE(typed);
}

TEST(ProcessVars, ReturnWithoutParametersKeepsNothing) {
  NEED_FIXTURE();
  auto r = test::run("probe process(\"" + kProgram +
                     "\").function(\"xt_find\").return { println($return) }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(translate(*r).find(".save_args = 1"), std::string::npos);
}

TEST(ProcessVars, StatementAtASourceLineHasTheLocals) {
  NEED_FIXTURE();
  auto r =
      test::run("probe process(\"" + kProgram +
                "\").statement(\"xt_sum@uvars.c:52\") { println($i + $step + $total + $count) }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_FALSE(r->elab.probes.empty());
  EXPECT_NE(r->elab.probes[0]->name().find(".statement(\"xt_sum@"), std::string::npos);
  EXPECT_NE(r->elab.probes[0]->name().find("uvars.c:52\")"), std::string::npos);
  EXPECT_EQ(vars_of(*r), "step:long int i:int count:int total:long int");  // innermost first
  std::string c = translate(*r);
  // Locals of an -O0 function live in its frame: user loads.
  EXPECT_NE(c.find("xtap_uread(c, "), std::string::npos);
  EXPECT_EQ(c.find("xtap_kread(c, "), std::string::npos);
}

TEST(ProcessVars, StatementAtALineWithoutCodeSaysWhereTheCodeIs) {
  NEED_FIXTURE();
  auto r = test::run("probe process(\"" + kProgram + "\").statement(\"xt_sum@uvars.c:1\") { }");
  EXPECT_EQ(r->first_error(), "XTP2153");
  EXPECT_NE(r->printed().find("xt_sum has code at lines"), std::string::npos) << r->printed();
}

TEST(ProcessVars, WithoutDebuginfoNamesTheVariableAndThePackage) {
  NEED_FIXTURE();
  auto r = test::run("probe process(\"" + kProgram +
                     ".stripped\").function(\"xt_visit\") { println($n) }");
  EXPECT_EQ(r->first_error(), "XTP2157") << r->printed();
  EXPECT_NE(r->printed().find("'$n'"), std::string::npos) << r->printed();
  EXPECT_NE(r->printed().find("-dbgsym"), std::string::npos) << r->printed();
  EXPECT_NE(r->printed().find("1:"), std::string::npos) << r->printed();
}

TEST(ProcessVars, WithoutDebuginfoDefinedIsZero) {
  NEED_FIXTURE();
  auto r = test::run(
      "probe process(\"" + kProgram +
      ".stripped\").function(\"xt_visit\") { println(@defined($n) ? $n : -1, uint_arg(1)) }");
  EXPECT_TRUE(r->ok) << r->printed();
}

}  // namespace
}  // namespace xtap
