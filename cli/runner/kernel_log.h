// What the kernel logs while one module loads: the runtime and the module
// loader say why a load failed (a missing symbol, a watchpoint refused) in
// the kernel log, which the user would otherwise have to find with dmesg.
#pragma once

#include <string>
#include <vector>

namespace xtap::runner {

class KernelLogTail {
 public:
  // Starts at the end of the log (/dev/kmsg): only records written from
  // now on are read. Without access to the log, lines_about() finds nothing.
  KernelLogTail();
  ~KernelLogTail();
  KernelLogTail(const KernelLogTail&) = delete;
  KernelLogTail& operator=(const KernelLogTail&) = delete;

  // The messages logged since construction that name module `name`, each
  // without its "...NAME: " prefix; reads what is there, never waits.
  std::vector<std::string> lines_about(const std::string& name);

 private:
  int fd_ = -1;
};

}  // namespace xtap::runner
