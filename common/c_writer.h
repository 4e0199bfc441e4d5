// C source text for the translator: a writer with indentation, string
// literals and addresses as C spells them. Used by every pass that emits or
// prints C (the families, codegen, the -p1 printer), so it lives below them.
#pragma once

#include <cstdint>
#include <string>

namespace xtap {

class CWriter {
 public:
  void line(const std::string &s = "") {
    if (!s.empty()) out_.append(static_cast<size_t>(indent_), '\t');
    out_ += s;
    out_ += '\n';
  }
  void open(const std::string &s) {
    line(s);
    ++indent_;
  }
  void close(const std::string &s = "}") {
    --indent_;
    line(s);
  }
  void raw(const std::string &s) { out_ += s; }
  const std::string &str() const { return out_; }
  int indent() const { return indent_; }
  void set_indent(int i) { indent_ = i; }

 private:
  std::string out_;
  int indent_ = 0;
};

// `s` as a C string literal, escaped so that it survives any content.
std::string c_string_literal(const std::string &s);

// `v` as "0x..." in lowercase hex: an address in a message, a probe point
// or C source.
std::string hex_address(uint64_t v);

}  // namespace xtap
