// `--vm`: the user's files that go into the guest for this run
// (vm/carry.h), found before the module is built so that a file that
// cannot go fails the run at once, with XTP2261.
#pragma once

#include <string>

#include "passes/passes.h"
#include "vm/carry.h"
#include "xtap/options.h"

namespace xtap::cli {

struct VmFiles {
  vm::CarryPlan plan;
  std::string command;  // -c CMD for the guest (its program by the path the host found)
  std::string cwd;      // the guest directory the job runs in: this one's
};

// The files the script's process probes name (and the programs of their
// .library probes), the -c program, the -d files, with what they need to
// run. False after printing why one cannot be carried.
bool plan_vm_files(const Options &o, const Elaborated &e, const std::string &sysroot, VmFiles *out);

}  // namespace xtap::cli
