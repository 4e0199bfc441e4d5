// Whole-file reads and writes, with write errors reported (an ofstream
// would drop them silently).
#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace xtap {

std::string read_file(const std::string &path, bool *ok) {
  std::ifstream f(path, std::ios::binary);
  if (ok) *ok = bool(f);
  std::ostringstream ss;
  if (f) ss << f.rdbuf();
  return ss.str();
}

bool write_file(const std::string &path, const std::string &data, int mode) {
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
  fchmod(fd, mode);  // open's mode is filtered by the umask and ignored for an existing file
  return close(fd) == 0;
}

}  // namespace xtap
