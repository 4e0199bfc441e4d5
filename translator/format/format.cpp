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
// C ignores '0' (and GCC warns). With W the width, P the precision and up
// to K columns of sign and prefix before the digits ("-", "+", "0x", "0"),
// the digits take max(W - k, digits, P) columns: when W - K >= P, the
// precision changes nothing and goes (%08.3d is %08d); when W - k <= P for
// every k, the zeros up to the width are none and '0' goes (%05.5d is
// %5.5d). With K - k at most 1 one of the two always holds.
void zero_pad_without_precision(const FormatPiece &p, std::string *flags, bool *has_precision) {
  size_t zero = flags->find('0');
  // A width from an argument (*) is known only at run time: left as written.
  if (zero == std::string::npos || !p.has_precision || p.precision == "*" || p.width == "*") return;
  int most = 0, least = 0;  // columns of sign and prefix
  if (is_signed_conv(p.conv)) {
    bool sign = flags->find('+') != std::string::npos || flags->find(' ') != std::string::npos;
    most = 1, least = sign ? 1 : 0;
  } else if (flags->find('#') != std::string::npos) {
    most = p.conv == 'o' ? 1 : 2, least = p.conv == 'o' ? 0 : 2;  // %#o: "0" only before non-zero
  }
  int width = p.width.empty() ? 0 : std::stoi(p.width), prec = std::stoi(p.precision);
  if (width - most >= prec) *has_precision = false;
  else if (width - least <= prec) flags->erase(zero, 1);
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
    bool has_precision = p.has_precision;
    zero_pad_without_precision(p, &flags, &has_precision);
    out += '%';
    out += flags;
    out += p.width;
    // The kernel ignores a precision of %c; GCC warns about it.
    if (has_precision && (p.conv != 'c' || precision == "*")) out += '.' + precision;
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
