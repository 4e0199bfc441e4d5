// Programs installed next to the running one (xtap finds its xtap-run).
#include "common/install_paths.h"
#include "vm/vm.h"

namespace xtap::vm {

std::string sibling_program(const std::string& name) { return install::helper_program(name); }

}  // namespace xtap::vm
