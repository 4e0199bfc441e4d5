// Scanning a guest kernel log for signs of kernel trouble.
#include "vm/vm.h"

#include <regex>
#include <sstream>

namespace xtap::vm {

std::vector<std::string> scan_kernel_problems(const std::string& log) {
  // What any run must not produce: oopses, BUG()s, WARN()s, lockups, RCU
  // stalls, hung tasks, sanitizer reports, panics.
  static const std::regex kProblem(
      R"(BUG:|Oops|WARNING:|soft lockup|hard LOCKUP|RCU stall|rcu_\w+ (self-)?detected stall|)"
      R"(detected stalls on CPU|general protection|Call Trace|Kernel panic|)"
      R"(blocked for more than \d+ seconds|UBSAN:|KASAN:|kernel BUG)");
  std::vector<std::string> out;
  std::istringstream ss(log);
  std::string line;
  while (std::getline(ss, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, kProblem)) out.push_back(line);
  }
  return out;
}

}  // namespace xtap::vm
