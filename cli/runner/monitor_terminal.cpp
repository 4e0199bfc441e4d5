// xtap-run --monitor on its own terminal (monitor_terminal.h).
#include "runner/monitor_terminal.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "runner/snapshot.h"

namespace xtap::runner {

bool MonitorTerminal::start(const std::string &dir, const std::string &title, double interval_s,
                            const std::string &output_file, std::string *why_not) {
  if (!isatty(STDOUT_FILENO)) {
    *why_not = "standard output is not a terminal: plain output";
    return false;
  }
  // Keys come from the terminal even when standard input is redirected.
  keys_fd_ = isatty(STDIN_FILENO) ? dup(STDIN_FILENO) : ::open("/dev/tty", O_RDONLY | O_CLOEXEC);
  int fds[2];
  if (keys_fd_ < 0 || pipe2(fds, O_CLOEXEC) != 0) {
    *why_not = "no terminal to read keys from";
    if (keys_fd_ >= 0) ::close(keys_fd_), keys_fd_ = -1;
    return false;
  }
  saved_out_ = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  monitor::ViewOptions vo;
  vo.title = title;
  vo.interval_s = interval_s;
  vo.output_fd = fds[0];
  if (!output_file.empty()) vo.output_note = "the script's output goes to " + output_file;
  monitor::Source src;
  src.names = [dir](std::string *err) { return read_snapshot_names(dir, err); };
  src.snapshot = [dir](const SnapNames &n, std::string *err) { return read_snapshot(dir, n, err); };
  // The session's signalfd takes it: the same stop as Ctrl-C.
  src.quit = [] { kill(getpid(), SIGTERM); };
  if (!view_.start(keys_fd_, saved_out_, vo, src, why_not)) {
    for (int fd : {fds[0], fds[1], saved_out_, keys_fd_}) ::close(fd);
    saved_out_ = keys_fd_ = -1;
    return false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  saved_err_ = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  dup2(fds[1], STDOUT_FILENO);
  dup2(fds[1], STDERR_FILENO);
  ::close(fds[1]);
  pipe_rd_ = fds[0];
  active_ = true;
  return true;
}

void MonitorTerminal::stop() {
  if (!active_) return;
  active_ = false;
  std::fflush(stdout);
  std::fflush(stderr);
  // The terminal first, so that nothing written from here on is lost;
  // the pipe's last bytes are read by the view's stop().
  dup2(saved_out_, STDOUT_FILENO);
  dup2(saved_err_, STDERR_FILENO);
  std::string rest = view_.stop();
  (void)!::write(STDOUT_FILENO, rest.data(), rest.size());
  for (int *fd : {&saved_out_, &saved_err_, &keys_fd_, &pipe_rd_})
    if (*fd >= 0) ::close(*fd), *fd = -1;
}

}  // namespace xtap::runner
