// The calls a function makes, for kernel.function("f").callee("g"): GCC
// describes each direct call with a call-site DIE under the caller's
// subprogram (DW_TAG_call_site in DWARF 5, DW_TAG_GNU_call_site in DWARF 4
// with GNU extensions), naming the callee (DW_AT_call_origin, or
// DW_AT_abstract_origin in the GNU form) and the address the call returns
// to (DW_AT_call_return_pc; the GNU form's DW_AT_low_pc). Calls made from
// code inlined into the function return into the function too, so the
// walk enters lexical blocks and inlined instances.
#include <dwarf.h>

#include <algorithm>

#include "symbols/dwarf_impl.h"

namespace xtap {
namespace {

void collect_calls(Dwarf_Die *die, Dwarf_Addr bias, int depth, std::vector<DwarfCallSite> *out) {
  Dwarf_Die c;
  if (depth > 64 || dwarf_child(die, &c) != 0) return;
  do {
    int tag = dwarf_tag(&c);
    if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
      Dwarf_Attribute a;
      Dwarf_Die callee;
      bool named =
          (dwarf_attr(&c, DW_AT_call_origin, &a) || dwarf_attr(&c, DW_AT_abstract_origin, &a)) &&
          dwarf_formref_die(&a, &callee);
      Dwarf_Addr ret = 0;
      bool have_ret =
          (dwarf_attr(&c, DW_AT_call_return_pc, &a) || dwarf_attr(&c, DW_AT_low_pc, &a)) &&
          dwarf_formaddr(&a, &ret) == 0;
      const char *name = named ? dwarf_diename(&callee) : nullptr;
      if (!name && named && dwarf_attr_integrate(&callee, DW_AT_name, &a))
        name = dwarf_formstring(&a);
      if (name && have_ret) {
        DwarfCallSite s;
        s.callee = name;
        s.callee_die = dwarf_dieoffset(&callee);
        s.return_pc = ret + bias;
        s.tail = dwarf_hasattr(&c, DW_AT_call_tail_call) || dwarf_hasattr(&c, DW_AT_GNU_tail_call);
        out->push_back(std::move(s));
      }
    } else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine) {
      collect_calls(&c, bias, depth + 1, out);
    }
  } while (dwarf_siblingof(&c, &c) == 0);
}

}  // namespace

std::vector<DwarfCallSite> KernelDwarf::call_sites(const DwarfFunction &f) const {
  std::vector<DwarfCallSite> out;
  Dwarf_Die die;
  if (!dwarf_offdie(impl_->dw, f.die, &die)) return out;
  collect_calls(&die, impl_->bias, 0, &out);
  std::sort(out.begin(), out.end(), [](const DwarfCallSite &a, const DwarfCallSite &b) {
    return a.return_pc < b.return_pc;
  });
  return out;
}

}  // namespace xtap
