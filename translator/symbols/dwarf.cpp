// DWARF through libdwfl/libdw. Both vmlinux (ET_EXEC) and modules (ET_REL,
// whose debug sections need relocating before libdw can read them) are
// opened with dwfl_report_offline, so one code path reads both; a module's
// addresses are then those libdwfl lays its sections out at, which is fine
// because the runtime only ever uses offsets within one symbol.
#include "symbols/dwarf.h"
#include "common/file_io.h"
#include "symbols/dwarf_impl.h"
#include "symbols/inline_index.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace xtap {

KernelDwarf::~KernelDwarf() = default;

namespace {

const Dwfl_Callbacks kOfflineCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,
};

std::string attr_string(Dwarf_Die *die, unsigned name) {
  Dwarf_Attribute a;
  if (!dwarf_attr_integrate(die, name, &a)) return "";
  const char *s = dwarf_formstring(&a);
  return s ? s : "";
}

bool attr_die(Dwarf_Die *die, unsigned name, Dwarf_Die *out) {
  Dwarf_Attribute a;
  return dwarf_attr_integrate(die, name, &a) && dwarf_formref_die(&a, out);
}

bool attr_udata(Dwarf_Die *die, unsigned name, Dwarf_Word *out) {
  Dwarf_Attribute a;
  return dwarf_attr_integrate(die, name, &a) && dwarf_formudata(&a, out) == 0;
}

std::string hex(uint64_t v) {
  std::ostringstream o;
  o << std::hex << v;
  return o.str();
}

constexpr const char *kIndexMagic = "xtap-dwarf-index 5";

// True if the ELF file at `path` has a .debug_info section. Debian's 6.12
// headers ship a vmlinux without DWARF (for the BTF of external modules):
// it is no kernel debuginfo.
bool has_dwarf(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  elf_version(EV_CURRENT);
  bool found = false;
  size_t strndx = 0;
  if (Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
    if (elf_getshdrstrndx(elf, &strndx) == 0) {
      for (Elf_Scn *scn = nullptr; !found && (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, strndx, sh.sh_name) : nullptr;
        found = name && std::strcmp(name, ".debug_info") == 0;
      }
    }
    elf_end(elf);
  }
  ::close(fd);
  return found;
}

// The ELF file type (ET_EXEC, ET_DYN, ET_REL) of `path`; ET_NONE if unreadable.
int elf_type(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ET_NONE;
  elf_version(EV_CURRENT);
  int type = ET_NONE;
  if (Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
    GElf_Ehdr eh;
    if (gelf_getehdr(elf, &eh)) type = eh.e_type;
    elf_end(elf);
  }
  ::close(fd);
  return type;
}

// The name of the GCC clone of `name` whose code starts at `entry`
// ("name.isra.0"), or "" when the symbols there are `name` itself. Code
// folded from several functions may carry several clone names: the one
// derived from `name` is preferred.
std::string clone_symbol(const std::multimap<uint64_t, std::string> &symbols_at, uint64_t entry,
                         const std::string &name) {
  auto [first, last] = symbols_at.equal_range(entry);
  std::string other;
  for (auto it = first; it != last; ++it) {
    const std::string &s = it->second;
    if (s == name) return "";
    size_t dot = s.find('.');
    if (dot == std::string::npos || s.size() >= 5 && s.compare(s.size() - 5, 5, ".cold") == 0)
      continue;
    if (s.compare(0, dot, name) == 0 && dot == name.size()) return s;
    if (other.empty()) other = s;
  }
  return other;
}

}  // namespace

