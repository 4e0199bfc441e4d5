// Inlined instances of functions (DW_TAG_inlined_subroutine): where a
// function's body was copied into a caller. kernel.function("f").inline
// probes each copy's entry pc, and plain kernel.function("f") does too, as
// in stap. Finding them means walking every function's DIE tree (inlined
// instances nest inside lexical blocks and other inlined instances), so
// it is done once, on first use, and kept in memory only.
#include <dwarf.h>
#include <fnmatch.h>

#include <algorithm>

#include "symbols/dwarf_impl.h"

namespace xtap {
namespace {

std::string name_of(Dwarf_Die *die) {
  Dwarf_Attribute a;
  const char *s = dwarf_attr_integrate(die, DW_AT_name, &a) ? dwarf_formstring(&a) : nullptr;
  return s ? s : "";
}

// Appends the inlined instances under `die` (which belongs to the function
// at offset `outer`); `depth` bounds pathological nesting.
void collect(Dwarf_Die *die, uint64_t outer, Dwarf_Addr bias, int depth,
             std::vector<DwarfFunction> *out) {
  Dwarf_Die c;
  if (depth > 64 || dwarf_child(die, &c) != 0) return;
  do {
    int tag = dwarf_tag(&c);
    if (tag == DW_TAG_inlined_subroutine) {
      Dwarf_Addr entry;
      DwarfFunction f;
      f.name = name_of(&c);
      if (!f.name.empty() && dwarf_entrypc(&c, &entry) == 0) {
        const char *file = dwarf_decl_file(&c);
        f.file = file ? file : "";
        dwarf_decl_line(&c, &f.line);
        f.entry = entry + bias;
        f.die = dwarf_dieoffset(&c);
        f.inlined = true;
        f.outer = outer;
        out->push_back(std::move(f));
      }
    }
    if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block)
      collect(&c, outer, bias, depth + 1, out);
  } while (dwarf_siblingof(&c, &c) == 0);
}

}  // namespace

std::vector<const DwarfFunction *> KernelDwarf::match_inlined(const std::string &name_glob,
                                                              const std::string &file_glob) const {
  Impl &im = *impl_;
  if (!inlined_scanned_) {
    inlined_scanned_ = true;
    for (const DwarfFunction &f : functions_) {
      Dwarf_Die die;
      if (dwarf_offdie(im.dw, f.die, &die)) collect(&die, f.die, im.bias, 0, &inlined_);
    }
    std::sort(inlined_.begin(), inlined_.end(), [](const DwarfFunction &a, const DwarfFunction &b) {
      return a.name != b.name   ? a.name < b.name
             : a.file != b.file ? a.file < b.file
                                : a.entry < b.entry;
    });
  }
  std::vector<const DwarfFunction *> out;
  for (const DwarfFunction &f : inlined_) {
    if (fnmatch(name_glob.c_str(), f.name.c_str(), 0) != 0) continue;
    if (!file_glob.empty() && !file_matches(file_glob, f.file)) continue;
    out.push_back(&f);
  }
  return out;
}

}  // namespace xtap
