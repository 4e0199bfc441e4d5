// A struct, union or typedef of one by name in a DWARF file, for
// @cast(p, "T", "<header.h>"): the types of user-space headers, which
// header_types.cpp compiles into an object with their DWARF.
#include <dwarf.h>

#include <cstring>

#include "symbols/dwarf_impl.h"

namespace xtap {

int KernelDwarf::find_named_record(const std::string &name) const {
  Impl &im = *impl_;
  std::string tag_name = name;
  int want = 0;  // 0: a struct or union tag, or a typedef of one
  if (tag_name.starts_with("struct ")) tag_name = tag_name.substr(7), want = DW_TAG_structure_type;
  else if (tag_name.starts_with("union ")) tag_name = tag_name.substr(6), want = DW_TAG_union_type;
  Dwarf_Die *cu = nullptr;
  Dwarf_Addr cu_bias;
  int typedef_found = -1;
  while ((cu = dwfl_module_nextcu(im.mod, cu, &cu_bias)) != nullptr) {
    Dwarf_Die die;
    if (dwarf_child(cu, &die) != 0) continue;
    do {
      int tag = dwarf_tag(&die);
      if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type && tag != DW_TAG_typedef)
        continue;
      if (want ? tag != want : false) continue;
      const char *n = dwarf_diename(&die);
      if (!n || tag_name != n || dwarf_hasattr(&die, DW_AT_declaration)) continue;
      int id = convert_type(&die);
      const KType &t = types_.at(types_.strip_typedefs(id));
      if ((t.kind != KTypeKind::Struct && t.kind != KTypeKind::Union) || !t.complete) continue;
      // A tag wins over a typedef of the same name.
      if (tag != DW_TAG_typedef) return id;
      if (typedef_found < 0) typedef_found = id;
    } while (dwarf_siblingof(&die, &die) == 0);
  }
  return typedef_found;
}

}  // namespace xtap
