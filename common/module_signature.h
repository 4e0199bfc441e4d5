// Whether a module file carries an appended signature: the kernel's format
// is the module, a PKCS#7 blob, a struct module_signature and the marker
// "~Module signature appended~\n" (include/linux/module_signature.h).
#pragma once

#include <string>
#include <string_view>

namespace xtap {

inline constexpr std::string_view kModuleSignatureMarker = "~Module signature appended~\n";

// True if `module` (a whole .ko file's bytes) ends with the marker.
inline bool has_module_signature(std::string_view module) {
  return module.size() >= kModuleSignatureMarker.size() &&
         module.substr(module.size() - kModuleSignatureMarker.size()) == kModuleSignatureMarker;
}

}  // namespace xtap
