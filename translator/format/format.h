// printf-style format strings of the script language: parsed once, checked
// in pass 2 and translated to the kernel's vsnprintf dialect in pass 3.
#pragma once

#include <string>
#include <vector>

#include "parse/ast.h"

namespace xtap {

struct FormatPiece {
  bool literal = true;
  std::string text;      // literal text (unescaped), or the conversion as written
  // Conversion:
  std::string flags;     // any of "-+ #0"
  std::string width;     // digits or "*"
  std::string precision; // digits or "*" (without the dot); empty = none
  bool has_precision = false;
  char conv = 0;         // d i u x X o c s p, b (raw bytes), m M (memory)
  Type arg_type = Type::Unknown;  // what the conversion consumes
};

struct Format {
  std::vector<FormatPiece> pieces;
  std::string error;      // non-empty: why the format is invalid
  int error_offset = 0;   // byte offset of the bad conversion in the format
  // Number of arguments consumed, counting '*' width/precision.
  size_t arg_count() const;
  // %b %m %M: written by the runtime, not by vsnprintf.
  bool has_raw_conversions() const;
};

Format parse_format(const std::string &fmt);

// The format translated for the kernel's vsnprintf, with each script
// argument cast so that it matches (see FormatPiece::conv).
std::string kernel_format(const Format &f);

}  // namespace xtap