std::unique_ptr<KernelDwarf> KernelDwarf::open(const std::string &path, const std::string &module,
                                               const std::string &cache_dir, std::string *error) {
  std::unique_ptr<KernelDwarf> k(new KernelDwarf());
  k->path_ = path;
  k->module_ = module;
  k->impl_ = std::make_unique<Impl>();
  Impl &im = *k->impl_;
  im.dwfl = dwfl_begin(&kOfflineCallbacks);
  if (!im.dwfl) {
    *error = std::string("libdwfl: ") + dwfl_errmsg(-1);
    return nullptr;
  }
  // A shared object or PIE (a user program, process probes) is reported
  // at base 0, so that its addresses are the link-time ones its ELF
  // symbols and file offsets use; offline reporting would move it.
  if (elf_type(path) == ET_DYN)
    im.mod = dwfl_report_elf(im.dwfl, path.c_str(), path.c_str(), -1, 0, false);
  else
    im.mod =
        dwfl_report_offline(im.dwfl, module.empty() ? "kernel" : module.c_str(), path.c_str(), -1);
  if (!im.mod || dwfl_report_end(im.dwfl, nullptr, nullptr) != 0) {
    *error = path + ": " + dwfl_errmsg(-1);
    return nullptr;
  }
  im.dw = dwfl_module_getdwarf(im.mod, &im.bias);
  if (!im.dw) {
    *error = path + ": no DWARF debuginfo (" + dwfl_errmsg(-1) + ")";
    return nullptr;
  }
  const unsigned char *id = nullptr;
  GElf_Addr id_vaddr;
  int n = dwfl_module_build_id(im.mod, &id, &id_vaddr);
  for (int i = 0; i < n; ++i) im.build_id += hex(id[i] >> 4) + hex(id[i] & 15);
  if (im.build_id.empty()) {
    struct stat st {};
    stat(path.c_str(), &st);
    im.build_id = "size" + std::to_string(st.st_size) + "-mtime" + std::to_string(st.st_mtime);
  }
  std::string index_file;
  // The format is in the name (".5.idx"), so that xtap builds of other
  // formats sharing the cache keep their own files instead of rewriting one.
  if (!cache_dir.empty()) {
    std::string stem =
        cache_dir + "/dwarf/" + (module.empty() ? "vmlinux" : module) + "-" + im.build_id;
    index_file = stem + ".5.idx";
    k->inline_index_file_ = stem + ".inl";
  }
  if (!index_file.empty() && k->read_index(index_file)) {
    k->from_cache_ = true;
  } else {
    if (!k->build_index(error)) return nullptr;
    if (!index_file.empty()) k->write_index(index_file);
  }
  KType void_type;
  k->types_.add(void_type);  // id 0: void
  return k;
}

bool KernelDwarf::build_index(std::string *error) {
  Impl &im = *impl_;
  // The ELF function symbols: by address, and how often each name occurs.
  std::map<uint64_t, std::string> symbol_at;
  std::multimap<uint64_t, std::string> symbols_at;  // every name, for aliases
  std::unordered_map<std::string, int> symbol_count;
  std::unordered_map<std::string, bool> exported;  // names with a __ksymtab_ entry
  int nsyms = dwfl_module_getsymtab(im.mod);
  for (int i = 0; i < nsyms; ++i) {
    GElf_Sym sym;
    GElf_Addr addr;
    const char *name = dwfl_module_getsym_info(im.mod, i, &sym, &addr, nullptr, nullptr, nullptr);
    if (!name) continue;
    if (module_.empty() && strcmp(name, "_stext") == 0) stext_ = addr;
    if (strncmp(name, "__ksymtab_", 10) == 0) exported[name + 10] = true;
    if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || !*name) continue;
    ++symbol_count[name];
    symbol_at.emplace(addr, name);
    symbols_at.emplace(addr, name);
  }
  Dwarf_Die *cu = nullptr;
  Dwarf_Addr cu_bias;
  while ((cu = dwfl_module_nextcu(im.mod, cu, &cu_bias)) != nullptr) {
    Dwarf_Die die;
    if (dwarf_child(cu, &die) != 0) continue;
    do {
      if (dwarf_tag(&die) != DW_TAG_subprogram || dwarf_hasattr(&die, DW_AT_declaration)) continue;
      Dwarf_Addr low;
      if (dwarf_entrypc(&die, &low) != 0) {
        Dwarf_Addr base, start, end;
        if (dwarf_ranges(&die, 0, &base, &start, &end) <= 0) continue;
        low = start;
      }
      DwarfFunction f;
      f.name = attr_string(&die, DW_AT_name);
      if (f.name.empty()) continue;
      const char *file = dwarf_decl_file(&die);
      f.file = file ? file : "";
      dwarf_decl_line(&die, &f.line);
      f.entry = low + cu_bias;
      f.die = dwarf_dieoffset(&die);
      auto s = symbol_at.find(f.entry);
      if (s != symbol_at.end() && symbol_count[s->second] == 1) f.symbol = s->second;
      f.clone = clone_symbol(symbols_at, f.entry, f.name);
      f.exported = exported.count(f.name) != 0;
      functions_.push_back(std::move(f));
    } while (dwarf_siblingof(&die, &die) == 0);
  }
  if (functions_.empty()) {
    *error = path_ + ": the DWARF has no functions with code";
    return false;
  }
  add_aliases(symbols_at, symbol_count, exported);
  std::sort(functions_.begin(), functions_.end(),
            [](const DwarfFunction &a, const DwarfFunction &b) {
              return a.name != b.name   ? a.name < b.name
                     : a.file != b.file ? a.file < b.file
                                        : a.entry < b.entry;
            });
  return true;
}

