#include "format/format.h"

#include <algorithm>
#include <cstring>

namespace xtap {
namespace {

bool is_signed_conv(char c) { return c == 'd' || c == 'i'; }
bool is_int_conv(char c) { return is_signed_conv(c) || std::strchr("uxXop", c) != nullptr; }

// The flags of one conversion as the C compiler's format check (-Wformat)
// accepts them, with the same output from the kernel's vsnprintf: a flag
// it ignores for the conversion is dropped ('+' and ' ' of an unsigned
// one, ' ' beside '+', '#' of a decimal, '0' of %s and %c or beside '-'),
// and a repeated flag is written once.
std::string kernel_flags(const FormatPiece &p) {
  bool left = p.flags.find('-') != std::string::npos;
  bool plus = p.flags.find('+') != std::string::npos;
  bool hex_or_octal = p.conv == 'x' || p.conv == 'X' || p.conv == 'o';
  std::string out;
  for (char f : p.flags) {
    if (out.find(f) != std::string::npos) continue;
    if ((f == '+' || f == ' ') && !is_signed_conv(p.conv)) continue;
    if (f == ' ' && plus) continue;
    if (f == '#' && !hex_or_octal) continue;
    if (f == '0' && (!is_int_conv(p.conv) || left)) continue;
    out += f;
  }
  return out;
}

// The kernel pads with zeros up to the width even with a precision, where
// C ignores '0' (and GCC warns). When no sign can take a column, the same
// digits come from a precision as large as the width, without '0':
// %08.3x is %8.8x. (A %d without '+' or ' ' keeps its '0': whether a '-'
// takes a column is known only at run time; %#o's prefix likewise.)
void zero_pad_as_precision(const FormatPiece &p, std::string *flags, std::string *precision) {
  size_t zero = flags->find('0');
  if (zero == std::string::npos || !p.has_precision || p.precision == "*" || p.width.empty() ||
      p.width == "*")
    return;
  int prefix = 0;
  if (is_signed_conv(p.conv)) {
    if (flags->find('+') == std::string::npos && flags->find(' ') == std::string::npos) return;
    prefix = 1;
  } else if (flags->find('#') != std::string::npos) {
    if (p.conv == 'o') return;  // its "0" prefix is there only for a value other than 0
    prefix = 2;
  }
  int width = std::stoi(p.width), prec = std::stoi(p.precision);
  *precision = std::to_string(std::max(prec, width - prefix));
  flags->erase(zero, 1);
}

}  // namespace

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
    std::string flags = kernel_flags(p);
    if (p.conv == 'p') {
      // stap: "0x" and the hex digits, the width counting the prefix.
      flags.erase(std::remove(flags.begin(), flags.end(), '#'), flags.end());
      out += "%#" + flags + p.width + "llx";
      continue;
    }
    std::string precision = p.precision;
    zero_pad_as_precision(p, &flags, &precision);
    out += '%';
    out += flags;
    out += p.width;
    // The kernel ignores a precision of %c; GCC warns about it.
    if (p.has_precision && (p.conv != 'c' || precision == "*")) out += '.' + precision;
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
