// Programs installed next to the running one (xtap finds its xtap-run).
#include <limits.h>
#include <unistd.h>

#include "vm/vm.h"

namespace xtap::vm {

std::string sibling_program(const std::string& name) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string self(buf, size_t(n));
  std::string path = self.substr(0, self.rfind('/') + 1) + name;
  return access(path.c_str(), X_OK) == 0 ? path : "";
}

}  // namespace xtap::vm
