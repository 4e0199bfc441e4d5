#include "format/format.h"

#include <cctype>

namespace xtap {

bool Format::has_raw_conversions() const {
  for (const auto &p : pieces)
    if (!p.literal && (p.conv == 'b' || p.conv == 'm' || p.conv == 'M')) return true;
  return false;
}

size_t Format::arg_count() const {
  size_t n = 0;
  for (const auto &p : pieces) {
    if (p.literal || p.conv == '%') continue;
    n += 1 + (p.width == "*") + (p.precision == "*");
  }
  return n;
}

Format parse_format(const std::string &fmt) {
  Format f;
  std::string lit;
  size_t i = 0;
  auto flush = [&] {
    if (lit.empty()) return;
    FormatPiece p;
    p.text = lit;
    f.pieces.push_back(p);
    lit.clear();
  };
  while (i < fmt.size()) {
    if (fmt[i] != '%') {
      lit += fmt[i++];
      continue;
    }
    size_t start = i++;
    FormatPiece p;
    p.literal = false;
    while (i < fmt.size() && std::string_view("-+ #0").find(fmt[i]) != std::string_view::npos)
      p.flags += fmt[i++];
    if (i < fmt.size() && fmt[i] == '*') {
      p.width = "*";
      ++i;
    } else {
      while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) p.width += fmt[i++];
    }
    if (i < fmt.size() && fmt[i] == '.') {
      p.has_precision = true;
      ++i;
      if (i < fmt.size() && fmt[i] == '*') {
        p.precision = "*";
        ++i;
      } else {
        while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i])))
          p.precision += fmt[i++];
      }
    }
    for (const std::string *n : {&p.width, &p.precision})
      if (*n != "*" && n->size() > 4) {  // > 9999: the kernel's vsnprintf would warn
        f.error = "field width or precision too large in '" + fmt.substr(start, i - start) + "'";
        f.error_offset = static_cast<int>(start);
        return f;
      }
    // Length modifiers are accepted and ignored: every script number is 64-bit.
    while (i < fmt.size() && (fmt[i] == 'l' || fmt[i] == 'h' || fmt[i] == 'L' || fmt[i] == 'j' ||
                              fmt[i] == 'z' || fmt[i] == 't'))
      ++i;
    if (i >= fmt.size()) {
      f.error = "incomplete conversion at the end of the format";
      f.error_offset = static_cast<int>(start);
      return f;
    }
    p.conv = fmt[i++];
    p.text = fmt.substr(start, i - start);
    switch (p.conv) {
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': case 'p':
        p.arg_type = Type::Long;
        break;
      case 'b':
        if (!p.width.empty() && p.width != "1" && p.width != "2" && p.width != "4" && p.width != "8") {
          f.error = "'%b' takes a width of 1, 2, 4 or 8 bytes";
          f.error_offset = static_cast<int>(start);
          return f;
        }
        p.arg_type = Type::Long;
        break;
      case 'm': case 'M':
        p.arg_type = Type::Long;  // an address; the precision is the byte count
        break;
      case 's':
        p.arg_type = Type::String;
        break;
      case '%':
        if (p.text != "%%") {
          f.error = "'%' conversion takes no flags or width";
          f.error_offset = static_cast<int>(start);
          return f;
        }
        lit += '%';
        continue;
      default:
        f.error = std::string("unsupported conversion '%") + p.conv + "'";
        f.error_offset = static_cast<int>(start);
        return f;
    }
    flush();
    f.pieces.push_back(p);
  }
  flush();
  return f;
}

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
      case 'd': case 'i': out += "lld"; break;
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
