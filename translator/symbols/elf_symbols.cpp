// ELF64 headers, symbols and notes read with memcpy (the bytes need not be
// aligned), each access checked against the file's size.
#include "symbols/elf_symbols.h"

#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace xtap {
namespace {

bool in_bounds(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

template <typename T>
T read_at(const std::string &bytes, uint64_t off) {
  T v;
  std::memcpy(&v, bytes.data() + off, sizeof v);
  return v;
}

struct Sections {
  std::vector<Elf64_Shdr> headers;
  std::string names;  // .shstrtab

  std::string name_of(const Elf64_Shdr &sh) const {
    if (sh.sh_name >= names.size()) return "";
    return std::string(names.c_str() + sh.sh_name,
                       strnlen(names.c_str() + sh.sh_name, names.size() - sh.sh_name));
  }
};

// The section headers and their names; empty when the file has none or
// they lie outside it.
Sections read_sections(const std::string &bytes, const Elf64_Ehdr &eh) {
  Sections s;
  if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      !in_bounds(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr), bytes.size()) ||
      eh.e_shstrndx >= eh.e_shnum)
    return s;
  for (size_t i = 0; i < eh.e_shnum; ++i)
    s.headers.push_back(read_at<Elf64_Shdr>(bytes, eh.e_shoff + i * sizeof(Elf64_Shdr)));
  const Elf64_Shdr &names = s.headers[eh.e_shstrndx];
  if (in_bounds(names.sh_offset, names.sh_size, bytes.size()))
    s.names.assign(bytes.data() + names.sh_offset, names.sh_size);
  return s;
}

// The defined functions of symbol table `symtab` (its strings in section
// sh_link).
std::vector<ElfFunction> read_functions(const std::string &bytes, const Sections &s,
                                        const Elf64_Shdr &symtab) {
  std::vector<ElfFunction> out;
  if (symtab.sh_entsize != sizeof(Elf64_Sym) || symtab.sh_link >= s.headers.size() ||
      !in_bounds(symtab.sh_offset, symtab.sh_size, bytes.size()))
    return out;
  const Elf64_Shdr &strtab = s.headers[symtab.sh_link];
  if (!in_bounds(strtab.sh_offset, strtab.sh_size, bytes.size())) return out;
  const char *strs = bytes.data() + strtab.sh_offset;
  for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
    const Elf64_Sym sym = read_at<Elf64_Sym>(bytes, symtab.sh_offset + off);
    int type = ELF64_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
        sym.st_value == 0 || sym.st_name >= strtab.sh_size)
      continue;
    std::string name(strs + sym.st_name, strnlen(strs + sym.st_name, strtab.sh_size - sym.st_name));
    if (name.empty()) continue;
    out.push_back({std::move(name), sym.st_value, sym.st_size});
  }
  return out;
}

}  // namespace

std::unique_ptr<ElfSymbols> ElfSymbols::parse(std::string bytes, std::string *why) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    *why = "not an ELF file";
    return nullptr;
  }
  const Elf64_Ehdr eh = read_at<Elf64_Ehdr>(bytes, 0);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
    *why = "not an x86-64 ELF file";
    return nullptr;
  }
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
    *why = "not a program or shared library (ELF type " + std::to_string(eh.e_type) + ")";
    return nullptr;
  }
  auto elf = std::unique_ptr<ElfSymbols>(new ElfSymbols());
  elf->shared_ = eh.e_type == ET_DYN;
  if (eh.e_phnum == 0 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
      !in_bounds(eh.e_phoff, uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr), bytes.size())) {
    *why = "corrupt ELF program headers";
    return nullptr;
  }
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    const Elf64_Phdr ph = read_at<Elf64_Phdr>(bytes, eh.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type == PT_LOAD) elf->loads_.push_back({ph.p_vaddr, ph.p_filesz, ph.p_offset});
  }
  Sections s = read_sections(bytes, eh);
  for (const char *table : {".symtab", ".dynsym"}) {
    for (const auto &sh : s.headers) {
      if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || s.name_of(sh) != table)
        continue;
      elf->functions_ = read_functions(bytes, s, sh);
      break;
    }
    if (!elf->functions_.empty()) {
      elf->table_ = table;
      break;
    }
  }
  std::stable_sort(elf->functions_.begin(), elf->functions_.end(),
                   [](const ElfFunction &a, const ElfFunction &b) { return a.name < b.name; });
  elf->functions_.erase(
      std::unique(elf->functions_.begin(), elf->functions_.end(),
                  [](const ElfFunction &a, const ElfFunction &b) { return a.name == b.name; }),
      elf->functions_.end());
  elf->bytes_ = std::move(bytes);
  return elf;
}

std::unique_ptr<ElfSymbols> ElfSymbols::open(const std::string &path, std::string *why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *why = std::strerror(errno);
    return nullptr;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    *why = "cannot read it";
    return nullptr;
  }
  return parse(ss.str(), why);
}

