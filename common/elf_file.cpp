// ELF64 headers read with memcpy (the file's bytes need not be aligned)
// and bounds-checked before every access.
#include "common/elf_file.h"

#include <elf.h>

#include <cstring>

#include "common/file_io.h"

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

Elf64_Ehdr header(const std::string &bytes) { return read_at<Elf64_Ehdr>(bytes, 0); }

}  // namespace

std::optional<ElfFile> ElfFile::parse(std::string bytes, std::string *why) {
  if (bytes.size() < sizeof(Elf64_Ehdr) || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    *why = "not an ELF file";
    return std::nullopt;
  }
  const Elf64_Ehdr eh = header(bytes);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
    *why = "not a 64-bit ELF file";
    return std::nullopt;
  }
  const bool sections_ok =
      eh.e_shnum == 0 ||
      (eh.e_shentsize == sizeof(Elf64_Shdr) &&
       in_bounds(eh.e_shoff, uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr), bytes.size()) &&
       eh.e_shstrndx < eh.e_shnum);
  const bool segments_ok =
      eh.e_phnum == 0 ||
      (eh.e_phentsize == sizeof(Elf64_Phdr) &&
       in_bounds(eh.e_phoff, uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr), bytes.size()));
  if (!sections_ok || !segments_ok) {
    *why = "corrupt ELF headers";
    return std::nullopt;
  }
  return ElfFile(std::move(bytes));
}

std::optional<ElfFile> ElfFile::open(const std::string &path, std::string *err) {
  bool ok = false;
  std::string bytes = read_file(path, &ok);
  if (!ok) {
    *err = "cannot open " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::string why;
  auto elf = parse(std::move(bytes), &why);
  if (!elf) *err = path + ": " + why;
  return elf;
}

std::optional<std::string_view> ElfFile::section(std::string_view name) const {
  const Elf64_Ehdr eh = header(bytes_);
  if (eh.e_shnum == 0) return std::nullopt;
  auto shdr = [&](size_t i) {
    return read_at<Elf64_Shdr>(bytes_, eh.e_shoff + i * sizeof(Elf64_Shdr));
  };
  const Elf64_Shdr names = shdr(eh.e_shstrndx);
  if (!in_bounds(names.sh_offset, names.sh_size, bytes_.size())) return std::nullopt;
  std::string_view table(bytes_.data() + names.sh_offset, names.sh_size);
  for (size_t i = 0; i < eh.e_shnum; i++) {
    const Elf64_Shdr sh = shdr(i);
    if (sh.sh_name >= table.size()) continue;
    std::string_view rest = table.substr(sh.sh_name);
    size_t end = rest.find('\0');
    if (end == std::string_view::npos || rest.substr(0, end) != name) continue;
    if (sh.sh_type == SHT_NOBITS || !in_bounds(sh.sh_offset, sh.sh_size, bytes_.size()))
      return std::nullopt;
    return std::string_view(bytes_.data() + sh.sh_offset, sh.sh_size);
  }
  return std::nullopt;
}

std::optional<size_t> ElfFile::section_outside_file() const {
  const Elf64_Ehdr eh = header(bytes_);
  for (size_t i = 0; i < eh.e_shnum; i++) {
    const Elf64_Shdr sh = read_at<Elf64_Shdr>(bytes_, eh.e_shoff + i * sizeof(Elf64_Shdr));
    if (sh.sh_type != SHT_NOBITS && !in_bounds(sh.sh_offset, sh.sh_size, bytes_.size())) return i;
  }
  return std::nullopt;
}

bool ElfFile::has_interpreter() const {
  const Elf64_Ehdr eh = header(bytes_);
  for (size_t i = 0; i < eh.e_phnum; i++)
    if (read_at<Elf64_Phdr>(bytes_, eh.e_phoff + i * sizeof(Elf64_Phdr)).p_type == PT_INTERP)
      return true;
  return false;
}

std::string ElfFile::interpreter() const {
  const Elf64_Ehdr eh = header(bytes_);
  for (size_t i = 0; i < eh.e_phnum; i++) {
    const auto ph = read_at<Elf64_Phdr>(bytes_, eh.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type != PT_INTERP || !in_bounds(ph.p_offset, ph.p_filesz, bytes_.size())) continue;
    std::string path(bytes_.data() + ph.p_offset, ph.p_filesz);
    return path.substr(0, path.find('\0'));
  }
  return "";
}

ElfFile::Dynamic ElfFile::dynamic() const {
  const Elf64_Ehdr eh = header(bytes_);
  std::vector<Elf64_Phdr> loads;
  std::optional<Elf64_Phdr> dyn;
  for (size_t i = 0; i < eh.e_phnum; i++) {
    const auto ph = read_at<Elf64_Phdr>(bytes_, eh.e_phoff + i * sizeof(Elf64_Phdr));
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) dyn = ph;
  }
  Dynamic d;
  if (!dyn || !in_bounds(dyn->p_offset, dyn->p_filesz, bytes_.size())) return d;
  // DT_STRTAB is an address: the loader finds it through the PT_LOAD
  // segment that maps it, and so does this.
  uint64_t strtab = 0, strsz = 0;
  std::vector<std::pair<int64_t, uint64_t>> strings;  // tag, offset in the string table
  for (uint64_t off = dyn->p_offset; off + sizeof(Elf64_Dyn) <= dyn->p_offset + dyn->p_filesz;
       off += sizeof(Elf64_Dyn)) {
    const auto e = read_at<Elf64_Dyn>(bytes_, off);
    if (e.d_tag == DT_NULL) break;
    if (e.d_tag == DT_STRTAB) strtab = e.d_un.d_ptr;
    if (e.d_tag == DT_STRSZ) strsz = e.d_un.d_val;
    if (e.d_tag == DT_NEEDED || e.d_tag == DT_RPATH || e.d_tag == DT_RUNPATH)
      strings.emplace_back(e.d_tag, e.d_un.d_val);
  }
  std::optional<uint64_t> table;
  for (const auto &ph : loads)
    if (strtab >= ph.p_vaddr && strtab - ph.p_vaddr < ph.p_filesz)
      table = ph.p_offset + (strtab - ph.p_vaddr);
  if (!table || !in_bounds(*table, strsz, bytes_.size())) return d;
  std::string_view all(bytes_.data() + *table, strsz);
  for (const auto &[tag, at] : strings) {
    if (at >= all.size()) continue;
    std::string_view rest = all.substr(at);
    size_t end = rest.find('\0');
    if (end == std::string_view::npos) continue;
    std::string s(rest.substr(0, end));
    if (tag == DT_NEEDED) d.needed.push_back(s);
    else (tag == DT_RPATH ? d.rpath : d.runpath) = s;
  }
  return d;
}

bool is_dynamically_linked(const std::string &path) {
  std::string err;
  auto elf = ElfFile::open(path, &err);
  return elf && elf->has_interpreter();
}

}  // namespace xtap
