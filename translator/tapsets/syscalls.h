// The syscall tapset, generated from the target kernel's catalog: for every
// system call of the native ABI, the aliases syscall.NAME and
// syscall.NAME.return (with nd_syscall.* twins) on the per-syscall events
// of the raw_syscalls tracepoints, setting the variables stap users know
// (name, argstr, the named arguments, retval, retstr); plus syscall_any,
// syscall_any.return and syscall_name(). Calls whose flags stap decodes use
// the hand-written helpers of tapsets/syscall_decode.stp; the others get
// generic formatting by C type. docs/tapsets.md describes the result.
#pragma once

#include <string>

namespace xtap {

class KernelCatalog;

// The tapset's script text for `cat`.
std::string generate_syscall_tapset(const KernelCatalog &cat);

// True if a probe point whose first component is `first` (a glob) needs
// the generated tapset (syscall, syscall_any, nd_syscall, nd_syscall_any).
bool names_syscall_tapset(const std::string &first);

}  // namespace xtap