const ElfFunction *ElfSymbols::find(const std::string &name) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), name,
                             [](const ElfFunction &f, const std::string &n) { return f.name < n; });
  return it != functions_.end() && it->name == name ? &*it : nullptr;
}

std::optional<uint64_t> ElfSymbols::file_offset(uint64_t vaddr) const {
  for (const auto &seg : loads_)
    if (vaddr >= seg.vaddr && vaddr - seg.vaddr < seg.filesz) return vaddr - seg.vaddr + seg.offset;
  return std::nullopt;
}

std::optional<std::string> ElfSymbols::section(const std::string &name) const {
  const Elf64_Ehdr eh = read_at<Elf64_Ehdr>(bytes_, 0);
  Sections s = read_sections(bytes_, eh);
  for (const auto &sh : s.headers) {
    if (s.name_of(sh) != name || sh.sh_type == SHT_NOBITS) continue;
    if (!in_bounds(sh.sh_offset, sh.sh_size, bytes_.size())) return std::nullopt;
    return bytes_.substr(sh.sh_offset, sh.sh_size);
  }
  return std::nullopt;
}

std::vector<SdtNote> ElfSymbols::sdt_notes() const {
  std::vector<SdtNote> out;
  auto notes = section(".note.stapsdt");
  if (!notes) return out;
  // Where .stapsdt.base is now, against where each note says it was.
  std::optional<uint64_t> base_now;
  {
    const Elf64_Ehdr eh = read_at<Elf64_Ehdr>(bytes_, 0);
    Sections s = read_sections(bytes_, eh);
    for (const auto &sh : s.headers)
      if (s.name_of(sh) == ".stapsdt.base") base_now = sh.sh_addr;
  }
  const std::string &n = *notes;
  uint64_t off = 0;
  while (off + sizeof(Elf64_Nhdr) <= n.size()) {
    const Elf64_Nhdr nh = read_at<Elf64_Nhdr>(n, off);
    uint64_t name_off = off + sizeof(Elf64_Nhdr);
    uint64_t desc_off = name_off + ((uint64_t(nh.n_namesz) + 3) & ~uint64_t(3));
    uint64_t next = desc_off + ((uint64_t(nh.n_descsz) + 3) & ~uint64_t(3));
    if (!in_bounds(desc_off, nh.n_descsz, n.size())) break;
    if (nh.n_type == 3 && nh.n_namesz == 8 && n.compare(name_off, 7, "stapsdt") == 0 &&
        nh.n_descsz >= 24) {
      SdtNote note;
      note.pc = read_at<uint64_t>(n, desc_off);
      uint64_t base = read_at<uint64_t>(n, desc_off + 8);
      note.semaphore = read_at<uint64_t>(n, desc_off + 16);
      if (base_now && base) {
        note.pc += *base_now - base;
        if (note.semaphore) note.semaphore += *base_now - base;
      }
      std::string strs = n.substr(desc_off + 24, nh.n_descsz - 24);
      size_t a = strs.find('\0');
      size_t b = a == std::string::npos ? a : strs.find('\0', a + 1);
      if (b != std::string::npos) {
        note.provider = strs.substr(0, a);
        note.name = strs.substr(a + 1, b - a - 1);
        size_t c = strs.find('\0', b + 1);
        note.args = strs.substr(b + 1, c == std::string::npos ? std::string::npos : c - b - 1);
        out.push_back(std::move(note));
      }
    }
    if (next <= off) break;
    off = next;
  }
  return out;
}

uint64_t ElfSymbols::build_id_offset() const {
  const Elf64_Ehdr eh = read_at<Elf64_Ehdr>(bytes_, 0);
  Sections s = read_sections(bytes_, eh);
  for (const auto &sh : s.headers) {
    if (s.name_of(sh) != ".note.gnu.build-id" || sh.sh_type != SHT_NOTE) continue;
    if (!in_bounds(sh.sh_offset, sh.sh_size, bytes_.size()) || sh.sh_size < sizeof(Elf64_Nhdr))
      return 0;
    const Elf64_Nhdr nh = read_at<Elf64_Nhdr>(bytes_, sh.sh_offset);
    return sh.sh_offset + sizeof(Elf64_Nhdr) + ((uint64_t(nh.n_namesz) + 3) & ~uint64_t(3));
  }
  return 0;
}

std::string ElfSymbols::build_id() const {
  auto notes = section(".note.gnu.build-id");
  if (!notes || notes->size() < sizeof(Elf64_Nhdr)) return "";
  const Elf64_Nhdr nh = read_at<Elf64_Nhdr>(*notes, 0);
  uint64_t name_len = (uint64_t(nh.n_namesz) + 3) & ~uint64_t(3);
  uint64_t desc_off = sizeof(Elf64_Nhdr) + name_len;
  if (nh.n_type != NT_GNU_BUILD_ID || !in_bounds(desc_off, nh.n_descsz, notes->size())) return "";
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (uint32_t i = 0; i < nh.n_descsz; ++i) {
    auto b = static_cast<unsigned char>((*notes)[desc_off + i]);
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

}  // namespace xtap
