// Child processes: spawn with redirections, wait with a deadline, kill.
// Used by the Kbuild driver (make) and the VM support (qemu, cpio).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace xtap::process {

struct SpawnSpec {
  std::vector<std::string> argv{};  // argv[0] is looked up in PATH
  std::string cwd{};                // empty: inherit
  std::string stdin_path = "/dev/null";
  std::string stdout_path = "/dev/null";  // truncated
  std::string stderr_path = "/dev/null";  // may equal stdout_path: shared
};

// The child's pid, or -1 with *error set. A program that cannot be run
// (missing, not executable, a bad cwd) fails here rather than in the child.
pid_t spawn(const SpawnSpec &spec, std::string *error);

// Waits for pid until deadline_ms (on the now_ms() clock); true with the
// wait status when it ended.
bool wait_until(pid_t pid, long long deadline_ms, int *status);

// Runs to completion: the exit code, or -1 if it could not start or was
// killed by a signal (*error says which).
int run_to_end(const SpawnSpec &spec, std::string *error);

// SIGKILL and reap.
void kill_and_reap(pid_t pid);

// Milliseconds on a monotonic clock, from an arbitrary epoch.
long long now_ms();

// `args` as execv() takes them: pointers into the strings (which must
// outlive the result), then a null pointer.
std::vector<char *> exec_argv(const std::vector<std::string> &args);

}  // namespace xtap::process