// A function symbol that DWARF does not name but that sits at a DWARF
// function's entry is an alias of it (__attribute__((alias)), as the
// kernel's SYSCALL_DEFINE0 makes __x64_sys_getppid of __do_sys_getppid):
// it is probed as that function under the name the script uses, as stap
// does. Clones ("f.isra.0") are not aliases: DWARF describes them itself.
void KernelDwarf::add_aliases(const std::multimap<uint64_t, std::string> &symbols_at,
                              const std::unordered_map<std::string, int> &symbol_count,
                              const std::unordered_map<std::string, bool> &exported) {
  std::unordered_map<std::string, bool> named;
  for (const auto &f : functions_) named[f.name] = true;
  std::vector<DwarfFunction> aliases;
  for (const auto &f : functions_) {
    auto [first, last] = symbols_at.equal_range(f.entry);
    for (auto it = first; it != last; ++it) {
      const std::string &name = it->second;
      if (named.count(name) || name.find('.') != std::string::npos || symbol_count.at(name) != 1)
        continue;
      DwarfFunction a = f;
      a.name = name;
      a.symbol = name;
      a.exported = exported.count(name) != 0;
      named[name] = true;
      aliases.push_back(std::move(a));
    }
  }
  for (auto &a : aliases) functions_.push_back(std::move(a));
}

// Read in one piece and split in place (string views, from_chars): the
// index of a vmlinux has some 45,000 lines, read on every run.
bool KernelDwarf::read_index(const std::string &file) {
  bool ok = false;
  std::string text = read_file(file, &ok);
  std::string_view rest(text);
  auto next_line = [&rest](std::string_view *line) {
    if (rest.empty()) return false;
    size_t nl = rest.find('\n');
    *line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    return true;
  };
  auto hex_of = [](std::string_view v, uint64_t *out) {
    return std::from_chars(v.data(), v.data() + v.size(), *out, 16).ec == std::errc();
  };
  std::string_view line;
  if (!ok || !next_line(&line) || line.rfind(kIndexMagic, 0) != 0) return false;
  auto p = line.find("stext=");
  if (p != std::string_view::npos) {
    std::string_view v = line.substr(p + 6);
    hex_of(v.substr(0, v.find(' ')), &stext_);
  }
  std::vector<DwarfFunction> fns;
  while (next_line(&line)) {
    std::string_view fields[8];
    for (int i = 0; i < 8; ++i) {
      size_t tab = i < 7 ? line.find('\t') : line.size();
      if (tab == std::string_view::npos) return false;
      fields[i] = line.substr(0, tab);
      line.remove_prefix(i < 7 ? tab + 1 : tab);
    }
    DwarfFunction f;
    f.name = fields[0];
    f.file = fields[1];
    std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), f.line);
    if (!hex_of(fields[3], &f.entry) || !hex_of(fields[4], &f.die)) return false;
    f.symbol = fields[5];
    f.exported = fields[6] == "x";
    f.clone = fields[7];
    fns.push_back(std::move(f));
  }
  if (fns.empty()) return false;
  functions_ = std::move(fns);
  return true;
}

