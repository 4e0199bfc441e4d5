// xtap-run BUNDLE: a directory written by `xtap -p4 --kernels ... -o DIR`
// (docs/fleet.md). Its manifest.json lists one module per kernel release,
// with the kernel's build-id; the module for the running kernel is the one
// whose release and build-id both match.
#pragma once

#include <string>

namespace xtap::runner {

// True if `path` is a directory holding a manifest.json.
bool is_bundle(const std::string& path);

// The module in bundle `dir` for a kernel with `release` and `build_id`
// (build_id "" when the kernel's cannot be read: release alone decides).
// On failure *error says why: no module for this release (naming the
// releases the bundle has), a different build of the release, or a
// malformed manifest.
bool pick_from_bundle(const std::string& dir, const std::string& release,
                      const std::string& build_id, std::string* module, std::string* error);

}  // namespace xtap::runner
