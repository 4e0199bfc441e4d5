// Pass 3: the symbol and line tables of user-space programs and libraries
// that usymname(), ubacktrace() and friends read at run time
// (runtime-kmod/user_symbols.c). Emitted only for scripts that call them,
// for the files the script names: its process("PATH") probes, the -c
// command's program, -d FILE, --ldd (the shared libraries those need), and
// libc. Addresses are file offsets, so a table serves wherever the file is
// mapped; the runtime ties each to its file's inode when the module loads.
#pragma once

#include <string>
#include <vector>

#include "passes/passes.h"

namespace xtap {

// The program `cmd` (-c) runs, as a path on the target: its first word,
// through $PATH (under sysroot) when it has no '/'; "" when not found.
std::string command_program(const std::string &cmd, const std::string &sysroot);

// What a script asks for: nothing, symbols, or symbols and line tables.
enum class UserSymbolUse { None, Symbols, Lines };
UserSymbolUse user_symbol_use(const Script &s);
// Does the script walk user stacks (ubacktrace(), print_ubacktrace(),
// ucallers() ...)? Then the tables carry each file's call-frame
// information too, and the files include the programs' shared libraries.
bool user_stack_use(const Script &s);

// Where the files come from besides the script's own probes.
struct UserSymbolSources {
  std::string command;               // -c CMD: its first word is a program
  std::vector<std::string> modules;  // -d MODULE: the paths among them (names are kernel modules)
  bool ldd = false;     // --ldd: add the shared libraries each file needs, as ld.so finds them
  std::string sysroot;  // --sysroot: where the files are read on this machine
};

// The files whose tables the module carries, as paths on the target,
// each once; *notes gets one line per file that was left out and why.
std::vector<std::string> user_symbol_files(const Elaborated &e, const UserSymbolSources &src,
                                           std::vector<std::string> *notes);

// What the tables of emit_user_symbol_tables() carry besides symbols.
struct UserTableParts {
  bool lines = false;  // line tables (usymfileline())
  bool cfi = false;    // call-frame information (user stacks, symbols/user_cfi.h)
};

// The C tables and the xtap_ubinaries array for `files`; *notes as above.
// Empty when `files` is.
std::string emit_user_symbol_tables(const std::vector<std::string> &files, UserTableParts parts,
                                    const std::string &sysroot, std::vector<std::string> *notes);

}  // namespace xtap
