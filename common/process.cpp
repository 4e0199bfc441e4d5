// Child processes: fork/exec with the redirections opened in the parent and
// exec failures reported back through a close-on-exec pipe.
#include "common/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace xtap::process {

long long now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

pid_t spawn(const SpawnSpec &spec, std::string *error) {
  if (spec.argv.empty()) {
    if (error) *error = "empty command";
    return -1;
  }
  std::vector<char *> argv = exec_argv(spec.argv);
  // Open everything before fork so that failures are reported here.
  int in = open(spec.stdin_path.c_str(), O_RDONLY | O_CLOEXEC);
  int out = open(spec.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = spec.stderr_path == spec.stdout_path
                ? (out >= 0 ? fcntl(out, F_DUPFD_CLOEXEC, 0) : -1)
                : open(spec.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (in < 0 || out < 0 || err < 0) {
    if (error) *error = "cannot open redirection for " + spec.argv[0] + ": " + std::strerror(errno);
    for (int fd : {in, out, err})
      if (fd >= 0) close(fd);
    return -1;
  }
  // The child writes its errno here if chdir or exec fails; a successful
  // exec closes the pipe, and the parent reads nothing.
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
  ssize_t n;
  while ((n = read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (n == sizeof child_errno) {
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (error) {
      *error = "cannot run " + spec.argv[0];
      if (!spec.cwd.empty()) *error += " in " + spec.cwd;
      *error += std::string(": ") + std::strerror(child_errno);
    }
    return -1;
  }
  return pid;
}

bool wait_until(pid_t pid, long long deadline_ms, int *status) {
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;
    if (now_ms() >= deadline_ms) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

int run_to_end(const SpawnSpec &spec, std::string *error) {
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

std::vector<char *> exec_argv(const std::vector<std::string> &args) {
  std::vector<char *> argv;
  argv.reserve(args.size() + 1);
  for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  return argv;
}

}  // namespace xtap::process
