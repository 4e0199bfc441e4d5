// Minimal ELF64 reader for the .modinfo section: no libelf, so xtap-run stays tiny.
#include "runner/modinfo.h"

#include <cstdlib>

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace xtap::runner {

std::string ModInfo::release() const {
  auto end = vermagic.find(' ');
  return vermagic.substr(0, end);
}

namespace {

bool in_bounds(size_t off, size_t len, size_t size) {
  return off <= size && len <= size - off;
}

std::string fallback_name(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".ko") == 0)
    base.resize(base.size() - 3);
  for (char& c : base)
    if (c == '-') c = '_';
  return base;
}

}  // namespace

std::optional<ModInfo> read_modinfo(const std::string& path, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = "cannot open " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t size = data.size();
  Elf64_Ehdr eh;
  if (size < sizeof(eh) || std::memcmp(data.data(), ELFMAG, SELFMAG) != 0) {
    *err = path + " is not an ELF file (compressed modules are not supported)";
    return std::nullopt;
  }
  std::memcpy(&eh, data.data(), sizeof(eh));
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !in_bounds(eh.e_shoff, size_t(eh.e_shnum) * sizeof(Elf64_Shdr), size) ||
      eh.e_shstrndx >= eh.e_shnum) {
    *err = path + " is not a 64-bit ELF kernel module";
    return std::nullopt;
  }
  auto shdr = [&](size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, data.data() + eh.e_shoff + i * sizeof(sh), sizeof(sh));
    return sh;
  };
  const Elf64_Shdr strtab = shdr(eh.e_shstrndx);
  if (!in_bounds(strtab.sh_offset, strtab.sh_size, size)) {
    *err = path + ": corrupt section name table";
    return std::nullopt;
  }
  for (size_t i = 0; i < eh.e_shnum; i++) {
    const Elf64_Shdr sh = shdr(i);
    if (sh.sh_name >= strtab.sh_size) continue;
    const char* secname = data.data() + strtab.sh_offset + sh.sh_name;
    if (strnlen(secname, strtab.sh_size - sh.sh_name) == strtab.sh_size - sh.sh_name) continue;
    if (std::strcmp(secname, ".modinfo") != 0) continue;
    if (!in_bounds(sh.sh_offset, sh.sh_size, size)) break;
    ModInfo mi;
    std::string_view sec(data.data() + sh.sh_offset, sh.sh_size);
    while (!sec.empty()) {
      auto nul = sec.find('\0');
      std::string_view entry = sec.substr(0, nul);
      if (entry.starts_with("name=")) mi.name = entry.substr(5);
      if (entry.starts_with("vermagic=")) mi.vermagic = entry.substr(9);
      if (entry.starts_with("xtap_wildcard=")) {
        std::string v(entry.substr(14));
        auto colon = v.find(':');
        if (colon != std::string::npos && colon > 0)
          mi.wildcards.emplace_back(std::atoi(v.substr(0, colon).c_str()), v.substr(colon + 1));
      }
      if (nul == std::string_view::npos) break;
      sec.remove_prefix(nul + 1);
    }
    if (mi.vermagic.empty()) {
      *err = path + " has no vermagic: not a kernel module";
      return std::nullopt;
    }
    if (mi.name.empty()) mi.name = fallback_name(path);
    return mi;
  }
  *err = path + " has no .modinfo section: not a kernel module";
  return std::nullopt;
}

}  // namespace xtap::runner