void KernelDwarf::write_index(const std::string &file) const {
  std::error_code ec;
  fs::create_directories(fs::path(file).parent_path(), ec);
  std::string tmp = file + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp);
    out << kIndexMagic << " stext=" << hex(stext_) << " " << path_ << "\n";
    for (const auto &f : functions_)
      out << f.name << '\t' << f.file << '\t' << f.line << '\t' << hex(f.entry) << '\t'
          << hex(f.die) << '\t' << f.symbol << '\t' << (f.exported ? "x" : "") << '\t' << f.clone
          << '\n';
    if (!out) return;
  }
  fs::rename(tmp, file, ec);
  if (ec) fs::remove(tmp, ec);
}

bool KernelDwarf::file_matches(const std::string &file_glob, const std::string &file) {
  if (fnmatch(file_glob.c_str(), file.c_str(), 0) == 0) return true;
  if (file_glob.empty() || file_glob[0] == '/' || file_glob[0] == '*') return false;
  return fnmatch(("*/" + file_glob).c_str(), file.c_str(), 0) == 0;
}

std::vector<const DwarfFunction *> KernelDwarf::match(const std::string &name_glob,
                                                      const std::string &file_glob) const {
  std::vector<const DwarfFunction *> out;
  bool literal = name_glob.find_first_of("*?[") == std::string::npos;
  auto first = functions_.begin(), last = functions_.end();
  if (literal) {
    auto range = std::equal_range(
        functions_.begin(), functions_.end(), name_glob, [](const auto &a, const auto &b) {
          if constexpr (std::is_same_v<std::decay_t<decltype(a)>, std::string>) return a < b.name;
          else return a.name < b;
        });
    first = range.first;
    last = range.second;
  }
  for (auto it = first; it != last; ++it) {
    if (!literal && fnmatch(name_glob.c_str(), it->name.c_str(), 0) != 0) continue;
    if (!file_glob.empty() && !file_matches(file_glob, it->file)) continue;
    out.push_back(&*it);
  }
  // A clone by its own ELF name ("f.isra.0"): DWARF names it f.
  if (literal && out.empty() && name_glob.find('.') != std::string::npos)
    for (const DwarfFunction &f : functions_)
      if (f.clone == name_glob && (file_glob.empty() || file_matches(file_glob, f.file)))
        out.push_back(&f);
  return out;
}

std::vector<DwarfLine> KernelDwarf::lines(const DwarfFunction &f, int first, int last) const {
  Impl &im = *impl_;
  std::vector<DwarfLine> out;
  Dwarf_Die die, cu;
  if (!dwarf_offdie(im.dw, f.die, &die) || !dwarf_diecu(&die, &cu, nullptr, nullptr)) return out;
  Dwarf_Lines *table;
  size_t n;
  if (dwarf_getsrclines(&cu, &table, &n) != 0) return out;
  // f's own lines run from its declaration to the next function declared
  // in the same file: rows outside are code inlined from elsewhere.
  int end_line = 1 << 30;
  for (const auto &g : functions_)
    if (g.file == f.file && g.line > f.line && g.line < end_line) end_line = g.line;
  first = std::max(first, f.line);
  last = std::min(last, end_line - 1);
  // A line's is_stmt rows are where its statements begin; a line that has
  // only other rows (code the compiler moved or merged) is probed at its
  // lowest one, as stap lists such lines too.
  std::map<int, uint64_t> lowest, lowest_other;
  for (size_t i = 0; i < n; ++i) {
    Dwarf_Line *l = dwarf_onesrcline(table, i);
    int lineno;
    Dwarf_Addr addr;
    bool stmt = false, end = false;
    if (dwarf_lineno(l, &lineno) != 0 || dwarf_lineaddr(l, &addr) != 0) continue;
    dwarf_linebeginstatement(l, &stmt);
    dwarf_lineendsequence(l, &end);
    if (end || lineno < first || lineno > last) continue;
    const char *src = dwarf_linesrc(l, nullptr, nullptr);
    if (!src || f.file != src) continue;
    if (dwarf_haspc(&die, addr) != 1) continue;
    auto [it, fresh] = (stmt ? lowest : lowest_other).emplace(lineno, addr + im.bias);
    if (!fresh && addr + im.bias < it->second) it->second = addr + im.bias;
  }
  for (auto [line, addr] : lowest_other) lowest.emplace(line, addr);
  for (auto [line, addr] : lowest) out.push_back({line, addr});
  return out;
}

