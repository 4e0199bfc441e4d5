// stap's options that xtap accepts, maps or refuses (options_stap.cpp).
#pragma once

#include <string>
#include <vector>

#include "xtap/options.h"

namespace CLI {
class App;
}

namespace xtap::cli {

// What stap's options set that only matters for checking them.
struct StapOptions {
  bool accepted = false;                        // flags that change nothing in xtap
  std::vector<std::string> per_pass_verbosity;  // --vp
  std::string runtime, privilege, arch, prologue, color, tmpdir, runtime_dir;
  bool bpf = false, unprivileged = false, suppress_handler_errors = false;
  std::vector<std::string> kbuild_options, modinfo, server, download_debuginfo, sysenv;
  std::string target_namespace;
};

// Adds stap's options to `app` (their own --help group).
void add_stap_options(CLI::App &app, Options *o, StapOptions *s);
// After parsing: maps what maps into `o`; "" or why an option is refused.
std::string apply_stap_options(const CLI::App &app, Options *o, const StapOptions &s);
// argv[1] when it holds several options in one argument, as a #! line's
// "#!/usr/bin/xtap -p2 -g" passes them; else "".
std::string several_options_in_one(int argc, char **argv);

}  // namespace xtap::cli
