// Stacks from a session's output: see stacks.h.
#include "flamegraph/stacks.h"

#include <cctype>

namespace xtap::flamegraph {
namespace {

bool all_digits(const std::string &s, size_t from, size_t to) {
  if (from >= to) return false;
  for (size_t i = from; i < to; ++i)
    if (!isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// A line that is only a count ("\t42"): what stap scripts print after a
// stack (printf("\t%d\n", @count(s[bt]))).
bool parse_count_line(const std::string &line, uint64_t *count) {
  size_t b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
  if (b == std::string::npos || !all_digits(line, b, e + 1) || e + 1 - b > 18) return false;
  *count = std::stoull(line.substr(b, e + 1 - b));
  return true;
}

bool is_hex_address(const std::string &s, size_t from, size_t to) {
  if (to < from + 3 || s[from] != '0' || (s[from + 1] != 'x' && s[from + 1] != 'X')) return false;
  for (size_t i = from + 2; i < to; ++i)
    if (!isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

}  // namespace

bool parse_stack_line(const std::string &line, std::string *frame) {
  // stap indents every frame line; an unindented "0x10" is a value.
  size_t b = line.find_first_not_of(" \t");
  if (b == 0 || b == std::string::npos) return false;
  size_t e = line.find_last_not_of(" \t\r") + 1;
  size_t addr_end = line.find_first_of(" \t", b);
  if (addr_end == std::string::npos || addr_end > e) addr_end = e;
  if (!is_hex_address(line, b, addr_end)) return false;
  std::string address = line.substr(b, addr_end - b);
  if (addr_end == e) {  // " 0xffffffff81234567": no symbol
    *frame = address;
    return true;
  }
  size_t colon = line.find_first_not_of(" \t", addr_end);
  if (line[colon] != ':') return false;
  size_t name = line.find_first_not_of(" \t", colon + 1);
  if (name == std::string::npos || name >= e) {
    *frame = address;
    return true;
  }
  // "name+0x4/0x1a0 [module]": the name up to the offset or the module.
  size_t name_end = line.find_first_of(" \t", name);
  if (name_end == std::string::npos || name_end > e) name_end = e;
  std::string sym = line.substr(name, name_end - name);
  size_t plus = sym.rfind("+0x");
  if (plus != std::string::npos && plus > 0) sym.resize(plus);
  // A frame never holds the folded format's separator.
  for (char &c : sym)
    if (c == ';') c = ':';
  *frame = sym;
  return true;
}

bool parse_folded_line(const std::string &line, std::string *frames, uint64_t *count) {
  size_t e = line.size();
  if (e && line[e - 1] == '\r') --e;
  size_t space = line.rfind(' ', e ? e - 1 : 0);
  if (space == std::string::npos || space == 0 || !all_digits(line, space + 1, e) ||
      e - space - 1 > 18)
    return false;
  if (isspace(static_cast<unsigned char>(line[0]))) return false;
  std::string f = line.substr(0, space);
  size_t semi = f.find(';');
  if (semi == std::string::npos || f.front() == ';' || f.back() == ';') return false;
  *frames = f;
  *count = std::stoull(line.substr(space + 1, e - space - 1));
  return true;
}

void StackCollector::add(const std::string &folded, uint64_t count) {
  if (count == 0 || folded.empty()) return;
  stacks_[folded] += count;
  total_ += count;
}

void StackCollector::close_block(uint64_t count) {
  std::string folded;
  for (auto it = block_.rbegin(); it != block_.rend(); ++it)
    folded += (folded.empty() ? "" : ";") + *it;
  block_.clear();
  add(folded, count);
}

bool StackCollector::add_line(const std::string &line) {
  std::string frame;
  if (parse_stack_line(line, &frame)) {
    block_.push_back(frame);
    return true;
  }
  uint64_t count = 0;
  if (!block_.empty()) {
    if (parse_count_line(line, &count)) {
      close_block(count);
      return true;
    }
    // A stack printed on its own (print_backtrace() per event) is one sample.
    close_block(1);
    if (line.find_first_not_of(" \t\r") == std::string::npos) return true;  // its blank separator
  }
  std::string frames;
  if (parse_folded_line(line, &frames, &count)) {
    add(frames, count);
    return true;
  }
  return false;
}

void StackCollector::finish() {
  if (!block_.empty()) close_block(1);
}

std::string folded_text(const FoldedStacks &stacks) {
  std::string out;
  for (const auto &[frames, count] : stacks) out += frames + " " + std::to_string(count) + "\n";
  return out;
}

}  // namespace xtap::flamegraph
