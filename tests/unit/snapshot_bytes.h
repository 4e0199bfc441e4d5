// A byte-string builder for hand-made snapshot dumps (runner_snapshot_test,
// merge_test): values appended in the module's native layout.
#pragma once

#include <cstdint>
#include <string>

namespace xtap::test {

struct Bytes {
  std::string b;
  template <typename T>
  Bytes &raw(const T &v) {
    b.append(reinterpret_cast<const char *>(&v), sizeof(v));
    return *this;
  }
  Bytes &str(const std::string &s) {
    raw(uint32_t(s.size()));
    b += s;
    return *this;
  }
  Bytes &s64(int64_t v) { return raw(v); }
};

}  // namespace xtap::test
