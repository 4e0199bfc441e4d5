// Checks the syntax of a POSIX extended regular expression (the dialect of
// =~ and !~) at translation time, so that a bad pattern is a pass-2 error
// with a location instead of a failure when the module starts.
#pragma once

#include <string>

namespace xtap {

// "" when `re` is valid; otherwise what is wrong, and *offset where.
std::string check_regex(const std::string &re, size_t *offset);

}  // namespace xtap
