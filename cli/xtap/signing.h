// Module signing for kernels that enforce signatures (module.sig_enforce,
// Secure Boot lockdown): the target kernel's own scripts/sign-file, with
// the hash algorithm its .config names (CONFIG_MODULE_SIG_HASH).
#pragma once

#include <string>

#include "kbuild/kbuild.h"

namespace xtap::cli {

// Checks --sign-key and --sign-cert before anything is built.
bool check_signing_files(const std::string &key, const std::string &cert, std::string *error);

// Signs the module file `ko` in place for kernel `t`.
bool sign_module(const kbuild::Target &t, const std::string &key, const std::string &cert,
                 const std::string &ko, std::string *error);

// Copies the built module `ko` to `out`, without its DWARF if `strip`,
// signed if `key` is not empty.
bool prepare_module_copy(const kbuild::Target &t, const std::string &ko, const std::string &out,
                         bool strip, const std::string &key, const std::string &cert,
                         std::string *error);

}  // namespace xtap::cli
