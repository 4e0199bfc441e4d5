// printf-style format strings of the script language: parsed once
// (common/printf_format.h, shared with xtap-run), checked in pass 2 and
// translated to the kernel's vsnprintf dialect in pass 3.
#pragma once

#include <string>

#include "common/printf_format.h"
#include "parse/ast.h"

namespace xtap {

// What a conversion consumes.
inline Type format_arg_type(const FormatPiece &p) {
  return p.conv == 's' ? Type::String : Type::Long;
}

// The format translated for the kernel's vsnprintf, with each script
// argument cast so that it matches (see FormatPiece::conv).
std::string kernel_format(const Format &f);

}  // namespace xtap
