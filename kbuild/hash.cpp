// The cache keys of the Kbuild driver.
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

}  // namespace xtap::kbuild
