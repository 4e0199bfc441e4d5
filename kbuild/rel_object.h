// What a relocatable object (a Kbuild NAME.mod.o) holds, read with libelf:
// its allocated sections with their bytes and relocations, and its data
// symbols. Enough to describe the object as C (mod_object.cpp) and to
// compare two objects.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xtap::kbuild {

struct RelObject {
  struct Reloc {
    uint64_t offset = 0;
    uint32_t type = 0;   // R_X86_64_*
    std::string symbol;  // the symbol the relocation refers to
    int64_t addend = 0;
    bool operator==(const Reloc &) const = default;
  };
  struct Section {
    std::string name;
    uint32_t type = 0;   // SHT_*
    uint64_t flags = 0;  // SHF_*
    uint64_t align = 0;
    uint64_t size = 0;
    std::string bytes;  // empty for SHT_NOBITS
    std::vector<Reloc> relocs;
    bool operator==(const Section &) const = default;
  };
  struct Symbol {
    std::string name;
    uint8_t type = 0;     // STT_*
    uint8_t bind = 0;     // STB_*
    std::string section;  // "" when undefined
    uint64_t value = 0;
    uint64_t size = 0;
    bool operator==(const Symbol &) const = default;
  };
  // In section-header order; only SHF_ALLOC sections, which are what the
  // module loader sees (DWARF and the like are left out).
  std::vector<Section> sections;
  // In symbol-table order, without the FILE and SECTION symbols.
  std::vector<Symbol> symbols;

  const Section *section(const std::string &name) const;
};

// Reads `path`; nullopt with *why when it is not a 64-bit relocatable ELF
// object libelf can read.
std::optional<RelObject> read_rel_object(const std::string &path, std::string *why);

// The first difference between two objects ("section __versions: size
// 10304 against 10240"), or "" when they are the same.
std::string rel_object_difference(const RelObject &a, const RelObject &b);

}  // namespace xtap::kbuild
