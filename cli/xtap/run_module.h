// Pass 5: the built module run here through xtap-run, or in a throwaway VM
// with --vm; and what both take from the command line for the runner.
#pragma once

#include <string>
#include <vector>

#include "flamegraph/session.h"
#include "vm/vm.h"
#include "xtap/options.h"
#include "xtap/vm_files.h"

namespace xtap::cli {

// --folded or --flamegraph: the driver collects the stacks and writes them.
bool wants_flame_output(const Options &o);
// The flame graph outputs that --folded, --flamegraph, --flame-title, -o,
// --from-stacks and -q ask for.
flamegraph::OutputFiles flame_files(const Options &o);
// xtap-run's options for this command line (-c, -x, -T, -o, -S, -b, ...).
std::vector<std::string> runner_args(const Options &o);

// Runs `ko` on this machine (exec's xtap-run, unless stacks are collected).
int run_local(const Options &o, const std::string &ko);
// Runs `ko` in one boot of `k` with the user's files, streaming the job's
// output as it comes.
int run_in_vm(const Options &o, const vm::Kernel &k, const std::string &ko, const VmFiles &files);

}  // namespace xtap::cli
