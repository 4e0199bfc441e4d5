// Pass 3: the kernel and module variables a script reads by address
// (@var, globals seen from a DWARF probe) are relocated when the module is
// loaded. Target expressions name them as xtap_data_symbol("sym"); this
// step gives each symbol a slot of a table that the generated
// module_init fills through the runtime (runtime-kmod/data_symbols.c)
// before any probe is armed, so a module built on one boot runs on
// another (KASLR, module load addresses).
#pragma once

#include <string>

namespace xtap {

// Markers emit_module() leaves where the table and its resolution go.
inline constexpr const char *kDataSymbolsTableMarker = "/* xtap: data symbol table */";
inline constexpr const char *kDataSymbolsInitMarker = "/* xtap: resolve data symbols */";

// `c` with the markers replaced and every xtap_data_symbol("sym") turned
// into its slot (markers are dropped when nothing is relocated).
std::string relocate_data_symbols(const std::string &c);

}  // namespace xtap
