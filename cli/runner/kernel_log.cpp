#include "runner/kernel_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace xtap::runner {

KernelLogTail::KernelLogTail() {
  fd_ = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ >= 0 && lseek(fd_, 0, SEEK_END) < 0) {
    close(fd_);
    fd_ = -1;
  }
}

KernelLogTail::~KernelLogTail() {
  if (fd_ >= 0) close(fd_);
}

std::vector<std::string> KernelLogTail::lines_about(const std::string& name) {
  std::vector<std::string> out;
  if (fd_ < 0 || name.empty()) return out;
  const std::string tag = name + ": ";
  char buf[8192];
  // One record a read: "PRIO,SEQ,USEC,FLAGS;TEXT\n" then " KEY=VALUE" lines.
  for (int records = 0; records < 1000; ++records) {
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EPIPE) continue;  // records overwritten meanwhile: go on
    if (n <= 0) break;                      // EAGAIN: nothing more yet
    std::string rec(buf, static_cast<size_t>(n));
    size_t semi = rec.find(';');
    if (semi == std::string::npos) continue;
    std::string text = rec.substr(semi + 1, rec.find('\n', semi) - semi - 1);
    size_t at = text.find(tag);
    if (at == std::string::npos) continue;
    out.push_back(text.substr(at + tag.size()));
  }
  return out;
}

}  // namespace xtap::runner
