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
    for (char ch : p.flags) p.flag_bits |= flag_bit(ch);
    if (!p.width.empty() && p.width != "*") p.width_n = std::stoi(p.width);
    if (p.has_precision && p.precision != "*") p.precision_n = p.precision.empty() ? 0 : std::stoi(p.precision);
    switch (p.conv) {
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': case 'p':
        break;
      case 'b':
        if (!p.width.empty() && p.width != "1" && p.width != "2" && p.width != "4" && p.width != "8") {
          f.error = "'%b' takes a width of 1, 2, 4 or 8 bytes";
          f.error_offset = static_cast<int>(start);
          return f;
        }
        break;
      case 'm': case 'M':  // an address; the precision is the byte count
      case 's':
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

namespace {

struct Spec {
  unsigned flags = 0;
  int width = -1;
  int precision = -1;
};

char *fill(char *p, int n, char c) {
  while (n-- > 0) *p++ = c;  // mostly a few bytes: no call
  return p;
}

// lib/vsprintf.c number(), for base 8, 10 and 16.
void number(FormatSink *out, uint64_t num, Spec s, int base, bool upper) {
  char tmp[24];  // the digits, least significant first
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
  int i = 0;
  if (base == 10) {
    do {
      tmp[i++] = char('0' + num % 10);
      num /= 10;
    } while (num);
  } else {
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    int shift = base == 16 ? 4 : 3;
    do {
      tmp[i++] = digits[num & unsigned(base - 1)];
      num >>= shift;
    } while (num);
  }
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
  while (--i >= 0) *p++ = tmp[i];
  p = fill(p, width, ' ');
  out->commit(p);
}

// widen_string(): spaces only, '0' does not apply.
void padded(FormatSink *out, const char *s, size_t len, const Spec &sp) {
  int spaces = sp.width > int(len) ? sp.width - int(len) : 0;
  char *p = out->room(len + size_t(spaces));
  if (!(sp.flags & kLeft)) p = fill(p, spaces, ' ');
  std::memcpy(p, s, len);
  p += len;
  if (sp.flags & kLeft) p = fill(p, spaces, ' ');
  out->commit(p);
}

int clamp_star(uint64_t v) { return int(std::clamp<int64_t>(int64_t(v), 0, 32767)); }  // XTAP_FMT_WIDTH

}  // namespace

void format_kernel(const Format &f, const FormatArgs &args, std::string *out) {
  FormatSink sink(out);
  format_kernel(f, args, &sink);
}

void format_kernel(const Format &f, const FormatArgs &args, FormatSink *sink) {
  FormatSink &out = *sink;
  size_t nl = 0, ns = 0;
  auto next_long = [&]() -> uint64_t { return nl < args.longs.size() ? args.longs[nl++] : 0; };
  for (const auto &p : f.pieces) {
    if (p.literal) {
      char *w = out.room(p.text.size());
      std::memcpy(w, p.text.data(), p.text.size());
      out.commit(w + p.text.size());
      continue;
    }
    Spec s;
    s.flags = p.flag_bits;
    s.width = p.width_n;
    s.precision = p.precision_n;
    if (p.width[0] == '*') s.width = clamp_star(next_long());
    if (p.has_precision && p.precision[0] == '*') s.precision = clamp_star(next_long());
    switch (p.conv) {
      case 'd': case 'i': s.flags |= kSign; number(&out, next_long(), s, 10, false); break;
      case 'u': number(&out, next_long(), s, 10, false); break;
      case 'o': number(&out, next_long(), s, 8, false); break;
      case 'x': number(&out, next_long(), s, 16, false); break;
      case 'X': number(&out, next_long(), s, 16, true); break;
      case 'p':  // "%#<flags><width>llx": the precision is not passed on
        s.flags |= kSpecial;
        s.precision = -1;
        number(&out, next_long(), s, 16, false);
        break;
      case 'c': {
        char ch = char(next_long());
        padded(&out, &ch, 1, s);
        break;
      }
      case 's': {
        std::string_view str = ns < args.strs.size() ? args.strs[ns++] : std::string_view();
        size_t len = strnlen(str.data(), str.size());  // the kernel stops at a NUL
        if (s.precision >= 0) len = std::min(len, size_t(s.precision));
        padded(&out, str.data(), len, s);
        break;
      }
      case 'b': {  // xtap_print_binary(): the low bytes, least significant first
        uint64_t v = next_long();
        int bytes = s.width == 1 || s.width == 2 || s.width == 4 ? s.width : 8;
        char *w = out.room(8);
        for (int i = 0; i < bytes; i++) *w++ = char(v >> (8 * i));
        out.commit(w);
        break;
      }
      default:
        next_long();  // %m %M: never in a binary record
        break;
    }
  }
}

bool decode_format_args(const std::string &kinds, const char **p, const char *end, FormatArgs *args) {
  args->longs.clear();
  args->strs.clear();
  for (char k : kinds) {
    if (k == 'l') {
      uint64_t v;
      if (end - *p < 8) return false;
      std::memcpy(&v, *p, 8);  // the runner runs on the module's machine: same byte order
      *p += 8;
      args->longs.push_back(v);
      continue;
    }
    uint32_t len;
    if (end - *p < 4) return false;
    std::memcpy(&len, *p, 4);
    *p += 4;
    if (uint64_t(end - *p) < len) return false;
    args->strs.emplace_back(*p, len);  // a view: the record outlives the formatting
    *p += len;
  }
  return true;
}

}  // namespace xtap
