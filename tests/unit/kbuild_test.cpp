// Pass 4's driver against a stand-in kernel build directory: a Makefile
// that "builds" what Kbuild would (empty objects and modules), so that the
// driver's caching and error paths run in milliseconds and without kernel
// headers. Building against a real kernel is tested in real_module_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kbuild/kbuild.h"
#include "temp_dir.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

// Reads M=DIR's Kbuild like the kernel's Makefile would and touches every
// object and module it names (in one process: this machine's make spawns
// are the tests' cost). A script module whose C contains XTAP_TEST_FAIL
// fails like a compiler error.
const char *kFakeKernelMakefile = R"(obj-m :=
include $(M)/Kbuild
objects := $(obj-m) $(foreach m,$(obj-m:.o=),$($(m)-y))
modules:
ifneq ($(findstring XTAP_TEST_FAIL,$(file <$(M)/xtap_script.c)),)
	@echo "$(M)/xtap_script.c:3:1: error: XTAP_TEST_FAIL is not a type"; exit 2
else
	@cd $(M) && mkdir -p $(sort $(dir $(objects))) && touch $(objects) $(obj-m:.o=.ko)
endif
%.o:
	@touch $(M)/$@
)";

class FakeKernel : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    dir_.write("kernel/Makefile", kFakeKernelMakefile);
    target_ = {"6.1.0-test", dir_.str("kernel")};
    env_.datadir = XTAP_SOURCE_DIR;
    env_.cache_dir = dir_.str("cache");
    env_.version = "test";
    env_.jobs = 1;
  }
  ModuleBuild module(const std::string &name, const std::string &c = "int x;\n") {
    ModuleBuild mb;
    mb.name = name;
    mb.c_source = c;
    return mb;
  }

  test::TempDir dir_;
  Target target_;
  Env env_;
};

TEST_F(FakeKernel, BuildsThenFindsTheModuleInTheCache) {
  std::string ko, err;
  bool hit = true;
  ASSERT_TRUE(build_module(target_, env_, module("t_cache"), &ko, &err, &hit)) << err;
  EXPECT_FALSE(hit);
  EXPECT_TRUE(fs::exists(ko)) << ko;
  EXPECT_EQ(fs::path(ko).filename(), "t_cache.ko");

  std::string again;
  ASSERT_TRUE(build_module(target_, env_, module("t_cache"), &again, &err, &hit)) << err;
  EXPECT_TRUE(hit);
  EXPECT_EQ(again, ko);
}

TEST_F(FakeKernel, CacheHitIsOptional) {
  std::string ko, err;
  ASSERT_TRUE(build_module(target_, env_, module("t_nohit"), &ko, &err)) << err;
  ASSERT_TRUE(build_module(target_, env_, module("t_nohit"), &ko, &err)) << err;  // from the cache
  EXPECT_TRUE(fs::exists(ko));
}

TEST_F(FakeKernel, DifferentSourceIsADifferentModule) {
  std::string a, b, err;
  ASSERT_TRUE(build_module(target_, env_, module("t_key", "int a;\n"), &a, &err)) << err;
  ASSERT_TRUE(build_module(target_, env_, module("t_key", "int b;\n"), &b, &err)) << err;
  EXPECT_NE(a, b);
}

TEST_F(FakeKernel, KeepDirBuildsThereEvenWhenCached) {
  std::string ko, err;
  ASSERT_TRUE(build_module(target_, env_, module("t_keep"), &ko, &err)) << err;
  ModuleBuild mb = module("t_keep");
  mb.keep_dir = dir_.str("kept");
  bool hit = false;
  ASSERT_TRUE(build_module(target_, env_, mb, &ko, &err, &hit)) << err;
  EXPECT_TRUE(hit);
  EXPECT_TRUE(fs::exists(dir_.path() / "kept/xtap_script.c"));
  EXPECT_TRUE(fs::exists(dir_.path() / "kept/t_keep.ko"));
}

TEST_F(FakeKernel, CompilerErrorsReachTheUser) {
  std::string ko, err;
  EXPECT_FALSE(build_module(target_, env_, module("t_fail", "XTAP_TEST_FAIL x;\n"), &ko, &err));
  EXPECT_NE(err.find("building module t_fail for 6.1.0-test failed"), std::string::npos) << err;
  EXPECT_NE(err.find("error: XTAP_TEST_FAIL is not a type"), std::string::npos) << err;
}

