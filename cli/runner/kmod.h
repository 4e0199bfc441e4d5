// Loading and unloading a module through the kernel's syscalls.
#pragma once

#include <string>

#include "common/modinfo.h"

namespace xtap::runner {

std::string kernel_release();

// Why the module cannot be inserted into the kernel `running` (it was built
// for another release), naming both kernels; "" when it can.
std::string wrong_kernel(const ModInfo& mi, const std::string& module_path,
                         const std::string& running);

// finit_module(); returns 0 or an errno, with a user-facing reason in *err.
// With `fd` >= 0 that open file is loaded; else with `image` non-empty,
// init_module() loads those bytes (an approved module, privilege.h).
int load_module(const std::string& path, const std::string& name, const std::string& params,
                std::string* err, int fd = -1, const std::string& image = "");

// delete_module(O_NONBLOCK), retried for a few seconds while still busy.
int unload_module(const std::string& name, std::string* err);

}  // namespace xtap::runner
