// Checking a module's appended signature in user space (libcrypto), for
// the setuid path of xtap-run: the kernel's own check trusts the kernel's
// keyring, this one the administrator's /etc/xtap/trusted-certs.
#pragma once

#include <string>
#include <vector>

namespace xtap::runner {

// The certificates (PEM or DER, one a file) in the already opened trusted
// directory `dir_fd`; each file root's and not group/other writable.
// "" or why not.
std::string read_trusted_certs(int dir_fd, std::vector<std::string>* certs);

// "" when `module` (a whole .ko) ends in a PKCS#7 signature over the rest
// that one of `certs` made; otherwise what is wrong.
std::string verify_module_signature(const std::string& module,
                                    const std::vector<std::string>& certs);

}  // namespace xtap::runner
