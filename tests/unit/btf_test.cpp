// The BTF reader (symbols/btf.h) and kernel.function's derived probes: on
// the fixture built from btf_fixture.c by pahole at test-build time, and on
// the real BTF of installed kernels (the running kernel's, and the BTF that
// kbuild::ensure_btf extracts from /boot/vmlinuz-KVER). Each part is skipped
// when its input is missing.
#include <gtest/gtest.h>

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "helpers.h"
#include "kbuild/kbuild.h"
#include "symbols/btf.h"
#include "symbols/target_access.h"
#include "temp_dir.h"
#include "test_catalog.h"

namespace fs = std::filesystem;

namespace xtap {
namespace {

const KernelBtf *fixture() {
  std::string error;
  const KernelBtf *btf = test::test_btf(&error);
  return btf;
}

#define REQUIRE_FIXTURE()                                   \
  const KernelBtf *btf = fixture();                         \
  if (!btf) GTEST_SKIP() << "no BTF fixture in this build"; \
  const TypeTable &types = btf->types()

std::vector<std::string> param_names(const KFunction &f) {
  std::vector<std::string> out;
  for (const auto &p : f.params) out.push_back(p.name);
  return out;
}

TEST(BtfFixture, FunctionsWithParameterNamesAndTypes) {
  REQUIRE_FIXTURE();
  const KFunction *f = btf->find_function("vfs_read");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(param_names(*f), (std::vector<std::string>{"file", "buf", "count", "pos"}));
  EXPECT_EQ(types.spelling(f->params[0].type), "struct file*");
  EXPECT_EQ(types.spelling(f->params[1].type), "char*");
  EXPECT_EQ(types.spelling(f->params[2].type), "size_t");
  EXPECT_EQ(types.spelling(f->params[3].type), "loff_t*");
  EXPECT_EQ(types.spelling(f->return_type), "long");  // as clang names it
  const KFunction *open = btf->find_function("do_sys_openat2");
  ASSERT_NE(open, nullptr);
  EXPECT_EQ(types.spelling(open->params[1].type), "const char*");
  const KFunction *v = btf->find_function("fx_void");
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->params.empty());
  EXPECT_EQ(types.at(v->return_type).kind, KTypeKind::Void);
  EXPECT_EQ(btf->find_function("no_such_function"), nullptr);
}

TEST(BtfFixture, FunctionsSortedWithStaticOnes) {
  REQUIRE_FIXTURE();
  const auto &fs = btf->functions();
  EXPECT_TRUE(
      std::is_sorted(fs.begin(), fs.end(), [](auto &a, auto &b) { return a.name < b.name; }));
  ASSERT_NE(btf->find_function("fx_static"), nullptr);
  (void)types;
}

TEST(BtfFixture, RecordLayoutsMatchTheCompiler) {
  REQUIRE_FIXTURE();
  int file = types.find_record("file");
  ASSERT_GE(file, 0);
  EXPECT_EQ(types.at(file).size, 32u);
  uint64_t bits = 0;
  const KMember *flags = types.find_member(file, "f_flags", &bits);
  ASSERT_NE(flags, nullptr);
  EXPECT_EQ(bits, 16u * 8);
  const KMember *ready = types.find_member(file, "f_ready", &bits);
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->bit_size, 1u);
  EXPECT_EQ(bits, 20u * 8 + 3);
  const KMember *count = types.find_member(file, "f_count", &bits);
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->bit_size, 12u);
  EXPECT_EQ(bits, 20u * 8 + 4);
  // Members of anonymous unions and structs are found as C finds them.
  int qstr = types.find_record("qstr");
  ASSERT_GE(qstr, 0);
  ASSERT_NE(types.find_member(qstr, "len", &bits), nullptr);
  EXPECT_EQ(bits, 32u);
  ASSERT_NE(types.find_member(qstr, "name", &bits), nullptr);
  EXPECT_EQ(bits, 64u);
  int dentry = types.find_record("dentry");
  const KMember *iname = types.find_member(dentry, "d_iname", &bits);
  ASSERT_NE(iname, nullptr);
  EXPECT_EQ(types.spelling(iname->type), "unsigned char[32]");
  // A declared but undefined struct is incomplete, not a record to cast to.
  EXPECT_EQ(types.find_record("vfsmount"), -1);
}

TEST(BtfFixture, QualifiersAndEnums) {
  REQUIRE_FIXTURE();
  const KFunction *f = btf->find_function("__x64_sys_getppid");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(types.spelling(f->params[0].type), "const struct pt_regs*");
  const KFunction *e = btf->find_function("fx_state_of");
  ASSERT_NE(e, nullptr);
  const KType &state = types.at(e->return_type);
  EXPECT_EQ(state.kind, KTypeKind::Enum);
  EXPECT_EQ(state.size, 4u);
}

