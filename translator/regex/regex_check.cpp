// Pass 2's check of a regular expression: the runtime's own compiler
// (runtime-kmod/regex_compile.c, built for user space by runtime_regex.c)
// compiles the pattern, so a pattern accepted here compiles in the kernel
// and the messages are the compiler's, worded for the script's author.
#include "regex/regex_check.h"

#include <cstring>

#include "regex/runtime_regex.h"

namespace xtap {

RegexCheck analyze_regex(const std::string &re) {
  RegexCheck r;
  // The runtime sees the pattern as a C string: it ends at the first NUL.
  size_t nul = strlen(re.c_str());
  if (nul < re.size()) {
    r.error = "NUL character in the pattern (a pattern ends at its first NUL)";
    r.offset = nul;
    return r;
  }
  xtap_userspace_regex out{};
  if (!xtap_userspace_regex_check(re.c_str(), &out)) {
    r.error = out.error;
    r.offset = out.offset;
    return r;
  }
  r.instructions = out.instructions;
  r.groups = int(out.groups);
  return r;
}

std::string check_regex(const std::string &re, size_t *offset) {
  RegexCheck r = analyze_regex(re);
  *offset = r.offset;
  return r.error;
}

}  // namespace xtap