// The stand-in leaves no .cmd files: Kbuild's commands cannot be recorded,
// so the direct path gives way to Kbuild, or says why when it may not.
TEST_F(FakeKernel, DirectPathFallsBackToKbuildOrSaysWhy) {
  std::string ko, err;
  env_.method = "direct";
  EXPECT_FALSE(build_module(target_, env_, module("t_direct"), &ko, &err));
  EXPECT_NE(err.find("with the recorded Kbuild commands failed (XTAP_KBUILD=direct)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("could not be recorded: Kbuild left no .xtap_script.o.cmd"), std::string::npos)
      << err;
  env_.method = "";
  EXPECT_TRUE(build_module(target_, env_, module("t_direct"), &ko, &err)) << err;
  env_.method = "make";
  EXPECT_TRUE(build_module(target_, env_, module("t_make"), &ko, &err)) << err;
}

// XTAP_CACHE_MAX_MB=0: storing a module evicts every other one not used in
// the last minutes (the stand-in's modules are empty), and the build
// directories of runs that ended go with them.
TEST_F(FakeKernel, StoringAModuleKeepsTheCacheUnderItsCap) {
  setenv("XTAP_CACHE_MAX_MB", "0", 1);
  std::string old_ko, new_ko, err;
  ASSERT_TRUE(build_module(target_, env_, module("t_cap", "int a;\n"), &old_ko, &err)) << err;
  const auto an_hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(fs::path(old_ko).parent_path(), an_hour_ago);
  fs::path ended_run = dir_.path() / "cache/build/0123abcd.999999999";  // beyond any pid_max
  fs::create_directories(ended_run);
  fs::last_write_time(ended_run, an_hour_ago);
  ASSERT_TRUE(build_module(target_, env_, module("t_cap", "int b;\n"), &new_ko, &err)) << err;
  unsetenv("XTAP_CACHE_MAX_MB");
  EXPECT_FALSE(fs::exists(fs::path(old_ko).parent_path())) << old_ko;
  EXPECT_TRUE(fs::exists(new_ko)) << new_ko;
  EXPECT_FALSE(fs::exists(ended_run));
}

TEST_F(FakeKernel, ACacheHitMarksTheModuleUsed) {
  std::string ko, err;
  ASSERT_TRUE(build_module(target_, env_, module("t_used"), &ko, &err)) << err;
  fs::path entry = fs::path(ko).parent_path();
  const auto an_hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(entry, an_hour_ago);
  bool hit = false;
  ASSERT_TRUE(build_module(target_, env_, module("t_used"), &ko, &err, &hit)) << err;
  EXPECT_TRUE(hit);
  EXPECT_GT(fs::last_write_time(entry), an_hour_ago + std::chrono::minutes(59));
}

TEST_F(FakeKernel, ReservedModuleNamesAreRefused) {
  std::string ko, err;
  EXPECT_FALSE(build_module(target_, env_, module("xtap_runtime"), &ko, &err));
  EXPECT_EQ(err, "module name 'xtap_runtime' is reserved");
}

TEST_F(FakeKernel, RuntimeIsBuiltOnceWithItsFeatureHeader) {
  std::string rt, err;
  ASSERT_TRUE(ensure_runtime(target_, env_, &rt, &err)) << err;
  EXPECT_TRUE(fs::exists(fs::path(rt) / "xtap_runtime.o"));
  std::ifstream h(fs::path(rt) / "include/xtap_features.h");
  std::stringstream ss;
  ss << h.rdbuf();
  // The fake compiles every feature test, so each one is present.
  EXPECT_NE(ss.str().find("#define XTAP_HAVE_HRTIMER_SETUP 1"), std::string::npos) << ss.str();
  std::string again;
  ASSERT_TRUE(ensure_runtime(target_, env_, &again, &err)) << err;
  EXPECT_EQ(again, rt);
}

TEST(ResolveTarget, ABuildDirectoryWithoutAReleaseIsExplained) {
  test::TempDir dir;
  dir.write("Makefile", "");
  Target t;
  std::string err;
  EXPECT_FALSE(resolve_target(dir.str(), &t, &err));
  EXPECT_NE(err.find("include/config/kernel.release is missing"), std::string::npos) << err;
  dir.write("include/config/kernel.release", "6.1.0-99-test\n");
  ASSERT_TRUE(resolve_target(dir.str(), &t, &err)) << err;
  EXPECT_EQ(t.release, "6.1.0-99-test");
}

TEST(ResolveTarget, AnUnknownReleaseListsTheInstalledOnes) {
  Target t;
  std::string err;
  EXPECT_FALSE(resolve_target("0.0.0-no-such-kernel", &t, &err));
  EXPECT_NE(err.find("no kernel build directory for 0.0.0-no-such-kernel"), std::string::npos)
      << err;
}

TEST(HashHex, IsStableAnd32HexDigits) {
  EXPECT_EQ(hash_hex("abc"), hash_hex("abc"));
  EXPECT_NE(hash_hex("abc"), hash_hex("abd"));
  EXPECT_EQ(hash_hex("").size(), 32u);
}

}  // namespace
}  // namespace xtap::kbuild
