// Child processes and small file helpers for the VM runner.
#include "vm/process.h"
#include "vm/vm.h"

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace xtap::vm {

long long now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

pid_t spawn(const SpawnSpec& spec, std::string* error) {
  if (spec.argv.empty()) {
    if (error) *error = "empty command";
    return -1;
  }
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // Open everything before fork so that failures are reported here.
  int in = open(spec.stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
  int out = open(spec.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = spec.stderr_path == spec.stdout_path
                ? dup(out)
                : open(spec.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (in < 0 || out < 0 || err < 0) {
    if (error) *error = "cannot open redirection for " + spec.argv[0] + ": " + std::strerror(errno);
    for (int fd : {in, out, err})
      if (fd >= 0) close(fd);
    return -1;
  }
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    if (error) *error = std::string("pipe: ") + std::strerror(errno);
    close(in), close(out), close(err);
    return -1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) {
      int e = errno;
      (void)!write(report[1], &e, sizeof e);
      _exit(127);
    }
    dup2(in, 0), dup2(out, 1), dup2(err, 2);
    execvp(argv[0], argv.data());
    int e = errno;
    (void)!write(report[1], &e, sizeof e);
    _exit(127);
  }
  close(in), close(out), close(err);
  close(report[1]);
  if (pid < 0) {
    close(report[0]);
    if (error) *error = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  int child_errno = 0;
  ssize_t n = read(report[0], &child_errno, sizeof child_errno);
  close(report[0]);
  if (n == sizeof child_errno) {
    int st;
    waitpid(pid, &st, 0);
    if (error) *error = "cannot run " + spec.argv[0] + ": " + std::strerror(child_errno);
    return -1;
  }
  return pid;
}

bool wait_until(pid_t pid, long long deadline_ms, int* status) {
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;
    if (now_ms() >= deadline_ms) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int run_to_end(const SpawnSpec& spec, std::string* error) {
  pid_t pid = spawn(spec, error);
  if (pid < 0) return -1;
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (error) *error = spec.argv[0] + " killed by signal " + std::to_string(WTERMSIG(st));
  return -1;
}

void kill_and_reap(pid_t pid) {
  kill(pid, SIGKILL);
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
}

std::string read_file(const std::string& path, bool* ok) {
  std::ifstream f(path, std::ios::binary);
  if (ok) *ok = bool(f);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool write_file(const std::string& path, const std::string& data, int mode) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(fd);
      return false;
    }
    done += size_t(n);
  }
  fchmod(fd, mode);
  return close(fd) == 0;
}

bool is_dynamic_elf(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!f.read(reinterpret_cast<char*>(&eh), sizeof eh)) return false;
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
    return false;
  for (int i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph{};
    f.seekg(std::streamoff(eh.e_phoff + uint64_t(i) * eh.e_phentsize));
    if (!f.read(reinterpret_cast<char*>(&ph), sizeof ph)) return false;
    if (ph.p_type == PT_INTERP) return true;
  }
  return false;
}

std::string sibling_program(const std::string& name) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string self(buf, size_t(n));
  std::string path = self.substr(0, self.rfind('/') + 1) + name;
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

} // namespace xtap::vm
