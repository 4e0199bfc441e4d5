// See printf_format.h.
#include "common/printf_format.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>

namespace xtap {

bool Format::has_memory_conversions() const {
  for (const auto &p : pieces)
    if (!p.literal && (p.conv == 'm' || p.conv == 'M')) return true;
  return false;
}

std::string Format::arg_kinds() const {
  std::string k;
  for (const auto &p : pieces) {
    if (p.literal) continue;
    if (p.width == "*") k += 'l';
    if (p.precision == "*") k += 'l';
    k += p.conv == 's' ? 's' : 'l';
  }
  return k;
}

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

namespace {

// The kernel's struct printf_spec, as vsnprintf decodes the conversion
// kernel_format() wrote (lib/vsprintf.c: format_decode, number, string).
enum : unsigned { kLeft = 1, kPlus = 2, kSpace = 4, kSpecial = 8, kZeroPad = 16, kSign = 32 };

unsigned flag_bit(char c) {
  switch (c) {
    case '-': return kLeft;
    case '+': return kPlus;
    case ' ': return kSpace;
    case '#': return kSpecial;
    case '0': return kZeroPad;
  }
  return 0;
}

}  // namespace

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
      while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i])))
        p.width += fmt[i++];
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
    for (char ch : p.flags) p.flag_bits |= flag_bit(ch);
    if (!p.width.empty() && p.width != "*") p.width_n = std::stoi(p.width);
    if (p.has_precision && p.precision != "*")
      p.precision_n = p.precision.empty() ? 0 : std::stoi(p.precision);
    switch (p.conv) {
      case 'd':
      case 'i':
      case 'u':
      case 'x':
      case 'X':
      case 'o':
      case 'c':
      case 'p': break;
      case 'b': {
        // How many bytes: the precision, else the width (stap's %b). A
        // number written in the format must be 1, 2, 4 or 8; one given as
        // an argument ('*') that is none of them writes 8 bytes.
        const std::string &bytes = p.has_precision ? p.precision : p.width;
        if (bytes != "*" && (p.has_precision || !bytes.empty()) && bytes != "1" && bytes != "2" &&
            bytes != "4" && bytes != "8") {
          f.error = p.has_precision ? "'%b' takes a precision (its byte count) of 1, 2, 4 or 8"
                                    : "'%b' takes a width (without a precision: its byte count) "
                                      "of 1, 2, 4 or 8";
          f.error_offset = static_cast<int>(start);
          return f;
        }
        break;
      }
      case 'm':
      case 'M':  // an address; the precision is the byte count
      case 's': break;
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

namespace {

struct Spec {
  unsigned flags = 0;
  int width = -1;
  int precision = -1;
};

char *fill(char *p, int n, char c) {
  if (n <= 0) return p;
  std::memset(p, c, size_t(n));
  return p + n;
}

char *copy(char *p, const char *s, size_t n) {
  std::memcpy(p, s, n);
  return p + n;
}

// The digits of num in base 10, 16 or 8, written backwards ending at end;
// returns where they start. Base 10 two digits a division.
char *digits(char *end, uint64_t num, int base, bool upper) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  char *p = end;
  if (base == 10) {
    while (num >= 100) {
      unsigned pair = unsigned(num % 100);
      num /= 100;
      p -= 2;
      std::memcpy(p, kPairs + size_t(2) * pair, 2);
    }
    if (num >= 10) {
      p -= 2;
      std::memcpy(p, kPairs + 2 * num, 2);
    } else {
      *--p = char('0' + num);
    }
    return p;
  }
  const char *hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  int shift = base == 16 ? 4 : 3;
  do {
    *--p = hex[num & unsigned(base - 1)];
    num >>= shift;
  } while (num);
  return p;
}

// lib/vsprintf.c number(), for base 8, 10 and 16.
void number(FormatSink *out, uint64_t num, Spec s, int base, bool upper) {
  char tmp[24];
  char sign = 0;
  bool need_pfx = (s.flags & kSpecial) && base != 10;
  bool is_zero = num == 0;
  int width = s.width, precision = s.precision;
  if (s.flags & kLeft) s.flags &= ~kZeroPad;
  if (s.flags & kSign) {
    if (int64_t(num) < 0) {
      sign = '-';
      num = 0 - num;
      width--;
    } else if (s.flags & kPlus) {
      sign = '+';
      width--;
    } else if (s.flags & kSpace) {
      sign = ' ';
      width--;
    }
  }
  if (need_pfx) {
    if (base == 16) width -= 2;
    else if (!is_zero) width--;
  }
  const char *first = digits(tmp + sizeof(tmp), num, base, upper);
  int i = int(tmp + sizeof(tmp) - first);
  if (i > precision) precision = i;
  width -= precision;
  char *p = out->room(size_t(std::max(width, 0)) + size_t(precision) + 4);
  if (!(s.flags & (kZeroPad | kLeft))) {
    p = fill(p, width, ' ');
    width = 0;
  }
  if (sign) *p++ = sign;
  if (need_pfx) {
    if (base == 16 || !is_zero) *p++ = '0';
    if (base == 16) *p++ = upper ? 'X' : 'x';
  }
  if (!(s.flags & kLeft)) {
    p = fill(p, width, (s.flags & kZeroPad) ? '0' : ' ');
    width = 0;
  }
  p = fill(p, precision - i, '0');
  p = copy(p, first, size_t(i));
  p = fill(p, width, ' ');
  out->commit(p);
}

// widen_string(): spaces only, '0' does not apply.
void padded(FormatSink *out, const char *s, size_t len, const Spec &sp) {
  int spaces = sp.width > int(len) ? sp.width - int(len) : 0;
  char *p = out->room(len + size_t(spaces));
  if (!(sp.flags & kLeft)) p = fill(p, spaces, ' ');
  p = copy(p, s, len);
  if (sp.flags & kLeft) p = fill(p, spaces, ' ');
  out->commit(p);
}

int clamp_star(uint64_t v) {
  return int(std::clamp<int64_t>(int64_t(v), 0, 32767));
}  // XTAP_FMT_WIDTH

// The conversions of f, their arguments taken from `src` in order (its
// next_long() and next_str()): FormatArgs, or an item's bytes as they lie.
template <class Source>
void format_from(const Format &f, Source &src, FormatSink &out) {
  for (const auto &p : f.pieces) {
    if (p.literal) {
      out.commit(copy(out.room(p.text.size()), p.text.data(), p.text.size()));
      continue;
    }
    Spec s;
    s.flags = p.flag_bits;
    s.width = p.width_n;
    s.precision = p.precision_n;
    if (p.width[0] == '*') s.width = clamp_star(src.next_long());
    if (p.has_precision && p.precision[0] == '*') s.precision = clamp_star(src.next_long());
    switch (p.conv) {
      case 'd':
      case 'i':
        s.flags |= kSign;
        number(&out, src.next_long(), s, 10, false);
        break;
      case 'u': number(&out, src.next_long(), s, 10, false); break;
      case 'o': number(&out, src.next_long(), s, 8, false); break;
      case 'x': number(&out, src.next_long(), s, 16, false); break;
      case 'X': number(&out, src.next_long(), s, 16, true); break;
      case 'p':  // "%#<flags><width>llx": the precision is not passed on
        s.flags |= kSpecial;
        s.precision = -1;
        number(&out, src.next_long(), s, 16, false);
        break;
      case 'c': {
        char ch = char(src.next_long());
        padded(&out, &ch, 1, s);
        break;
      }
      case 's': {
        std::string_view str = src.next_str();
        size_t len = strnlen(str.data(), str.size());  // the kernel stops at a NUL
        if (s.precision >= 0) len = std::min(len, size_t(s.precision));
        padded(&out, str.data(), len, s);
        break;
      }
      case 'b': {  // xtap_print_binary_field(): the low bytes, least significant first
        uint64_t v = src.next_long();
        int n = s.precision >= 0 ? s.precision : s.width;
        int bytes = n == 1 || n == 2 || n == 4 ? n : 8;
        char raw[8];
        for (int i = 0; i < bytes; i++) raw[i] = char(v >> (8 * i));
        // With a precision, the width is the field's, padded with spaces.
        Spec field = s;
        if (s.precision < 0) field.width = -1;
        padded(&out, raw, size_t(bytes), field);
        break;
      }
      default:
        src.next_long();  // %m %M: never in a binary record
        break;
    }
  }
}

struct ArgsSource {
  const FormatArgs &args;
  size_t nl = 0, ns = 0;
  uint64_t next_long() { return nl < args.longs.size() ? args.longs[nl++] : 0; }
  std::string_view next_str() {
    return ns < args.strs.size() ? args.strs[ns++] : std::string_view();
  }
};

// A binary printf item's values where they lie: a little-endian u64 per
// long, a u32 length and the bytes per string. Past `end` it gives 0 or ""
// and remembers the item was cut short.
struct ItemSource {
  const char *p, *end;
  bool cut = false;
  uint64_t next_long() {
    uint64_t v = 0;
    if (end - p < 8) {
      cut = true;
      return 0;
    }
    std::memcpy(&v, p, 8);  // the runner runs on the module's machine: same byte order
    p += 8;
    return v;
  }
  std::string_view next_str() {
    uint32_t n;
    if (end - p < 4 || (std::memcpy(&n, p, 4), uint64_t(end - p - 4) < n)) {
      cut = true;
      return {};
    }
    std::string_view v(p + 4, n);
    p += 4 + n;
    return v;
  }
};

}  // namespace

void format_kernel(const Format &f, const FormatArgs &args, std::string *out) {
  FormatSink sink(out);
  format_kernel(f, args, &sink);
}

void format_kernel(const Format &f, const FormatArgs &args, FormatSink *sink) {
  ArgsSource src{args};
  format_from(f, src, *sink);
}

bool format_item(const Format &f, const char **p, const char *end, FormatSink *sink) {
  size_t mark = sink->mark();
  ItemSource src{*p, end};
  format_from(f, src, *sink);
  if (src.cut) {
    sink->rewind(mark);
    return false;
  }
  *p = src.p;
  return true;
}

}  // namespace xtap
