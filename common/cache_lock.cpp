#include "common/cache_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace xtap {

// Without a lock file (a read-only cache) the build goes ahead unlocked:
// concurrent builders then race to the same rename, which is still safe.
CacheLock::CacheLock(const std::string &entry) {
  fd_ = open((entry + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ >= 0) flock(fd_, LOCK_EX);
}

CacheLock::~CacheLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace xtap
