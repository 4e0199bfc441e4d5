// Checks a POSIX extended regular expression (the dialect of =~ and !~) at
// translation time, so that a bad pattern is a pass-2 error with a location
// instead of a failure when the module starts. The check is the runtime's
// own compiler (runtime-kmod/regex_compile.c) run in user space: one
// grammar, one set of limits (runtime-kmod/include/xtap/limits.h), one set
// of messages.
#pragma once

#include <cstdint>
#include <string>

namespace xtap {

struct RegexCheck {
  std::string error;  // "" when the pattern is valid
  size_t offset = 0;  // where the error is, as a byte offset into the pattern
  // Valid patterns: the size of the runtime's program (at most
  // XTAP_RE_MAX_INST) and the number of capturing groups.
  uint64_t instructions = 0;
  int groups = 0;
};

RegexCheck analyze_regex(const std::string &re);

// "" when `re` is valid; otherwise what is wrong, and *offset where.
std::string check_regex(const std::string &re, size_t *offset);

}  // namespace xtap
