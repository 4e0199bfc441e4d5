// Bundles (docs/fleet.md): one script built for several kernel releases,
// `xtap -p4 --kernels A,B -o DIR script.stp`, into
//
//   DIR/manifest.json        what was built: script, xtap version, and per
//                            module its kernel release, vermagic, kernel
//                            build-id, probe points and signature status
//   DIR/RELEASE/NAME.ko      one module per release, all named NAME
//
// `xtap-run DIR` picks the module for the kernel it runs on.
#pragma once

#include <functional>

#include "xtap/options.h"

namespace xtap::cli {

// Runs `compile` (passes 1-4 for one kernel, as `xtap -p4 -r RELEASE`) for
// each of o.kernels in a child process, in parallel up to the number of
// CPUs, then writes the manifest. Returns the exit code: 0 when every
// kernel's module was built.
int build_bundle(const Options &o, const std::function<int(const Options &)> &compile);

// The one module name of a script built for several kernels (a bundle, or
// --remote hosts): -m NAME, else xtap_ and a hash of the script, its
// arguments and -D options. "" and *error when the script cannot be read.
std::string fleet_module_name(const Options &o, std::string *error);

}  // namespace xtap::cli
