// stap's options beyond the common ones (docs/cli.md, "Options from stap"):
// mapped, accepted or refused with a reason; combined short flags; the
// argument a #! line makes. The real binary of this build, at -p1/-p2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/file_io.h"
#include "common/process.h"
#include "real_module.h"
#include "temp_dir.h"

namespace xtap {
namespace {

struct StapRun {
  int code = -1;
  std::string out;  // stdout and stderr together
};

StapRun xtap(std::vector<std::string> args) {
  static test::TempDir scratch;
  process::SpawnSpec s;
  s.argv = {XTAP_BINARY_DIR "/cli/xtap"};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.cwd = scratch.str();
  s.stdout_path = s.stderr_path = scratch.str() + "/out.txt";
  std::string err;
  StapRun r;
  r.code = process::run_to_end(s, &err);
  r.out = read_file(s.stdout_path) + err;
  return r;
}

bool has(const StapRun &r, const std::string &text) {
  return r.out.find(text) != std::string::npos;
}

TEST(CliStapOptions, CombinedShortFlagsAndUnknownLetters) {
  StapRun r = xtap({"-wW", "-p1", "-e", "probe begin { exit() }"});
  EXPECT_EQ(r.code, 0) << r.out;
  r = xtap({"-wZ", "-p1", "-e", "probe begin { exit() }"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r, "xtap: unknown option '-Z'")) << r.out;
  EXPECT_FALSE(has(r, "was not expected")) << r.out;
}

TEST(CliStapOptions, CompatibleTakesAnyVersionUpTo48) {
  const char *script =
      "probe begin { %( systemtap_v < \"2.0\" %? println(\"old\") %: println(\"new\") %) }";
  StapRun r = xtap({"--compatible=1.8", "-p1", "-e", script});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "old")) << r.out;
  r = xtap({"--compatible", "4.8", "-p1", "-e", script});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "new")) << r.out;
  r = xtap({"--compatible=5.0", "-p1", "-e", script});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r, "cannot be compatible with a later version")) << r.out;
  r = xtap({"--compatible=abc", "-p1", "-e", script});
  EXPECT_EQ(r.code, 1);
}

TEST(CliStapOptions, AcceptedAndRefused) {
  StapRun r = xtap({"-P", "-k", "-u", "--disable-cache", "--poison-cache", "--runtime=kernel",
                    "--privilege=stapdev", "-a", "x86_64", "--semantic-keep-going", "--color",
                    "--vp", "00200", "-p1", "-e", "probe begin { exit() }"});
  EXPECT_EQ(r.code, 0) << r.out;
  for (std::vector<std::string> refused :
       std::vector<std::vector<std::string>>{{"--use-server"},
                                             {"-U"},
                                             {"--bpf"},
                                             {"--unprivileged"},
                                             {"--runtime=bpf"},
                                             {"-B", "X=1"},
                                             {"--suppress-handler-errors"},
                                             {"--privilege=stapusr"}}) {
    std::vector<std::string> args = refused;
    args.insert(args.end(), {"-p1", "-e", "probe begin { exit() }"});
    StapRun q = xtap(args);
    EXPECT_EQ(q.code, 1) << refused[0] << ": " << q.out;
    EXPECT_TRUE(has(q, "xtap: -")) << q.out;
    EXPECT_FALSE(has(q, "unknown option")) << q.out;
  }
}

TEST(CliStapOptions, ExtraScriptWithE) {
  StapRun r = xtap({"-p1", "-e", "probe begin { exit() }", "-E", "probe end { println(\"bye\") }"});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "probe end")) << r.out;
  r = xtap({"-p1", "-E", "probe end { }"});
  EXPECT_EQ(r.code, 1);
}

TEST(CliStapOptions, SeveralOptionsInOneArgumentFromAShebangLine) {
  StapRun r = xtap({"-p1 -g", "script.stp"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(has(r, "several options in one argument")) << r.out;
  EXPECT_TRUE(has(r, "env -S")) << r.out;
}

class CliStapKernel : public ::testing::Test {
 protected:
  void SetUp() override {
    release_ = test::installed_kernel_with_headers();
    if (release_.empty()) GTEST_SKIP() << "no kernel headers under /lib/modules";
  }
  std::string release_;
};

TEST_F(CliStapKernel, WarningsAsErrorsUnlessSuppressed) {
  const char *script = "global unused\nprobe begin { exit() }";
  StapRun r = xtap({"-W", "-p2", "-r", release_, "-e", script});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "treated as errors (-W)")) << r.out;
  r = xtap({"-wW", "-p2", "-r", release_, "-e", script});
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST_F(CliStapKernel, SkipBadvarsReadsZero) {
  const char *script = "probe kernel.function(\"vfs_read\") { println($nosuch + 1) }";
  StapRun r = xtap({"-p2", "-r", release_, "-e", script});
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has(r, "XTP2225")) << r.out;
  r = xtap({"--skip-badvars", "-p3", "-r", release_, "-e", script});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r, "XTP2249")) << r.out;
}

}  // namespace
}  // namespace xtap
