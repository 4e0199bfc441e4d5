// The xtap driver's stap-compatible options, run as a user runs them: the
// real binary of this build against an installed kernel's headers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/file_io.h"
#include "common/process.h"
#include "real_module.h"
#include "temp_dir.h"

namespace xtap {
namespace {

struct XtapRun {
  int code = -1;
  std::string out;  // stdout and stderr together
};

XtapRun run_xtap(std::vector<std::string> args) {
  static test::TempDir scratch;
  process::SpawnSpec s;
  s.argv = {XTAP_BINARY_DIR "/cli/xtap"};
  s.argv.insert(s.argv.end(), args.begin(), args.end());
  s.cwd = scratch.str();
  s.stdout_path = s.stderr_path = scratch.str() + "/out.txt";
  std::string err;
  XtapRun r;
  r.code = process::run_to_end(s, &err);
  r.out = read_file(s.stdout_path) + err;
  return r;
}

class CliOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    release_ = test::installed_kernel_with_headers();
    if (release_.empty()) GTEST_SKIP() << "no kernel headers under /lib/modules";
  }
  std::string release_;
};

TEST_F(CliOptions, LastPassOptionWins) {
  // stap takes the last -p: -p3 -p2 stops after elaboration.
  XtapRun r = run_xtap({"-p3", "-p2", "-r", release_, "-e", "probe begin { exit() }"});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("# probes"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("xtap_script"), std::string::npos) << "pass 3 ran:\n" << r.out;
}

TEST_F(CliOptions, SymbolOptionsOfStapAreAccepted) {
  XtapRun r = run_xtap({"--all-modules", "-d", "kernel", "-d", "ext4", "--ldd", "-p2", "-r", release_, "-e",
                    "probe begin { exit() }"});
  EXPECT_EQ(r.code, 0) << r.out;
}

TEST_F(CliOptions, SuppressTimeLimitsNeedsGuruMode) {
  XtapRun r = run_xtap({"--suppress-time-limits", "-p3", "-r", release_, "-e", "probe begin { exit() }"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("needs -g"), std::string::npos) << r.out;
}

TEST_F(CliOptions, SuppressTimeLimitsLiftsMaxactionUnlessGiven) {
  XtapRun r = run_xtap({"-g", "--suppress-time-limits", "-p3", "-r", release_, "-e", "probe begin { exit() }"});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(".maxaction = 2147483648,"), std::string::npos);
  EXPECT_NE(r.out.find(".maxtrylock = 2147483648,"), std::string::npos);
  // An explicit -D still wins.
  r = run_xtap({"-g", "--suppress-time-limits", "-DMAXACTION=77", "-p3", "-r", release_, "-e",
                "probe begin { exit() }"});
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(".maxaction = 77,"), std::string::npos);
}

}  // namespace
}  // namespace xtap
