// Running the kernel's make for the Kbuild driver.
#pragma once

#include <string>
#include <vector>

namespace xtap::kbuild {

// Runs `make ARGS...` with its output (stdout and stderr) in `log`; with
// `echo` (-vv), prints the command and then the log to stderr. Returns
// make's exit status, or -1 with *error set when make could not run at all.
int run_make(const std::vector<std::string> &args, const std::string &log, bool echo,
             std::string *error);

}  // namespace xtap::kbuild
