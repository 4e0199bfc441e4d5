// libFuzzer target over passes 1-2 (frontend_entry.h). Built only with
// -DXTAP_FUZZ=ON and clang (tests/fuzz/CMakeLists.txt); run it through
// tests/fuzz/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  xtap::fuzz::run_frontend(std::string(reinterpret_cast<const char *>(data), size));
  return 0;
}