std::vector<std::pair<std::string, DwarfLine>> KernelDwarf::labels(const DwarfFunction &f,
                                                                   const std::string &glob) const {
  std::vector<std::pair<std::string, DwarfLine>> out;
  Dwarf_Die die;
  if (!dwarf_offdie(impl_->dw, f.die, &die)) return out;
  // Labels sit in the function or in its lexical blocks, not in inlined callees.
  std::vector<Dwarf_Die> todo{die};
  while (!todo.empty()) {
    Dwarf_Die scope = todo.back();
    todo.pop_back();
    Dwarf_Die c;
    if (dwarf_child(&scope, &c) != 0) continue;
    do {
      int tag = dwarf_tag(&c);
      if (tag == DW_TAG_lexical_block) todo.push_back(c);
      if (tag != DW_TAG_label) continue;
      std::string name = attr_string(&c, DW_AT_name);
      Dwarf_Addr addr;
      if (name.empty() || dwarf_lowpc(&c, &addr) != 0) continue;
      if (fnmatch(glob.c_str(), name.c_str(), 0) != 0) continue;
      int line = 0;
      dwarf_decl_line(&c, &line);
      out.push_back({name, {line, addr + impl_->bias}});
    } while (dwarf_siblingof(&c, &c) == 0);
  }
  std::sort(out.begin(), out.end(),
            [](const auto &a, const auto &b) { return a.second.addr < b.second.addr; });
  return out;
}

const DwarfFunction *KernelDwarf::function_at(uint64_t addr) const {
  Impl &im = *impl_;
  Dwarf_Die cu, c;
  Dwarf_Addr pc = addr - im.bias;
  if (!dwarf_addrdie(im.dw, pc, &cu) || dwarf_child(&cu, &c) != 0) return nullptr;
  do {
    if (dwarf_tag(&c) != DW_TAG_subprogram || dwarf_haspc(&c, pc) != 1) continue;
    uint64_t die = dwarf_dieoffset(&c);
    for (const DwarfFunction &f : functions_)
      if (f.die == die) return &f;
  } while (dwarf_siblingof(&c, &c) == 0);
  return nullptr;
}

void KernelDwarf::kprobe_site(const DwarfFunction &f, uint64_t addr, std::string *symbol,
                              uint64_t *offset) const {
  std::string prefix = module_.empty() ? "" : module_ + ":";
  if (f.inlined) {
    // Placed by the function it was inlined into.
    for (const DwarfFunction &o : functions_)
      if (o.die == f.outer) return kprobe_site(o, addr, symbol, offset);
  }
  if (!f.symbol.empty() || !module_.empty() || !stext_) {
    *symbol = prefix + (f.symbol.empty() ? f.name : f.symbol);
    *offset = addr - f.entry;
  } else {
    *symbol = "_stext";
    *offset = addr - stext_;
  }
}

