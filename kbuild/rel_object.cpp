// Reading a relocatable object's sections, relocations and symbols
// (rel_object.h) with libelf.
#include "kbuild/rel_object.h"

#include <gelf.h>

#include <algorithm>
#include <map>

#include "common/libelf_file.h"

namespace xtap::kbuild {
namespace {

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

const RelObject::Section *RelObject::section(const std::string &name) const {
  for (const auto &s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

std::optional<RelObject> read_rel_object(const std::string &path, std::string *why) {
  LibelfFile file(path, ELF_C_READ);
  if (!file.ok()) {
    *why = "cannot open " + path + ": " + file.open_error();
    return std::nullopt;
  }
  Elf *elf = file.elf();
  GElf_Ehdr eh;
  size_t shstrndx = 0;
  if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64 ||
      !gelf_getehdr(elf, &eh) || eh.e_type != ET_REL || elf_getshdrstrndx(elf, &shstrndx) != 0) {
    *why = path + " is not a 64-bit relocatable ELF object";
    return std::nullopt;
  }

  RelObject obj;
  std::map<size_t, size_t> by_index;  // section header index -> obj.sections
  std::map<size_t, std::string> names;
  Elf_Scn *symtab = nullptr;
  for (Elf_Scn *scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    names[elf_ndxscn(scn)] = name ? name : "";
    if (sh.sh_type == SHT_SYMTAB) symtab = scn;
    if (!(sh.sh_flags & SHF_ALLOC)) continue;
    RelObject::Section s;
    s.name = name ? name : "";
    s.type = sh.sh_type;
    s.flags = sh.sh_flags;
    s.align = sh.sh_addralign;
    s.size = sh.sh_size;
    if (sh.sh_type != SHT_NOBITS) {
      Elf_Data *d = elf_rawdata(scn, nullptr);
      if (d && d->d_buf) s.bytes.assign(static_cast<const char *>(d->d_buf), d->d_size);
    }
    by_index[elf_ndxscn(scn)] = obj.sections.size();
    obj.sections.push_back(std::move(s));
  }
  if (!symtab) {
    *why = path + " has no symbol table";
    return std::nullopt;
  }

  // Symbols first: relocations name them.
  std::vector<std::string> sym_names;
  GElf_Shdr symsh;
  gelf_getshdr(symtab, &symsh);
  Elf_Data *symdata = elf_getdata(symtab, nullptr);
  size_t nsyms = symdata && symsh.sh_entsize ? symsh.sh_size / symsh.sh_entsize : 0;
  for (size_t i = 0; i < nsyms; i++) {
    GElf_Sym sym;
    if (!gelf_getsym(symdata, static_cast<int>(i), &sym)) break;
    const char *n = elf_strptr(elf, symsh.sh_link, sym.st_name);
    std::string name = n ? n : "";
    uint8_t type = GELF_ST_TYPE(sym.st_info);
    if (type == STT_SECTION && names.count(sym.st_shndx)) name = names[sym.st_shndx];
    sym_names.push_back(name);
    if (i == 0 || type == STT_FILE || type == STT_SECTION) continue;
    RelObject::Symbol s;
    s.name = name;
    s.type = type;
    s.bind = GELF_ST_BIND(sym.st_info);
    if (sym.st_shndx != SHN_UNDEF && names.count(sym.st_shndx)) s.section = names[sym.st_shndx];
    s.value = sym.st_value;
    s.size = sym.st_size;
    obj.symbols.push_back(std::move(s));
  }

  for (Elf_Scn *scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL)) continue;
    auto target = by_index.find(sh.sh_info);
    if (target == by_index.end()) continue;  // relocations of DWARF and the like
    Elf_Data *d = elf_getdata(scn, nullptr);
    size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    for (size_t i = 0; i < n; i++) {
      RelObject::Reloc r;
      size_t sym = 0;
      if (sh.sh_type == SHT_RELA) {
        GElf_Rela rela;
        if (!gelf_getrela(d, static_cast<int>(i), &rela)) break;
        r.offset = rela.r_offset;
        r.type = GELF_R_TYPE(rela.r_info);
        r.addend = rela.r_addend;
        sym = GELF_R_SYM(rela.r_info);
      } else {
        GElf_Rel rel;
        if (!gelf_getrel(d, static_cast<int>(i), &rel)) break;
        r.offset = rel.r_offset;
        r.type = GELF_R_TYPE(rel.r_info);
        sym = GELF_R_SYM(rel.r_info);
      }
      r.symbol = sym < sym_names.size() ? sym_names[sym] : "?";
      obj.sections[target->second].relocs.push_back(std::move(r));
    }
  }
  return obj;
}

std::string rel_object_difference(const RelObject &a, const RelObject &b) {
  if (a.sections.size() != b.sections.size())
    return std::to_string(a.sections.size()) + " allocated sections against " +
           std::to_string(b.sections.size());
  for (size_t i = 0; i < a.sections.size(); i++) {
    const auto &x = a.sections[i], &y = b.sections[i];
    std::string where = "section " + x.name + ": ";
    if (x.name != y.name)
      return "section " + std::to_string(i) + " is " + x.name + " against " + y.name;
    if (x.type != y.type || x.flags != y.flags) return where + "type or flags differ";
    if (x.align != y.align) return where + "alignment " + hex(x.align) + " against " + hex(y.align);
    if (x.size != y.size) return where + "size " + hex(x.size) + " against " + hex(y.size);
    if (x.bytes != y.bytes) return where + "contents differ";
    if (x.relocs != y.relocs) return where + "relocations differ";
  }
  auto sorted = [](std::vector<RelObject::Symbol> v) {
    std::sort(v.begin(), v.end(), [](const auto &p, const auto &q) { return p.name < q.name; });
    return v;
  };
  auto sa = sorted(a.symbols), sb = sorted(b.symbols);
  if (sa.size() != sb.size())
    return std::to_string(sa.size()) + " symbols against " + std::to_string(sb.size());
  for (size_t i = 0; i < sa.size(); i++)
    if (!(sa[i] == sb[i])) return "symbol " + sa[i].name + " against " + sb[i].name + " differs";
  return "";
}

}  // namespace xtap::kbuild
