#include "common/c_writer.h"

#include <cstdio>

namespace xtap {

std::string hex_address(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string c_string_literal(const std::string &s) {
  std::string out = "\"";
  bool last_was_hex = false;
  for (unsigned char c : s) {
    bool hex = false;
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '?': out += "\\?"; break;  // no trigraphs
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
          hex = true;
        } else {
          // A hex escape swallows following hex digits: split the literal.
          if (last_was_hex && isxdigit(c)) out += "\"\"";
          out += static_cast<char>(c);
        }
    }
    last_was_hex = hex;
  }
  return out + "\"";
}

}  // namespace xtap
