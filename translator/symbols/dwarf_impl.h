// What dwarf.cpp and dwarf_vars.cpp share: the libdwfl session of one
// debuginfo file.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbols/dwarf.h"

namespace xtap {

struct KernelDwarf::Impl {
  Dwfl *dwfl = nullptr;
  Dwfl_Module *mod = nullptr;
  Dwarf *dw = nullptr;
  Dwarf_Addr bias = 0;
  std::string build_id;
  // The ELF symbol table, read on first use by the globals' lookups.
  struct Symbol {
    std::string name;
    uint64_t addr = 0, size = 0;
    unsigned shndx = 0;
  };
  void read_symbols();  // symbols/dwarf_globals.cpp
  bool symbols_read = false;
  std::vector<Symbol> symbols;  // sorted by address
  std::unordered_map<std::string, int> symbol_count;
  std::map<std::string, std::vector<DwarfGlobal>> globals_found;  // by "name@file"
  ~Impl() {
    if (dwfl) dwfl_end(dwfl);
  }
};

}  // namespace xtap
