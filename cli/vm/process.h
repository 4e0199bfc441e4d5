// Child processes for the VM runner: spawn with redirections, wait with a
// deadline, kill.
#ifndef XTAP_VM_PROCESS_H
#define XTAP_VM_PROCESS_H

#include <string>
#include <sys/types.h>
#include <vector>

namespace xtap::vm {

struct SpawnSpec {
  std::vector<std::string> argv; // argv[0] is looked up in PATH
  std::string cwd;               // empty: inherit
  std::string stdin_path = "/dev/null";
  std::string stdout_path = "/dev/null"; // truncated
  std::string stderr_path = "/dev/null"; // may equal stdout_path: shared
};

// The child's pid, or -1 with *error set.
pid_t spawn(const SpawnSpec& spec, std::string* error);

// Waits for pid until deadline_ms (milliseconds since an arbitrary epoch,
// see now_ms()); returns true and the wait status when it ended.
bool wait_until(pid_t pid, long long deadline_ms, int* status);

// Runs to completion; the exit code, or -1 if it could not start or was
// killed by a signal (*error says which).
int run_to_end(const SpawnSpec& spec, std::string* error);

// SIGKILL and reap.
void kill_and_reap(pid_t pid);

long long now_ms();

std::string read_file(const std::string& path, bool* ok = nullptr);
bool write_file(const std::string& path, const std::string& data, int mode = 0644);

// True if path is an ELF file with a PT_INTERP header (dynamically linked).
bool is_dynamic_elf(const std::string& path);

} // namespace xtap::vm

#endif
