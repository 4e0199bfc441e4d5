#include "runner/output_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include "runner/privilege.h"

namespace xtap::runner {

bool parse_switch_spec(const std::string &spec, uint64_t *size_mb, unsigned *keep,
                       std::string *err) {
  char *end = nullptr;
  errno = 0;
  unsigned long long size = std::strtoull(spec.c_str(), &end, 10);
  unsigned long long n = 0;
  bool ok = end != spec.c_str() && errno == 0 && spec[0] != '-' && size <= (1ull << 20);
  if (ok && *end == ',') {
    const char *num = end + 1;
    n = std::strtoull(num, &end, 10);
    ok = end != num && *num != '-' && errno == 0 && n >= 1 && n <= 1000000;
  }
  if (!ok || *end) {
    *err = "-S " + spec +
           ": use -S SIZE[,N]: switch output files every SIZE megabytes "
           "(0: only at switch_file()), keeping the last N";
    return false;
  }
  *size_mb = size;
  *keep = static_cast<unsigned>(n);
  return true;
}

OutputFiles::~OutputFiles() { close(); }

std::string OutputFiles::current() const {
  return rotate_ ? path_ + "." + std::to_string(index_) : path_;
}

bool OutputFiles::open_current(std::string *err) {
  std::string name = current();
  AsCaller user;  // a setuid xtap-run writes only where the user may
  fd_ = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    *err = "cannot open " + name + ": " + std::strerror(errno);
    fd_ = -1;
    return false;
  }
  written_ = 0;
  return true;
}

bool OutputFiles::open(const std::string &path, bool rotate, uint64_t size_mb, unsigned keep,
                       std::string *err) {
  path_ = path;
  rotate_ = rotate && !path.empty();
  limit_ = size_mb << 20;
  keep_ = keep;
  index_ = 0;
  if (path.empty()) {
    fd_ = 1;
    return true;
  }
  return open_current(err);
}

bool OutputFiles::write(const char *p, size_t n) {
  std::lock_guard<std::mutex> hold(mu_);
  if (fd_ < 0) return false;
  size_t off = 0;
  while (off < n) {
    ssize_t w = ::write(fd_, p + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    off += size_t(w);
  }
  written_ += n;
  return true;
}

bool OutputFiles::full_before(size_t pending, size_t n) const {
  uint64_t used = written_ + pending;
  return rotate_ && limit_ && used > 0 && used + n > limit_;
}

bool OutputFiles::next(std::string *err) {
  if (!rotate_) return true;  // no -S: one file, as stap
  std::lock_guard<std::mutex> hold(mu_);
  if (fd_ > 1) ::close(fd_);
  fd_ = -1;
  ++index_;
  // -S SIZE,N: the file N back from the new one goes.
  AsCaller user;
  if (keep_ && index_ >= keep_) ::unlink((path_ + "." + std::to_string(index_ - keep_)).c_str());
  return open_current(err);
}

void OutputFiles::close() {
  if (fd_ > 1) ::close(fd_);
  fd_ = -1;
}

}  // namespace xtap::runner
