// Expands the script's wildcard probe points (kprobe.function("vfs_*"))
// into kernel function names, from this kernel's /proc/kallsyms: the module
// cannot list symbols itself, so the runner hands them over at insertion.
#pragma once

#include <string>

#include "runner/modinfo.h"

namespace xtap::runner {

// The module parameter string ("xtap_symbols=0:vfs_read,0:vfs_write"), or
// "" when the module has no wildcard points. Fails (false, *err) when a
// pattern matches too many functions to register.
bool wildcard_params(const ModInfo& mi, const std::string& debugfs, std::string* params,
                     std::string* err);

}  // namespace xtap::runner