bool KernelDwarf::prototype(const DwarfFunction &f, std::vector<KParam> *params,
                            int *return_type) const {
  Dwarf_Die die;
  if (!dwarf_offdie(impl_->dw, f.die, &die)) return false;
  // A clone's own DIE lists only the parameters that survive in it; the
  // source prototype is its abstract origin's.
  Dwarf_Die origin;
  for (int depth = 0;
       !f.clone.empty() && depth < 4 && attr_die(&die, DW_AT_abstract_origin, &origin); ++depth)
    die = origin;
  Dwarf_Die rt;
  *return_type = attr_die(&die, DW_AT_type, &rt) ? convert_type(&rt) : 0;
  Dwarf_Die child;
  if (dwarf_child(&die, &child) != 0) return true;
  int n = 0;
  do {
    if (dwarf_tag(&child) != DW_TAG_formal_parameter) continue;
    ++n;
    KParam p;
    p.name = attr_string(&child, DW_AT_name);
    if (p.name.empty()) p.name = "arg" + std::to_string(n);
    Dwarf_Die t;
    p.type = attr_die(&child, DW_AT_type, &t) ? convert_type(&t) : 0;
    params->push_back(std::move(p));
  } while (dwarf_siblingof(&child, &child) == 0);
  return true;
}

// A DWARF type DIE as a type of the table, converted once (by DIE offset).
// The table entry is created before its members and targets are converted,
// so recursive types (a list node pointing at its own kind) terminate.
int KernelDwarf::convert_type(const void *die_ptr) const {
  Dwarf_Die die = *static_cast<const Dwarf_Die *>(die_ptr);
  // Qualifiers are looked through, as in the BTF converter.
  bool is_const_target = false;
  for (int depth = 0; depth < 16; ++depth) {
    int tag = dwarf_tag(&die);
    if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
        tag != DW_TAG_atomic_type)
      break;
    if (tag == DW_TAG_const_type) is_const_target = true;
    Dwarf_Die next;
    if (!attr_die(&die, DW_AT_type, &next)) return 0;  // const void
    die = next;
  }
  (void)is_const_target;
  uint64_t off = dwarf_dieoffset(&die);
  if (auto it = type_of_die_.find(off); it != type_of_die_.end()) return it->second;
  KType k;
  k.name = attr_string(&die, DW_AT_name);
  Dwarf_Word size = 0;
  attr_udata(&die, DW_AT_byte_size, &size);
  k.size = size;
  int tag = dwarf_tag(&die);
  Dwarf_Die target;
  bool has_target = attr_die(&die, DW_AT_type, &target);
  switch (tag) {
    case DW_TAG_base_type: {
      Dwarf_Word enc = 0;
      attr_udata(&die, DW_AT_encoding, &enc);
      k.kind = enc == DW_ATE_float ? KTypeKind::Float : KTypeKind::Int;
      k.is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
      break;
    }
    case DW_TAG_enumeration_type: k.kind = KTypeKind::Enum; break;
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
      k.kind = KTypeKind::Pointer;
      k.size = 8;
      break;
    case DW_TAG_typedef: k.kind = KTypeKind::Typedef; break;
    case DW_TAG_structure_type:
    case DW_TAG_class_type: k.kind = KTypeKind::Struct; break;
    case DW_TAG_union_type: k.kind = KTypeKind::Union; break;
    case DW_TAG_array_type: k.kind = KTypeKind::Array; break;
    case DW_TAG_subroutine_type: k.kind = KTypeKind::Function; break;
    default: return 0;  // void, unspecified types
  }
  if (dwarf_hasattr(&die, DW_AT_declaration)) k.complete = false;
  int id = types_.add(k);
  type_of_die_.emplace(off, id);
  // From here on, types_ may grow: no references into it are kept.
  if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type) {
    bool target_const = false;
    if (has_target) {
      Dwarf_Die t = target;
      target_const = dwarf_tag(&t) == DW_TAG_const_type;
    }
    int t = has_target ? convert_type(&target) : 0;
    types_.mutable_at(id).target = t;
    types_.mutable_at(id).is_const = target_const;
  } else if (tag == DW_TAG_typedef) {
    int t = has_target ? convert_type(&target) : 0;
    types_.mutable_at(id).target = t;
  } else if (tag == DW_TAG_enumeration_type) {
    if (has_target) {
      Dwarf_Word enc = 0;
      Dwarf_Die base = target;
      attr_udata(&base, DW_AT_encoding, &enc);
      types_.mutable_at(id).is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
    }
  } else if (tag == DW_TAG_subroutine_type) {
    int r = has_target ? convert_type(&target) : 0;
    std::vector<KMember> params;
    bool variadic = false;
    Dwarf_Die c;
    if (dwarf_child(&die, &c) == 0) do {
        if (dwarf_tag(&c) == DW_TAG_unspecified_parameters) variadic = true;
        Dwarf_Die pt;
        if (dwarf_tag(&c) == DW_TAG_formal_parameter && attr_die(&c, DW_AT_type, &pt))
          params.push_back({"", convert_type(&pt), 0, 0});
      } while (dwarf_siblingof(&c, &c) == 0);
    KType &kt = types_.mutable_at(id);
    kt.target = r;
    kt.members = std::move(params);
    kt.variadic = variadic;
  } else if (tag == DW_TAG_array_type) {
    // int a[2][3]: subranges outermost first; built from the innermost.
    int elem = has_target ? convert_type(&target) : 0;
    std::vector<uint64_t> counts;
    Dwarf_Die c;
    if (dwarf_child(&die, &c) == 0) do {
        if (dwarf_tag(&c) != DW_TAG_subrange_type) continue;
        Dwarf_Word count = 0, upper;
        if (attr_udata(&c, DW_AT_count, &count)) {
        } else if (attr_udata(&c, DW_AT_upper_bound, &upper)) {
          count = upper + 1;
        }
        counts.push_back(count);
      } while (dwarf_siblingof(&c, &c) == 0);
    if (counts.empty()) counts.push_back(0);
    for (size_t i = counts.size(); i-- > 1;) {
      KType inner;
      inner.kind = KTypeKind::Array;
      inner.target = elem;
      inner.count = counts[i];
      inner.size = counts[i] * types_.at(types_.strip_typedefs(elem)).size;
      elem = types_.add(inner);
    }
    uint64_t elem_size = types_.at(types_.strip_typedefs(elem)).size;
    KType &kt = types_.mutable_at(id);
    kt.target = elem;
    kt.count = counts[0];
    kt.size = counts[0] * elem_size;
  } else if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type) {
    std::vector<KMember> members;
    Dwarf_Die c;
    if (dwarf_child(&die, &c) == 0) do {
        if (dwarf_tag(&c) != DW_TAG_member) continue;
        KMember m;
        m.name = attr_string(&c, DW_AT_name);
        Dwarf_Die mt;
        m.type = attr_die(&c, DW_AT_type, &mt) ? convert_type(&mt) : 0;
        Dwarf_Word byte_off = 0, bit_size = 0, data_bit = 0, old_bit = 0, storage = 0;
        attr_udata(&c, DW_AT_data_member_location, &byte_off);
        if (attr_udata(&c, DW_AT_bit_size, &bit_size)) m.bit_size = static_cast<uint32_t>(bit_size);
        if (attr_udata(&c, DW_AT_data_bit_offset, &data_bit)) {
          m.bit_offset = data_bit;
        } else if (m.bit_size && attr_udata(&c, DW_AT_bit_offset, &old_bit)) {
          // DWARF 2/3: counted from the storage unit's most significant bit.
          if (!attr_udata(&c, DW_AT_byte_size, &storage))
            storage = types_.at(types_.strip_typedefs(m.type)).size;
          m.bit_offset = byte_off * 8 + storage * 8 - old_bit - bit_size;
        } else {
          m.bit_offset = byte_off * 8;
        }
        members.push_back(std::move(m));
      } while (dwarf_siblingof(&c, &c) == 0);
    types_.mutable_at(id).members = std::move(members);
  }
  return id;
}

