// The target kernel's compile flags, as Kbuild hands them to a module, turned
// into arguments Clang accepts: include paths, forced includes, macros, the C
// dialect and the few machine options that change predefined macros. The
// kernel is built with gcc; its code-generation and warning flags are
// dropped (Clang rejects many and none of them changes a declaration).
#pragma once

#include <string>
#include <vector>

namespace xtap::kcatalog {

struct KernelFlags {
  std::vector<std::string> args;          // for Clang; every path absolute
  std::vector<std::string> include_dirs;  // the -I directories, in order
  std::string arch;                       // "x86", from arch/<ARCH>/include
};

// Compiles a one-line module through the kernel's Kbuild in `work_dir` and
// returns the compiler command Kbuild used (from its .<name>.o.cmd file).
bool kbuild_compile_command(const std::string &build_dir, const std::string &work_dir, bool verbose,
                            std::string *command, std::string *error);

// The command of a Kbuild .cmd file ("cmd_X := ..." or "savedcmd_X := ..."),
// or `text` itself when it is a bare command line.
std::string command_from_cmd_file(const std::string &text);

// Keeps what changes declarations; relative paths are made absolute against
// `build_dir` (Kbuild runs the compiler there).
bool clang_flags_from_command(const std::string &command, const std::string &build_dir,
                              KernelFlags *flags, std::string *error);

}  // namespace xtap::kcatalog
