// What `xtap --vm` carries into the guest besides the module and the
// runner: the programs and libraries the script probes, the -c program,
// -d files, and everything they need to run (their interpreter and
// DT_NEEDED closure, common/shared_libs.h), at the same absolute paths, so
// that the uprobes the module places on those paths hit the files the
// guest's processes run.
//
// Each file goes in once, at its real path (symlinks resolved on the
// host); every other path it was named by (/lib64/ld-linux-x86-64.so.2,
// /bin/ls on a merged-/usr host) becomes a symlink to it in the guest, so
// that a probe on either name is a probe on the one inode the process
// maps. The host's /etc/ld.so.cache comes along with any dynamic program,
// so that the guest's loader finds the libraries where the host's did.
#ifndef XTAP_VM_CARRY_H
#define XTAP_VM_CARRY_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xtap::vm {

struct CarryRoot {
  std::string path;      // absolute, as the target sees it
  std::string named_by;  // for messages: "process(\"/x/prog\") at f.stp:3:7", "-c", "-d"
  // The -c program or a #! interpreter: where the guest has a file of its
  // own at that path (its busybox /bin/sh), that one runs instead. A probed
  // file there cannot be carried.
  bool guest_may_stand_in = false;
};

struct CarryPlan {
  std::vector<std::pair<std::string, std::string>> files;     // host path -> guest path
  std::vector<std::pair<std::string, std::string>> symlinks;  // guest path -> guest target
  uint64_t bytes = 0;                                         // of the files
  std::vector<std::string> notes;                             // files left to the guest's own
};

struct CarryError {
  std::string path, named_by, why, hint;
};

// The files for `roots`, read as sysroot + path; false with *err for the
// first file that cannot be carried (missing, not a program, a library it
// needs not found, a path the guest reserves, more than max_bytes in all).
bool plan_carry(const std::vector<CarryRoot> &roots, const std::string &sysroot, uint64_t max_bytes,
                CarryPlan *plan, CarryError *err);

}  // namespace xtap::vm

#endif
