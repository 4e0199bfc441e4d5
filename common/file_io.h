// Whole-file reads and writes.
#pragma once

#include <string>

namespace xtap {

// The file's bytes; "" and *ok = false if it cannot be read.
std::string read_file(const std::string &path, bool *ok = nullptr);

// Writes (truncating) with `mode`; false on any error.
bool write_file(const std::string &path, const std::string &data, int mode = 0644);

}  // namespace xtap
