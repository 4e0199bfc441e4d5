// Names for the syscall parameters that include/linux/syscalls.h leaves
// unnamed (`asmlinkage long sys_socket(int, int, int);`): the names of the
// kernel's SYSCALL_DEFINEs, which its own syscalls:sys_enter_* events show.
#pragma once

#include <string>

namespace xtap {

struct KSyscall;

// Parameter i of `sc`: its name in the prototype, else the SYSCALL_DEFINE
// name of x86-64's definition, else "argN" (from 1).
std::string syscall_param_name(const KSyscall &sc, size_t i);

}  // namespace xtap
