// The target's system call numbers and entry points, from the headers Kbuild
// generated for its architecture: `__NR_<name>` in
// arch/<ARCH>/include/generated/uapi/asm/unistd_64.h (the native 64-bit ABI),
// and the table `__SYSCALL(<nr>, <entry>)` in
// arch/<ARCH>/include/generated/asm/syscalls_64.h, which names the function
// behind a number when it differs ("umount2" is sys_umount, "mmap" sys_mmap).
#pragma once

#include <string>
#include <vector>

namespace xtap::kcatalog {

struct SyscallEntry {
  int nr = -1;
  std::string name;   // "umount2": the __NR_ name users know
  std::string entry;  // "sys_umount": the function whose prototype we want
};

bool read_syscall_table(const std::string &build_dir, const std::string &arch,
                        std::vector<SyscallEntry> *table, std::string *error);

// The parsers, for tests: `#define __NR_name N` lines, and `__SYSCALL*(N, entry)` lines.
std::vector<SyscallEntry> parse_unistd(const std::string &text);
std::vector<SyscallEntry> parse_syscall_entries(const std::string &text);

}  // namespace xtap::kcatalog
