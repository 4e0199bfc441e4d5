// libelf hands out section data already bounds-checked against the file;
// what is checked here is what the sections say about each other (a
// relocation's symbol index, a stub's displacement).
#include "symbols/elf_plt.h"

#include <elf.h>
#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "common/libelf_file.h"

namespace xtap {
namespace {

std::string section_name(Elf *elf, size_t shstrndx, const GElf_Shdr &sh) {
  const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
  return n ? n : "";
}

// GOT slot address -> the symbol its JUMP_SLOT or GLOB_DAT relocation binds
// it to, from every SHT_RELA section (.rela.plt and .rela.dyn).
std::map<uint64_t, std::string> got_symbols(Elf *elf) {
  std::map<uint64_t, std::string> out;
  for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0) continue;
    Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
    GElf_Shdr symsh;
    if (!symscn || !gelf_getshdr(symscn, &symsh) || symsh.sh_entsize == 0) continue;
    Elf_Data *rel = elf_getdata(scn, nullptr);
    Elf_Data *syms = elf_getdata(symscn, nullptr);
    if (!rel || !syms) continue;
    size_t nrel = sh.sh_size / sh.sh_entsize, nsym = symsh.sh_size / symsh.sh_entsize;
    for (size_t i = 0; i < nrel; ++i) {
      GElf_Rela r;
      if (!gelf_getrela(rel, static_cast<int>(i), &r)) break;
      auto type = GELF_R_TYPE(r.r_info);
      size_t symi = GELF_R_SYM(r.r_info);
      if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || symi == 0 || symi >= nsym)
        continue;
      GElf_Sym s;
      if (!gelf_getsym(syms, static_cast<int>(symi), &s)) continue;
      const char *name = elf_strptr(elf, symsh.sh_link, s.st_name);
      if (name && *name) out.emplace(r.r_offset, name);
    }
  }
  return out;
}

// The entries of one PLT section: each `entsize` bytes whose first
// instructions jump through a GOT slot that `got` names.
void read_stubs(Elf_Scn *scn, const GElf_Shdr &sh, const std::map<uint64_t, std::string> &got,
                std::vector<PltEntry> &out) {
  Elf_Data *d = elf_getdata(scn, nullptr);
  if (!d || !d->d_buf || d->d_size < 6) return;
  const auto *bytes = static_cast<const unsigned char *>(d->d_buf);
  uint64_t entsize = sh.sh_entsize >= 8 ? sh.sh_entsize : 16;
  for (uint64_t start = 0; start + 6 <= d->d_size; start += entsize) {
    // `jmp *DISP(%rip)` (ff 25), after an endbr64 (4 bytes) and a bnd
    // prefix (f2) at most.
    uint64_t end = std::min<uint64_t>(start + 6, d->d_size - 6);
    for (uint64_t at = start; at <= end; ++at) {
      if (bytes[at] != 0xff || bytes[at + 1] != 0x25) continue;
      int32_t disp;
      std::memcpy(&disp, bytes + at + 2, sizeof disp);
      uint64_t slot = sh.sh_addr + at + 6 + static_cast<int64_t>(disp);
      auto it = got.find(slot);
      if (it != got.end()) out.push_back({it->second, sh.sh_addr + start, sh.sh_offset + start});
      break;
    }
  }
}

}  // namespace

std::optional<ElfLinkage> read_elf_linkage(const std::string &path, std::string *why) {
  LibelfFile file(path, ELF_C_READ_MMAP);
  if (!file.ok()) {
    *why = file.open_error();
    return std::nullopt;
  }
  Elf *elf = file.elf();
  GElf_Ehdr eh;
  if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
    *why = "not an ELF file";
    return std::nullopt;
  }
  if (gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
    *why = "not an x86-64 ELF file";
    return std::nullopt;
  }
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
    *why = "corrupt ELF section headers";
    return std::nullopt;
  }
  ElfLinkage out;
  auto got = got_symbols(elf);
  // .plt.sec holds the entries callers jump to when there is one; the
  // .plt beside it then only pushes and jumps to the resolver (no GOT jump
  // to match), so reading every PLT section finds each entry once.
  for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR)) {
      std::string name = section_name(elf, shstrndx, sh);
      if (name == ".plt" || name == ".plt.sec" || name == ".plt.got")
        read_stubs(scn, sh, got, out.plt);
    } else if (sh.sh_type == SHT_DYNAMIC && sh.sh_entsize) {
      Elf_Data *d = elf_getdata(scn, nullptr);
      for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; ++i) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(d, static_cast<int>(i), &dyn) || dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag != DT_NEEDED) continue;
        if (const char *lib = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val))
          out.needed.push_back(lib);
      }
    }
  }
  std::sort(out.plt.begin(), out.plt.end(),
            [](const PltEntry &a, const PltEntry &b) { return a.address < b.address; });
  return out;
}

}  // namespace xtap
