// Where an xtap program finds its data (tapsets/, runtime-kmod/,
// kbuild/features/) and its helper programs, whether it runs from a build
// tree or from an installation (docs/install.md).
#pragma once

#include <string>

namespace xtap::install {

// The directory of the running program; "" if /proc/self/exe is unreadable.
std::string program_dir();

// The data directory: $XTAP_DATADIR when set, else the source tree for the
// programs of the build tree (build/cli/), else PROGRAM_DIR/../share/xtap
// (an installed xtap, wherever it was installed to).
std::string datadir();

// A helper program (xtap-run, xtap-kcatalog): next to the running program,
// else in PROGRAM_DIR/../libexec/xtap; "" if it is in neither.
std::string helper_program(const std::string &name);

}  // namespace xtap::install
