// The dynamic linking of a user-space x86-64 ELF program or shared library,
// for process("PATH").plt("NAME") and .library("*"): its PLT entries (each
// stub a call into another object jumps through, with the symbol it is
// for) and the libraries it needs (DT_NEEDED). Read with libelf.
//
// A PLT entry is found by decoding its stub: every layout GNU ld and lld
// emit (lazy .plt, .plt.sec of IBT, .plt.got) ends an entry's first
// instructions in `jmp *DISP(%rip)` through a GOT slot, and the slot's
// JUMP_SLOT (or GLOB_DAT) relocation names the symbol. The entry a caller
// jumps to is the one probed: .plt.sec's when the file has one, else
// .plt's (whose entries then hold the lazy-binding push and jump).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xtap {

struct PltEntry {
  std::string name;      // the symbol it calls, without a version ("malloc")
  uint64_t address = 0;  // link-time address of the stub callers jump to
  uint64_t offset = 0;   // its file offset: where the uprobe goes
};

struct ElfLinkage {
  std::vector<PltEntry>
      plt;  // by address; entries whose slot has no symbol (IRELATIVE) are left out
  std::vector<std::string> needed;  // DT_NEEDED, in order ("libc.so.6")
};

// Reads `path`; nullopt with *why ("not an ELF file", "not an x86-64 ELF
// file") when it cannot. A static program has neither PLT nor DT_NEEDED.
std::optional<ElfLinkage> read_elf_linkage(const std::string &path, std::string *why);

}  // namespace xtap
