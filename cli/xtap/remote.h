// xtap --remote: build for each host's kernel here, run there over ssh,
// stream the output back (docs/fleet.md, "Remote hosts").
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "xtap/options.h"

namespace xtap::cli {

// Asks every --remote host for its kernel release and build-id, builds the
// script for each release with `compile` (as `xtap -p4 -r RELEASE`), copies
// the module and a static xtap-run to a temporary directory on each host,
// runs them there with `runner_args` in parallel and relays their output
// (prefixed by host when there are several). SIGINT, SIGTERM or SIGHUP
// end every session cleanly. Returns the host's exit status for one host;
// for several, 0 when all succeeded, else the first failure's.
int run_remote(const Options &o, const std::vector<std::string> &runner_args,
               const std::function<int(const Options &)> &compile);

}  // namespace xtap::cli