std::vector<std::pair<std::string, std::string>> find_debuginfo(
    const std::string &release, const std::vector<std::string> &extra, const std::string &module,
    std::string *error) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  if (module.find('/') != std::string::npos) {
    if (!fs::is_regular_file(module, ec)) {
      *error = module + ": no such file";
      return out;
    }
    std::string name = fs::path(module).stem().string();
    std::replace(name.begin(), name.end(), '-', '_');
    out.emplace_back(name, module);
    return out;
  }
  std::vector<std::string> dirs;
  for (const auto &e : extra) {
    if (fs::is_regular_file(e, ec)) {
      std::string stem = fs::path(e).stem().string();
      std::replace(stem.begin(), stem.end(), '-', '_');
      bool is_vmlinux = stem.rfind("vmlinux", 0) == 0;
      if (module.empty() ? is_vmlinux
                         : (!is_vmlinux && fnmatch(module.c_str(), stem.c_str(), 0) == 0))
        out.emplace_back(module.empty() ? "" : stem, e);
    } else {
      dirs.push_back(e);
    }
  }
  if (!out.empty()) return out;
  std::vector<std::string> looked;
  if (module.empty()) {
    std::vector<std::string> candidates;
    for (const auto &d : dirs) {
      candidates.push_back(d + "/vmlinux-" + release);
      candidates.push_back(d + "/vmlinux");
      candidates.push_back(d + "/boot/vmlinux-" + release);
    }
    candidates.push_back("/usr/lib/debug/boot/vmlinux-" + release);
    candidates.push_back("/usr/lib/debug/lib/modules/" + release + "/vmlinux");
    candidates.push_back("/lib/modules/" + release + "/build/vmlinux");
    std::string without_dwarf;
    for (const auto &c : candidates) {
      if (fs::is_regular_file(c, ec)) {
        if (has_dwarf(c)) {
          out.emplace_back("", c);
          return out;
        }
        without_dwarf += "; " + c + " has no DWARF";
      }
      looked.push_back(c);
    }
    *error = "no debuginfo for the kernel " + release + " (looked for " + looked.front() +
             (looked.size() > 1 ? " and " + std::to_string(looked.size() - 1) + " more" : "") +
             without_dwarf + "; on Debian it is the package linux-image-" + release + "-dbg)";
    return out;
  }
  dirs.push_back("/usr/lib/debug/lib/modules/" + release);
  std::map<std::string, std::string> found;  // first directory wins
  for (const auto &d : dirs) {
    if (!fs::is_directory(d, ec)) continue;
    for (auto it = fs::recursive_directory_iterator(d, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const auto &p = it->path();
      if (p.extension() != ".ko" && p.extension() != ".debug") continue;
      std::string stem = p.filename().string();
      stem = stem.substr(0, stem.find('.'));
      std::replace(stem.begin(), stem.end(), '-', '_');
      std::string want = module;
      std::replace(want.begin(), want.end(), '-', '_');
      if (fnmatch(want.c_str(), stem.c_str(), 0) == 0) found.emplace(stem, p.string());
    }
  }
  for (auto &[name, path] : found) out.emplace_back(name, path);
  if (out.empty()) {
    *error = "no debuginfo for module '" + module + "' of " + release + " (looked under " +
             dirs.back() + (dirs.size() > 1 ? " and the --debuginfo directories" : "") + ")";
    // A module built into the kernel has no .ko: its functions are the kernel's.
    std::ifstream builtin("/lib/modules/" + release + "/modules.builtin");
    std::string want = module, line;
    std::replace(want.begin(), want.end(), '-', '_');
    while (std::getline(builtin, line)) {
      std::string stem = fs::path(line).filename().string();
      stem = stem.substr(0, stem.find('.'));
      std::replace(stem.begin(), stem.end(), '-', '_');
      if (fnmatch(want.c_str(), stem.c_str(), 0) == 0) {
        *error += "; " + stem + " is built into this kernel: probe it as kernel.function(...)";
        break;
      }
    }
  }
  return out;
}

}  // namespace xtap