TEST(BtfFixture, MemberChainsWalkOverBtfTypes) {
  REQUIRE_FIXTURE();
  const KFunction *f = btf->find_function("vfs_read");
  TargetRef t;
  t.name = "$file";
  for (const char *m : {"f_path", "dentry", "d_name", "name"})
    t.components.push_back({TargetComponent::Kind::Member, m, -1, {}});
  TargetWalkError err;
  auto access = walk_target(types, f->params[0].type, "arg0", false, t, &err);
  ASSERT_TRUE(access) << err.message;
  EXPECT_EQ(types.spelling(access->type), "const unsigned char*");
  // f_path (offset 0) .dentry (8): a load; d_name (16) .name (8): a load.
  std::vector<int64_t> offsets;
  int loads = 0;
  for (const auto &op : access->ops) {
    if (op.kind == AccessOp::Kind::Offset) offsets.push_back(op.offset);
    if (op.kind == AccessOp::Kind::Load) loads++;
  }
  EXPECT_EQ(loads, 2);
  int64_t total = 0;
  for (auto o : offsets) total += o;
  EXPECT_EQ(total, 8 + 16 + 8);
}

TEST(BtfFixture, UnreadableInputIsAnError) {
  std::string error;
  EXPECT_EQ(KernelBtf::load("/nonexistent/vmlinux", &error), nullptr);
  EXPECT_NE(error.find("/nonexistent/vmlinux"), std::string::npos);
  const char junk[] = "not BTF at all";
  error.clear();
  EXPECT_EQ(KernelBtf::from_raw(junk, sizeof(junk), "junk", &error), nullptr);
  EXPECT_NE(error.find("junk"), std::string::npos);
}

// kernel.function's derived probes on the fixture: context variables, the
// registers they come from, and what cannot be read.
TEST(KernelFunctionProbes, ParametersFromRegistersAndReturn) {
  if (!fixture()) GTEST_SKIP() << "no BTF fixture in this build";
  auto r = test::run("probe kernel.function(\"fx_seven\").return { println($a, $b, $return) }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_EQ(r->elab.probes.size(), 1u);
  const DerivedProbe &dp = *r->elab.probes[0];
  EXPECT_EQ(dp.name(), "kernel.function(\"fx_seven\").return");
  const ContextVar *b = dp.context_var("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->c_value, "(u64)(s64)(s16)xtap_kfunc_arg(c, 1)");
  EXPECT_EQ(dp.context_var("c")->c_value, "(u64)(u8)xtap_kfunc_arg(c, 2)");
  EXPECT_EQ(dp.context_var("d")->c_value, "xtap_kfunc_arg(c, 3)");
  EXPECT_NE(dp.context_var("g")->unavailable, "");
  EXPECT_EQ(dp.context_var("return")->c_value, "(u64)(s64)(s32)xtap_kfunc_return(c)");
  EXPECT_FALSE(dp.context_var("return")->parameter);
}

TEST(KernelFunctionProbes, ByValueStructCutsOffLaterParameters) {
  if (!fixture()) GTEST_SKIP() << "no BTF fixture in this build";
  auto r = test::run("probe kernel.function(\"fx_by_value\") { println($before) }");
  ASSERT_TRUE(r->ok) << r->printed();
  const DerivedProbe &dp = *r->elab.probes[0];
  EXPECT_EQ(dp.context_var("before")->c_value, "(u64)(s64)(s32)xtap_kfunc_arg(c, 0)");
  EXPECT_NE(dp.context_var("p")->unavailable.find("passed by value"), std::string::npos);
  EXPECT_NE(dp.context_var("after")->unavailable.find("'p'"), std::string::npos);
  auto bad = test::run("probe kernel.function(\"fx_by_value\") { println($after) }");
  EXPECT_EQ(bad->first_error(), "XTP2154") << bad->printed();
}

TEST(KernelFunctionProbes, GlobsMatchByName) {
  if (!fixture()) GTEST_SKIP() << "no BTF fixture in this build";
  auto r = test::run("probe kernel.function(\"vfs_*\") { println(pp()) }");
  ASSERT_TRUE(r->ok) << r->printed();
  std::vector<std::string> names;
  for (const auto &dp : r->elab.probes) names.push_back(dp->name());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"kernel.function(\"vfs_read\")",
                                             "kernel.function(\"vfs_write\")"}));
}

