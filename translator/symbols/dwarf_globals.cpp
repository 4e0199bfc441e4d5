// Globals and file statics for @var("name@file") and for `$name` where a
// function's own scopes do not have it. A variable at a fixed address has
// the location DW_OP_addr ADDR, ADDR as linked; the runtime finds it at
// load time through a symbol that moves with it (KASLR moves the whole
// vmlinux image by one offset; a module's sections are placed one by one,
// so a module static is placed by a symbol of its own section).
#include <dwarf.h>
#include <gelf.h>

#include <algorithm>
#include <cstring>

#include "symbols/dwarf_impl.h"

namespace xtap {
namespace {

std::string name_of(Dwarf_Die *die) {
  Dwarf_Attribute a;
  if (!dwarf_attr_integrate(die, DW_AT_name, &a)) return "";
  const char *s = dwarf_formstring(&a);
  return s ? s : "";
}

}  // namespace

void KernelDwarf::Impl::read_symbols() {
  Impl &im = *this;
  if (im.symbols_read) return;
  im.symbols_read = true;
  int n = dwfl_module_getsymtab(im.mod);
  for (int i = 0; i < n; ++i) {
    GElf_Sym sym;
    GElf_Addr addr;
    GElf_Word shndx;
    const char *name = dwfl_module_getsym_info(im.mod, i, &sym, &addr, &shndx, nullptr, nullptr);
    if (!name || !*name || sym.st_shndx == SHN_UNDEF) continue;
    int type = GELF_ST_TYPE(sym.st_info);
    if (type == STT_SECTION || type == STT_FILE) continue;
    ++im.symbol_count[name];
    im.symbols.push_back(
        {name, addr, sym.st_size, sym.st_shndx == SHN_XINDEX ? shndx : sym.st_shndx});
  }
  std::sort(im.symbols.begin(), im.symbols.end(),
            [](const auto &a, const auto &b) { return a.addr < b.addr; });
}

void KernelDwarf::place_global(uint64_t addr, DwarfGlobal *g) const {
  Impl &im = *impl_;
  im.read_symbols();
  std::string prefix = module_.empty() ? "" : module_ + ":";
  auto unique = [&](const Impl::Symbol &s) { return im.symbol_count[s.name] == 1; };
  const Impl::Symbol *own = nullptr, *container = nullptr;
  for (const auto &s : im.symbols) {
    if (s.addr > addr) break;
    if (s.addr == addr && s.name == g->name && unique(s)) own = &s;
    if (s.addr <= addr && addr < s.addr + std::max<uint64_t>(s.size, 1)) container = &s;
  }
  // kallsyms leaves out its own tables (kallsyms_names ...), so the
  // runtime could not look them up by name: they are placed by _stext.
  if (own && !(module_.empty() && own->name.starts_with("kallsyms_"))) {
    g->symbol = prefix + own->name;
    g->offset = 0;
    return;
  }
  if (module_.empty()) {
    if (!stext_) {
      g->why = "the debuginfo has no _stext symbol to relocate it by";
      return;
    }
    g->symbol = "_stext";
    g->offset = static_cast<int64_t>(addr - stext_);
    return;
  }
  // A module static whose name repeats: the nearest uniquely named symbol
  // of its section.
  if (!container) {
    g->why = "no symbol of the module contains its address";
    return;
  }
  const Impl::Symbol *best = nullptr;
  for (const auto &s : im.symbols)
    if (s.shndx == container->shndx && unique(s) &&
        (!best || std::llabs(static_cast<long long>(s.addr - addr)) <
                      std::llabs(static_cast<long long>(best->addr - addr))))
      best = &s;
  if (!best) {
    g->why = "no uniquely named symbol of its section to relocate it by";
    return;
  }
  g->symbol = prefix + best->name;
  g->offset = static_cast<int64_t>(addr - best->addr);
}

bool KernelDwarf::global_of_die(const void *die_ptr, const std::string &file,
                                DwarfGlobal *out) const {
  Dwarf_Die die = *static_cast<const Dwarf_Die *>(die_ptr);
  DwarfGlobal g;
  g.name = name_of(&die);
  g.file = file;
  Dwarf_Attribute a;
  Dwarf_Die t;
  g.type = dwarf_attr_integrate(&die, DW_AT_type, &a) && dwarf_formref_die(&a, &t)
               ? convert_type(&t)
               : 0;
  Dwarf_Op *ops = nullptr;
  size_t n = 0;
  if (dwarf_hasattr(&die, DW_AT_declaration)) {
    // Declared in C, defined elsewhere (jiffies by the linker script,
    // kallsyms_names by generated assembly): the symbol table places it.
    Impl &im = *impl_;
    im.read_symbols();
    if (im.symbol_count[g.name] != 1) return false;
    auto it = std::find_if(im.symbols.begin(), im.symbols.end(),
                           [&](const Impl::Symbol &s) { return s.name == g.name; });
    place_global(it->addr, &g);
  } else if (!dwarf_attr(&die, DW_AT_location, &a)) {
    if (dwarf_attr(&die, DW_AT_const_value, &a)) g.why = "it is a constant the compiler folded in";
    else g.why = "it is optimised out (it has no location)";
  } else if (dwarf_getlocation(&a, &ops, &n) != 0 || n != 1 || ops[0].atom != DW_OP_addr) {
    g.why = "it is not at a fixed address";
  } else {
    place_global(ops[0].number + impl_->bias, &g);
  }
  *out = std::move(g);
  return true;
}

std::vector<DwarfGlobal> KernelDwarf::globals(const std::string &name,
                                              const std::string &file_glob) const {
  Impl &im = *impl_;
  std::string key = name + "@" + file_glob;
  if (auto it = im.globals_found.find(key); it != im.globals_found.end()) return it->second;
  std::vector<DwarfGlobal> out;
  Dwarf_Die *cu = nullptr;
  Dwarf_Addr cu_bias;
  // Where no unit defines it (jiffies: the linker script does), the first
  // declaration gives its type and the symbol table its place.
  Dwarf_Die declaration;
  std::string declared_in;
  while ((cu = dwfl_module_nextcu(im.mod, cu, &cu_bias)) != nullptr) {
    const char *cu_name = dwarf_diename(cu);
    std::string file = cu_name ? cu_name : "";
    if (!file_glob.empty() && !file_matches(file_glob, file)) continue;
    Dwarf_Die die;
    if (dwarf_child(cu, &die) != 0) continue;
    do {
      if (dwarf_tag(&die) != DW_TAG_variable || name_of(&die) != name) continue;
      if (dwarf_hasattr(&die, DW_AT_declaration)) {
        if (declared_in.empty()) declaration = die, declared_in = file;
        continue;
      }
      DwarfGlobal g;
      if (global_of_die(&die, file, &g)) out.push_back(std::move(g));
    } while (dwarf_siblingof(&die, &die) == 0);
  }
  DwarfGlobal g;
  if (out.empty() && !declared_in.empty() && global_of_die(&declaration, declared_in, &g))
    out.push_back(std::move(g));
  im.globals_found.emplace(key, out);
  return out;
}

bool KernelDwarf::global_seen_from(const DwarfFunction &f, const std::string &name,
                                   DwarfGlobal *out) const {
  Impl &im = *impl_;
  Dwarf_Die fn, cu;
  if (!dwarf_offdie(im.dw, f.die, &fn) || !dwarf_diecu(&fn, &cu, nullptr, nullptr)) return false;
  const char *cu_name = dwarf_diename(&cu);
  Dwarf_Die die;
  if (dwarf_child(&cu, &die) != 0) return false;
  bool declared = false;
  do {
    if (dwarf_tag(&die) != DW_TAG_variable || name_of(&die) != name) continue;
    if (dwarf_hasattr(&die, DW_AT_declaration)) {
      declared = true;
      continue;
    }
    return global_of_die(&die, cu_name ? cu_name : "", out);
  } while (dwarf_siblingof(&die, &die) == 0);
  if (!declared) return false;
  // An extern declaration: the one definition elsewhere, or, when no
  // compilation unit defines it, the symbol of that name.
  std::vector<DwarfGlobal> defs = globals(name, "");
  if (defs.size() == 1) {
    *out = defs.front();
    return true;
  }
  if (!defs.empty() || dwarf_child(&cu, &die) != 0) return false;
  do {
    if (dwarf_tag(&die) == DW_TAG_variable && name_of(&die) == name)
      return global_of_die(&die, cu_name ? cu_name : "", out);
  } while (dwarf_siblingof(&die, &die) == 0);
  return false;
}

}  // namespace xtap
