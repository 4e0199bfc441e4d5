// The generated syscall tapset (tapsets/syscalls.h) on the test catalog,
// alias wildcards and suffixes (passes/expand_aliases.cpp), and the
// elision of alias variables a probe never reads
// (passes/elide_unread_assignments.cpp).
#include <gtest/gtest.h>

#include "helpers.h"
#include "symbols/syscall_params.h"
#include "tapsets/syscalls.h"

namespace xtap {
namespace {

std::vector<std::string> locations(const test::Run &r) {
  std::vector<std::string> out;
  for (const auto &dp : r.elab.probes) out.push_back(dp->name());
  return out;
}

TEST(SyscallTapset, GeneratesAliasesFromTheCatalog) {
  auto cat = test::make_test_catalog();
  std::string text = generate_syscall_tapset(*cat);
  EXPECT_NE(text.find("probe syscall.openat = kernel.trace(\"syscalls:sys_enter_openat\")"),
            std::string::npos);
  EXPECT_NE(text.find("probe syscall.openat.return = kernel.trace(\"syscalls:sys_exit_openat\")"),
            std::string::npos);
  EXPECT_NE(text.find("probe nd_syscall.getppid = syscall.getppid { }"), std::string::npos);
  // The string argument is read from user memory, quoted; the flags and the
  // directory fd are decoded; the mode is octal, and only there with O_CREAT.
  EXPECT_NE(text.find("filename = user_string_quoted($filename)"), std::string::npos);
  EXPECT_NE(text.find("flags_str = _sys_open_flag_str(flags)"), std::string::npos);
  EXPECT_NE(text.find("argstr = sprintf(\"%s, %s, %s\", dfd_str, filename, flags_str)"
                      " . (mode_str == \"\" ? \"\" : \", \" . mode_str)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[257] = \"openat\""), std::string::npos);
  // A call without arguments has an empty argstr.
  EXPECT_NE(text.find("name = \"getppid\"\n\targstr = \"\""), std::string::npos);
}

TEST(SyscallTapset, UnnamedParametersGetTheKernelsNames) {
  KSyscall socket{"socket", 41, {{"", 1}, {"", 1}, {"", 1}}};
  EXPECT_EQ(syscall_param_name(socket, 0), "family");
  EXPECT_EQ(syscall_param_name(socket, 2), "protocol");
  KSyscall odd{"nosuchcall", 999, {{"", 1}, {"named", 1}}};
  EXPECT_EQ(syscall_param_name(odd, 0), "arg1");
  EXPECT_EQ(syscall_param_name(odd, 1), "named");
}

TEST(SyscallTapset, OnlyScriptsThatUseItLoadTheCatalog) {
  auto r = test::run("probe begin { exit() }");
  ASSERT_TRUE(r->ok) << r->printed();
  for (const auto &f : r->script->tapset_files)
    EXPECT_EQ(f->name.find("<syscall tapset"), std::string::npos);
  auto s = test::run("probe syscall.openat { println(argstr) }");
  ASSERT_TRUE(s->ok) << s->printed();
  EXPECT_EQ(locations(*s), std::vector<std::string>{"kernel.trace(\"syscalls:sys_enter_openat\")"});
}

TEST(SyscallTapset, TapsetAliasesOnSyscallsLoadItOnlyWhenUsed) {
  // signal.syskill (tapsets/signal.stp) is built on syscall.kill (which
  // the test catalog lacks: only the loading is checked).
  auto s = test::run("probe signal.syskill { println(sig_name) }");
  bool loaded = false;
  for (const auto &f : s->script->tapset_files) loaded |= f->name.find("<syscall tapset") == 0;
  EXPECT_TRUE(loaded) << s->printed();
  auto r = test::run("probe begin { exit() }");
  ASSERT_TRUE(r->ok) << r->printed();
  for (const auto &f : r->script->tapset_files)
    EXPECT_EQ(f->name.find("<syscall tapset"), std::string::npos);
}

TEST(SyscallTapset, NoCatalogIsAnError) {
  auto r = std::make_unique<test::Run>();
  r->file.name = "t.stp";
  r->file.text = "probe syscall.openat { }";
  r->script = parse_script(r->file, r->diags);
  r->env.catalog = [](std::string *error) -> const KernelCatalog * {
    *error = "no build directory for 9.9";
    return nullptr;
  };
  EXPECT_FALSE(elaborate(*r->script, r->env, r->elab, r->diags));
  EXPECT_EQ(r->first_error(), "XTP2140");
  EXPECT_NE(r->printed().find("t.stp:1:7"), std::string::npos) << r->printed();
}

TEST(AliasWildcards, MatchEachComponentAsAGlob) {
  auto r = test::run(
      "probe my.one = timer.ms(1) { w = 1 } probe my.two = timer.ms(2) { w = 2 }"
      " probe my.two.deep = timer.ms(3) { w = 3 } probe my.* { println(w) }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(locations(*r).size(), 2u);
  auto t =
      test::run("probe my.one = timer.ms(1) { } probe my.two = timer.ms(2) { } probe my.t* { }");
  ASSERT_TRUE(t->ok) << t->printed();
  EXPECT_EQ(locations(*t), std::vector<std::string>{"timer.ms(2)"});
  auto d = test::run(
      "probe my.two.deep = timer.ms(3) { } probe my.two = timer.ms(2) { } probe my.*.deep { }");
  ASSERT_TRUE(d->ok) << d->printed();
  EXPECT_EQ(locations(*d), std::vector<std::string>{"timer.ms(3)"});
  EXPECT_EQ(test::run("probe my.one = begin { } probe no.* { }")->first_error(), "XTP2100");
}

TEST(AliasWildcards, SyscallStarCoversEveryCall) {
  auto r = test::run("global n probe syscall.* { n++ } probe syscall.*.return { n-- }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(locations(*r).size(), 4u);  // openat and getppid, entry and return
  // A glob in the first component loads the tapset too.
  auto f = test::run("probe *.getppid { }");
  ASSERT_TRUE(f->ok) << f->printed();
  EXPECT_EQ(locations(*f).size(), 2u);  // syscall.getppid and nd_syscall.getppid
}

TEST(AliasWildcards, SuffixGoesOnTheAliasPoints) {
  auto r = test::run("probe my.read = kprobe.function(\"vfs_read\") { } probe my.read.return { }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(locations(*r), std::vector<std::string>{"kprobe.function(\"vfs_read\").return"});
}

TEST(AliasWildcards, UnknownSyscallSuggestsTheAlias) {
  auto r = test::run("probe syscall.opnat { }");
  EXPECT_EQ(r->first_error(), "XTP2100");
  EXPECT_NE(r->printed().find("did you mean 'syscall.openat'"), std::string::npos) << r->printed();
}

TEST(ElideUnreadAssignments, DropsWhatTheProbeDoesNotRead) {
  // Only name is read: the user string and argstr are not computed, so
  // their tapset functions are pruned.
  auto r = test::run("probe syscall.openat { println(name) }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(r->script->find_function("user_string_quoted"), nullptr);
  EXPECT_EQ(r->script->find_function("_sys_open_flag_str"), nullptr);
  auto s = test::run("probe syscall.openat { println(argstr) }");
  ASSERT_TRUE(s->ok) << s->printed();
  EXPECT_NE(s->script->find_function("user_string_quoted"), nullptr);
  EXPECT_NE(s->script->find_function("_sys_open_flag_str"), nullptr);
}

TEST(ElideUnreadAssignments, KeepUnusedKeepsThemAndProbesKnowTheirAlias) {
  auto r = std::make_unique<test::Run>();
  r->file.name = "t.stp";
  r->file.text = "probe syscall.open* { }";
  r->script = parse_script(r->file, r->diags);
  std::string err;
  load_tapsets(*r->script, {std::string(XTAP_SOURCE_DIR) + "/tapsets"}, r->diags, nullptr, &err);
  ElaborateOptions opts;
  opts.keep_unused = true;  // xtap -u and -L
  ASSERT_TRUE(elaborate(*r->script, r->env, r->elab, r->diags, opts)) << r->printed();
  EXPECT_NE(r->script->find_function("user_string_quoted"), nullptr);
  ASSERT_EQ(r->elab.probes.size(), 1u);
  EXPECT_EQ(r->elab.probes[0]->decl->alias, "syscall.openat");
  bool has_argstr = false;
  for (const auto &l : r->elab.probes[0]->decl->locals)
    has_argstr |= l->name == "argstr" && l->type == Type::String;
  EXPECT_TRUE(has_argstr);
}

TEST(ElideUnreadAssignments, KeepsSideEffectsAndTheScriptsOwnCode) {
  auto r = test::run(
      "global g probe my.a = begin { keep = g++; gone = strlen(\"x\") } probe my.a { mine = 1 }");
  ASSERT_TRUE(r->ok) << r->printed();
  bool warned = false;
  for (const auto &d : r->diags.all())
    warned |= d.code == "XTP2320" && d.message.find("'mine'") != std::string::npos;
  EXPECT_TRUE(warned) << r->printed();
  ASSERT_NE(r->script->find_global("g"), nullptr);
  EXPECT_TRUE(r->script->find_global("g")->written);
}

}  // namespace
}  // namespace xtap
