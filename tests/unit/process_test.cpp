// The shared process spawner (common/process.h) with real programs.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include "common/file_io.h"
#include "common/process.h"
#include "temp_dir.h"

namespace xtap::process {
namespace {

SpawnSpec sh(const std::string &script) {
  SpawnSpec s;
  s.argv = {"sh", "-c", script};
  return s;
}

TEST(Process, ReturnsTheExitCode) {
  std::string err;
  EXPECT_EQ(run_to_end(sh("exit 0"), &err), 0);
  EXPECT_EQ(run_to_end(sh("exit 3"), &err), 3);
}

TEST(Process, AMissingProgramIsReportedByTheParent) {
  SpawnSpec s;
  s.argv = {"xtap-no-such-program"};
  std::string err;
  EXPECT_EQ(spawn(s, &err), -1);
  EXPECT_EQ(err, "cannot run xtap-no-such-program: No such file or directory");
}

TEST(Process, AMissingDirectoryIsReported) {
  SpawnSpec s = sh("true");
  s.cwd = "/no/such/dir";
  std::string err;
  EXPECT_EQ(run_to_end(s, &err), -1);
  EXPECT_EQ(err, "cannot run sh in /no/such/dir: No such file or directory");
}

TEST(Process, AnUnwritableRedirectionIsReported) {
  SpawnSpec s = sh("true");
  s.stdout_path = "/no/such/dir/out";
  std::string err;
  EXPECT_EQ(run_to_end(s, &err), -1);
  EXPECT_EQ(err, "cannot open redirection for sh: No such file or directory");
}

TEST(Process, RedirectsAndSharesOneLogForBothStreams) {
  test::TempDir dir;
  SpawnSpec s = sh("cat; echo out; echo err >&2; pwd");
  s.cwd = dir.str();
  s.stdin_path = dir.write("in", "from stdin\n");
  s.stdout_path = s.stderr_path = dir.str("log");
  std::string err;
  ASSERT_EQ(run_to_end(s, &err), 0) << err;
  EXPECT_EQ(read_file(dir.str("log")), "from stdin\nout\nerr\n" + dir.str() + "\n");
}

TEST(Process, SeparateStreams) {
  test::TempDir dir;
  SpawnSpec s = sh("echo out; echo err >&2");
  s.stdout_path = dir.str("out");
  s.stderr_path = dir.str("err");
  std::string err;
  ASSERT_EQ(run_to_end(s, &err), 0) << err;
  EXPECT_EQ(read_file(dir.str("out")), "out\n");
  EXPECT_EQ(read_file(dir.str("err")), "err\n");
}

TEST(Process, ASignalIsNamed) {
  std::string err;
  EXPECT_EQ(run_to_end(sh("kill -KILL $$"), &err), -1);
  EXPECT_EQ(err, "sh killed by signal 9");
}

TEST(Process, WaitUntilGivesUpAtTheDeadlineAndKillReaps) {
  std::string err;
  pid_t pid = spawn(sh("sleep 10"), &err);
  ASSERT_GT(pid, 0) << err;
  int status = 0;
  long long start = now_ms();
  EXPECT_FALSE(wait_until(pid, start + 100, &status));
  EXPECT_GE(now_ms() - start, 100);
  kill_and_reap(pid);
  EXPECT_EQ(waitpid(pid, &status, WNOHANG), -1);  // already reaped
}

TEST(Process, WaitUntilReturnsTheStatus) {
  std::string err;
  pid_t pid = spawn(sh("exit 7"), &err);
  ASSERT_GT(pid, 0) << err;
  int status = 0;
  ASSERT_TRUE(wait_until(pid, now_ms() + 10000, &status));
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST(FileIo, WritesWithTheModeAndReadsBack) {
  test::TempDir dir;
  std::string p = dir.str("f");
  ASSERT_TRUE(write_file(p, std::string("a\0b", 3), 0755));
  bool ok = false;
  EXPECT_EQ(read_file(p, &ok), std::string("a\0b", 3));
  EXPECT_TRUE(ok);
  EXPECT_EQ(std::filesystem::status(p).permissions() & std::filesystem::perms::all,
            std::filesystem::perms(0755));
  EXPECT_FALSE(write_file(dir.str("no/such/dir"), "x"));
  EXPECT_EQ(read_file(dir.str("missing"), &ok), "");
  EXPECT_FALSE(ok);
}

}  // namespace
}  // namespace xtap::process
