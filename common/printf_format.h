// printf-style format strings of the script language, shared by the
// translator (pass 2 checks them, pass 3 translates them for the kernel's
// vsnprintf) and xtap-run, which formats the binary printf records of
// docs/architecture.md ("Relay records") with the kernel's semantics.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xtap {

struct FormatPiece {
  bool literal = true;
  std::string text;  // literal text (unescaped), or the conversion as written
  // Conversion:
  std::string flags;      // any of "-+ #0"
  std::string width;      // digits or "*"
  std::string precision;  // digits or "*" (without the dot); empty = none
  bool has_precision = false;
  char conv = 0;  // d i u x X o c s p, b (raw bytes), m M (memory)
  // The same, decoded once for the runner's formatter: flags as the
  // kernel's printf_spec bits, width and precision (-1: none or '*').
  unsigned flag_bits = 0;
  int width_n = -1;
  int precision_n = -1;
};

struct Format {
  std::vector<FormatPiece> pieces;
  std::string error;     // non-empty: why the format is invalid
  int error_offset = 0;  // byte offset of the bad conversion in the format
  // Number of arguments consumed, counting '*' width/precision.
  size_t arg_count() const;
  // %b %m %M: written by the runtime, not by vsnprintf.
  bool has_raw_conversions() const;
  // %m %M read kernel memory while printing: no binary record can carry them.
  bool has_memory_conversions() const;
  // One letter per argument consumed, in order: 'l' (a 64-bit value; '*'
  // widths and precisions too) or 's' (a string). The order of the values
  // in a binary printf item.
  std::string arg_kinds() const;
};

Format parse_format(const std::string &fmt);

// Appends what the kernel's vsnprintf writes for f's translation
// (kernel_format() in the translator) with these arguments: numbers as the
// kernel's number() (a precision is a minimum digit count even for 0, '0'
// pads behind a sign or "0x" unless '-'), strings and %c padded with spaces,
// %p as "%#llx", '*' clamped to 0..32767 like XTAP_FMT_WIDTH, %b the value's
// low bytes as the runtime writes them. longs holds the 'l' arguments and
// strs the 's' ones (views into the record), each in order; %m/%M are not
// formatted here.
struct FormatArgs {
  std::vector<uint64_t> longs;
  std::vector<std::string_view> strs;
};
void format_kernel(const Format &f, const FormatArgs &args, std::string *out);

// Appends to a string through a cursor, so that a conversion costs a few
// stores rather than an append call per piece. The string is lengthened
// 4 KiB at a time past what was written (those bytes zeroed once; its
// capacity grows by doubling) and cut to what was written when the sink
// goes: keep one sink for many format_kernel calls (a record). What the
// string held before is never touched, so a sink may append to a large
// output buffer.
class FormatSink {
 public:
  explicit FormatSink(std::string *s) : s_(s), len_(s->size()) {}
  ~FormatSink() { s_->resize(len_); }
  FormatSink(const FormatSink &) = delete;
  FormatSink &operator=(const FormatSink &) = delete;
  // Room for n more bytes; returns where they go (commit() after).
  char *room(size_t n) {
    if (len_ + n > s_->size()) s_->resize(len_ + std::max(n, size_t(4096)));
    return s_->data() + len_;
  }
  void commit(char *end) { len_ = size_t(end - s_->data()); }
  // What has been written so far, to go back to (an item cut short).
  size_t mark() const { return len_; }
  void rewind(size_t mark) { len_ = mark; }

 private:
  std::string *s_;
  size_t len_;
};
void format_kernel(const Format &f, const FormatArgs &args, FormatSink *out);

// Formats one binary printf item (the bytes after its format id: a
// little-endian u64 per 'l' of arg_kinds(), a u32 length and the bytes per
// 's'), reading its values where they lie and advancing *p past them. False,
// with nothing written, if the item is cut short.
bool format_item(const Format &f, const char **p, const char *end, FormatSink *out);

}  // namespace xtap
