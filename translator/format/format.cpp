#include "format/format.h"

namespace xtap {

std::string kernel_format(const Format &f) {
  std::string out;
  for (const auto &p : f.pieces) {
    if (p.literal) {
      for (char c : p.text) {
        if (c == '%') out += '%';
        out += c;
      }
      continue;
    }
    if (p.conv == 'p') {
      // stap: "0x" and the hex digits, the width counting the prefix.
      out += "%#" + p.flags + p.width + "llx";
      continue;
    }
    out += '%';
    out += p.flags;
    out += p.width;
    if (p.has_precision) out += '.' + p.precision;
    switch (p.conv) {
      case 'd':
      case 'i': out += "lld"; break;
      case 'u': out += "llu"; break;
      case 'x': out += "llx"; break;
      case 'X': out += "llX"; break;
      case 'o': out += "llo"; break;
      case 'c': out += 'c'; break;
      case 's': out += 's'; break;
      case 'p': out += "llx"; break;
    }
  }
  return out;
}

}  // namespace xtap