TEST(KernelFunctionProbes, CallKeepsItsNameAsInStap) {
  if (!fixture()) GTEST_SKIP() << "no BTF fixture in this build";
  auto r = test::run("probe kernel.function(\"vfs_read\").call { println($count) }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_EQ(r->elab.probes.size(), 1u);
  EXPECT_EQ(r->elab.probes[0]->name(), "kernel.function(\"vfs_read\").call");
  EXPECT_EQ(r->elab.probes[0]->context_var("count")->c_value, "xtap_kfunc_arg(c, 2)");
}

TEST(KernelFunctionProbes, WhatNeedsDwarfNamesThePackage) {
  for (const char *pp :
       {"kernel.function(\"vfs_read@fs/read_write.c\")", "kernel.statement(\"vfs_read\")",
        "module(\"ext4\").function(\"ext4_file_open\")", "kernel.function(\"vfs_read\").inline"}) {
    auto r = test::run(std::string("probe ") + pp + " { }");
    EXPECT_EQ(r->first_error(), "XTP2150") << pp;
    EXPECT_NE(r->printed().find("linux-image-KVER-dbg"), std::string::npos) << pp;
  }
}

TEST(KernelFunctionProbes, UnknownFunctionSuggestsAName) {
  if (!fixture()) GTEST_SKIP() << "no BTF fixture in this build";
  auto r = test::run("probe kernel.function(\"vfs_raed\") { }");
  EXPECT_EQ(r->first_error(), "XTP2153");
  EXPECT_NE(r->printed().find("did you mean 'vfs_read'?"), std::string::npos) << r->printed();
  // Optional, it is dropped quietly; a script left with no probe at all is
  // stap's "no probes found".
  auto optional = test::run("probe kernel.function(\"vfs_raed\")? { } probe begin { }");
  EXPECT_TRUE(optional->ok) << optional->printed();
  EXPECT_EQ(test::run("probe kernel.function(\"vfs_raed\")? { }")->first_error(), "XTP2241");
}

// ------------------------------------------------------------- real kernels

TEST(BtfRunningKernel, SysfsVmlinuxHasTheFunctionsScriptsProbe) {
  const char *path = "/sys/kernel/btf/vmlinux";
  if (access(path, R_OK) != 0) GTEST_SKIP() << "no readable " << path;
  std::string error;
  auto btf = KernelBtf::load(path, &error);
  ASSERT_TRUE(btf) << error;
  EXPECT_GT(btf->functions().size(), 10000u);
  const KFunction *f = btf->find_function("vfs_read");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(param_names(*f), (std::vector<std::string>{"file", "buf", "count", "pos"}));
  EXPECT_EQ(btf->types().spelling(f->params[0].type), "struct file*");
  EXPECT_EQ(btf->types().spelling(f->return_type), "ssize_t");
  int task = btf->types().find_record("task_struct");
  ASSERT_GE(task, 0);
  uint64_t bits = 0;
  const KMember *pid = btf->types().find_member(task, "pid", &bits);
  ASSERT_NE(pid, nullptr);
  EXPECT_EQ(btf->types().spelling(pid->type), "pid_t");
}

// ensure_btf on each installed Debian kernel image that is not the running
// kernel: the payload is found, decompressed (LZ4 on 6.1, ZSTD on 6.12),
// its .BTF extracted and cached.
TEST(BtfInstalledKernels, ExtractedFromTheImageAndCached) {
  struct utsname u {};
  uname(&u);
  std::vector<std::string> releases;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator("/boot", ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind("vmlinuz-", 0) == 0 && n.substr(8) != u.release) releases.push_back(n.substr(8));
  }
  if (releases.empty()) GTEST_SKIP() << "no kernel image under /boot";
  test::TempDir cache;
  for (const auto &release : releases) {
    kbuild::Target t{release, ""};
    kbuild::Env env;
    env.cache_dir = cache.str();
    env.version = "test";
    std::string path, origin, error;
    ASSERT_TRUE(kbuild::ensure_btf(t, env, &path, &origin, &error)) << release << ": " << error;
    EXPECT_TRUE(path.rfind(cache.str(), 0) == 0) << path;
    auto btf = KernelBtf::load(path, &error);
    ASSERT_TRUE(btf) << release << ": " << error;
    const KFunction *f = btf->find_function("do_sys_openat2");
    ASSERT_NE(f, nullptr) << release;
    EXPECT_EQ(param_names(*f), (std::vector<std::string>{"dfd", "filename", "how"})) << release;
    // The second call finds the cached file.
    std::string again;
    ASSERT_TRUE(kbuild::ensure_btf(t, env, &again, &origin, &error));
    EXPECT_EQ(again, path);
    // The image itself, whether or not the debug vmlinux was preferred.
    std::string raw = cache.str(release + ".from-image.btf");
    ASSERT_TRUE(kbuild::extract_btf_from_image("/boot/vmlinuz-" + release, raw, &error))
        << release << ": " << error;
    auto from_image = KernelBtf::load(raw, &error);
    ASSERT_TRUE(from_image) << error;
    EXPECT_EQ(from_image->functions().size(), btf->functions().size()) << release;
  }
}

}  // namespace
}  // namespace xtap
