// The cache keys of the Kbuild driver, and what they are made from.
#include <sys/stat.h>
#include <sys/utsname.h>

#include <cstdint>
#include <cstdio>

#include "kbuild/kbuild.h"

namespace xtap::kbuild {

std::string hash_hex(const std::string &data) {
  // FNV-1a, 64-bit, twice with different seeds for a 128-bit key: a cache
  // key, not a security boundary.
  auto fnv = [&](uint64_t h) {
    for (unsigned char c : data) {
      h ^= c;
      h *= 1099511628211ull;
    }
    return h;
  };
  char buf[40];
  snprintf(buf, sizeof buf, "%016llx%016llx",
           static_cast<unsigned long long>(fnv(14695981039346656037ull)),
           static_cast<unsigned long long>(fnv(0x84222325cbf29ce4ull ^ data.size())));
  return buf;
}

std::string file_identity(const std::string &path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "missing";
  return path + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec);
}

bool is_running_kernel(const std::string &release) {
  struct utsname u {};
  return uname(&u) == 0 && release == u.release;
}

}  // namespace xtap::kbuild
