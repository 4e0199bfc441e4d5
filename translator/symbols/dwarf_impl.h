// What dwarf.cpp and dwarf_vars.cpp share: the libdwfl session of one
// debuginfo file.
#pragma once

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <string>

#include "symbols/dwarf.h"

namespace xtap {

struct KernelDwarf::Impl {
  Dwfl *dwfl = nullptr;
  Dwfl_Module *mod = nullptr;
  Dwarf *dw = nullptr;
  Dwarf_Addr bias = 0;
  std::string build_id;
  ~Impl() {
    if (dwfl) dwfl_end(dwfl);
  }
};

}  // namespace xtap
