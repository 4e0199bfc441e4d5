// A mirror of runtime-kmod/regex_compile.c's parser: the same grammar, the
// same limits, the same order of checks, with messages for the script's
// author. Instead of building the compiler's tree it adds up the size of
// the program the compiler would emit, which is what XTAP_RE_MAX_INST
// bounds. When the compiler changes, change this with it; the differential
// test in tests/unit/regex_check_test.cpp fails until both agree.
#include "regex/regex_check.h"

#include <xtap/limits.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace xtap {
namespace {

constexpr uint64_t kSaturated = UINT32_MAX;  // the compiler's sizes saturate at U32_MAX

uint64_t saturate(uint64_t v) { return std::min(v, kSaturated); }

// The names the runtime knows inside [: :], with stap's one-letter aliases.
const char *const kClassNames[] = {"alpha",  "alnum", "blank", "cntrl", "digit", "d",
                                   "xdigit", "graph", "print", "lower", "l",     "upper",
                                   "u",      "space", "s",     "punct"};

class Checker {
 public:
  // The runtime sees the pattern as a C string: it ends at the first NUL.
  explicit Checker(const std::string &re)
      : re_(re), len_(std::min(re.size(), strlen(re.c_str()))) {}

  RegexCheck run() {
    RegexCheck r;
    if (len_ < re_.size()) {
      fail_at(len_, "NUL character in the pattern (a pattern ends at its first NUL)");
    } else {
      uint64_t size = alternation();
      if (ok() && pos_ < len_) fail("unmatched ')'");
      if (ok() && size + 3 > XTAP_RE_MAX_INST)  // + SAVE 0, SAVE 1, MATCH
        fail_at(0, "too complex: it compiles to " + std::to_string(size + 3) +
                       " instructions, at most " + std::to_string(XTAP_RE_MAX_INST) +
                       " (a{m,n} copies 'a' n times)");
      r.instructions = size + 3;
      r.groups = groups_;
    }
    r.error = err_;
    r.offset = err_at_;
    if (!ok()) r.instructions = 0, r.groups = 0;
    return r;
  }

 private:
  bool ok() const { return err_.empty(); }
  void fail_at(size_t at, const std::string &what) {
    if (ok()) err_ = what, err_at_ = at;
  }
  void fail(const std::string &what) { fail_at(pos_, what); }
  int peek() const { return pos_ < len_ ? static_cast<unsigned char>(re_[pos_]) : -1; }
  static bool is_repeat(int c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

  // xtap_re_alt: branches separated by '|'; each but the last costs a
  // SPLIT and a JMP.
  uint64_t alternation() {
    uint64_t size = concatenation();
    while (ok() && peek() == '|') {
      ++pos_;
      size += 2 + concatenation();
    }
    return saturate(size);
  }

  // xtap_re_cat: factors up to '|', ')' or the end.
  uint64_t concatenation() {
    uint64_t size = 0;
    for (int c = peek(); ok() && c >= 0 && c != '|' && c != ')'; c = peek()) size += factor();
    return saturate(size);
  }

  // xtap_re_factor: an atom and its repetition operators.
  uint64_t factor() {
    const int first = peek();
    if (is_repeat(first)) {
      fail(std::string("nothing to repeat before '") + char(first) + "'");
      return 0;
    }
    const bool anchor = first == '^' || first == '$';
    uint64_t size = atom();
    int stacked = 0;
    for (int c = peek(); ok() && is_repeat(c); c = peek()) {
      if (anchor) {
        fail(std::string("'") + char(c) + "' cannot repeat the anchor '" + char(first) + "'");
        return 0;
      }
      if (++stacked > XTAP_RE_MAX_STACKED_REPEATS) {
        fail("too many repetition operators in a row (at most " +
             std::to_string(XTAP_RE_MAX_STACKED_REPEATS) + ", as in 'a*?'; use parentheses)");
        return 0;
      }
      size_t op = pos_++;
      long min = 0, max = -1;
      if (c == '+') min = 1;
      if (c == '?') max = 1;
      if (c == '{' && !bounds(op, &min, &max)) return 0;
      size = repeated_size(size, min, max);
    }
    return size;
  }

  // xtap_re_size of a REPEAT node around an operand of `size`.
  static uint64_t repeated_size(uint64_t size, long min, long max) {
    if (max < 0) return saturate(min ? min * size + 1 : size + 2);
    return saturate(min * size + uint64_t(max - min) * (size + 1));
  }

  // xtap_re_atom.
  uint64_t atom() {
    const size_t at = pos_;
    const int c = peek();
    ++pos_;
    switch (c) {
      case '[': return bracket(at);
      case '(': return group(at);
      case '\\':
        if (pos_ >= len_) fail_at(at, "trailing backslash");
        else ++pos_;
        return 1;
      default:  // a literal, '.', '^' or '$'
        return 1;
    }
  }

  // After '(': a group, capturing unless it is "(?:".
  uint64_t group(size_t open) {
    if (++depth_ > XTAP_RE_MAX_DEPTH) {
      fail_at(open,
              "parentheses nested too deeply (at most " + std::to_string(XTAP_RE_MAX_DEPTH) + ")");
      return 0;
    }
    int number = -1;
    if (peek() == '?') {
      if (pos_ + 1 >= len_ || re_[pos_ + 1] != ':') {
        fail_at(open, "'(?' is supported only as '(?:...)', a group that does not capture");
        return 0;
      }
      pos_ += 2;
    } else {
      number = ++groups_;
    }
    uint64_t size = alternation();
    if (!ok()) return 0;
    if (peek() != ')') {
      fail_at(open, "unmatched '('");
      return 0;
    }
    ++pos_;
    --depth_;
    // Groups past the 31st parse but do not capture (no SAVE instructions).
    return size + (number >= 0 && number < XTAP_RE_MAX_GROUPS ? 2 : 0);
  }

  // xtap_re_bounds, after '{': m}, m,} or m,n}.
  bool bounds(size_t open, long *min, long *max) {
    if (!number(open, min)) return false;
    if (peek() == '}') {
      ++pos_;
      *max = *min;
      return true;
    }
    if (peek() != ',') {
      fail_at(open, peek() < 0 ? "unterminated '{'" : "expected ',' or '}' in '{m,n}'");
      return false;
    }
    ++pos_;
    if (peek() == '}') {
      ++pos_;
      *max = -1;
      return true;
    }
    if (!number(open, max)) return false;
    if (peek() != '}') {
      fail_at(open, peek() < 0 ? "unterminated '{'" : "expected '}' to end '{m,n}'");
      return false;
    }
    ++pos_;
    if (*max < *min) {
      fail_at(open, "repetition '{" + std::to_string(*min) + "," + std::to_string(*max) +
                        "}' with n < m");
      return false;
    }
    return true;
  }

  // xtap_re_number.
  bool number(size_t open, long *v) {
    if (peek() < 0 || !isdigit(peek())) {
      fail_at(open, "expected a number in '{m,n}'");
      return false;
    }
    *v = 0;
    while (peek() >= 0 && isdigit(peek())) {
      *v = *v * 10 + (peek() - '0');
      if (*v > XTAP_RE_MAX_REPEAT) {
        fail_at(open,
                "repetition count too large (at most " + std::to_string(XTAP_RE_MAX_REPEAT) + ")");
        return false;
      }
      ++pos_;
    }
    return true;
  }

  // xtap_re_bracket, after '[': items up to ']'; a ']' right after '[' or
  // '[^' is a member.
  uint64_t bracket(size_t open) {
    if (peek() == '^') ++pos_;
    do {
      if (pos_ >= len_) {
        fail_at(open, "unterminated '['");
        return 0;
      }
      bracket_item(open);
      if (!ok()) return 0;
    } while (peek() != ']');
    ++pos_;
    return 1;
  }

  // xtap_re_bracket_item: c, c-d, \c or [:name:]. The end of a range is
  // taken as it is, unescaped.
  void bracket_item(size_t open) {
    const size_t at = pos_;
    int lo = peek();
    if (lo == '[' && pos_ + 1 < len_ && re_[pos_ + 1] == ':') {
      size_t start = pos_ + 2;
      size_t end = re_.find(":]", start);
      if (end == std::string::npos || end + 1 >= len_) {
        fail_at(at, "'[:' without its ':]' (a class is written '[[:alpha:]]')");
        return;
      }
      std::string name = re_.substr(start, end - start);
      if (std::none_of(std::begin(kClassNames), std::end(kClassNames),
                       [&](const char *k) { return name == k; })) {
        std::string known;
        for (const char *k : kClassNames) known += std::string(known.empty() ? "" : ", ") + k;
        fail_at(at, "unknown character class '[:" + name + ":]' (known: " + known + ")");
        return;
      }
      pos_ = end + 2;
      return;
    }
    if (lo == '\\') {
      ++pos_;
      if (pos_ >= len_) {
        fail_at(open, "unterminated '['");
        return;
      }
      lo = static_cast<unsigned char>(re_[pos_]);
    }
    ++pos_;
    if (pos_ + 1 < len_ && re_[pos_] == '-' && re_[pos_ + 1] != ']') {
      ++pos_;
      int hi = static_cast<unsigned char>(re_[pos_++]);
      if (hi < lo)
        fail_at(at, std::string("inverted range '") + char(lo) + "-" + char(hi) + "' in '[...]'");
    }
  }

  const std::string &re_;
  const size_t len_;
  size_t pos_ = 0;
  int depth_ = 0;
  int groups_ = 0;
  std::string err_;
  size_t err_at_ = 0;
};

}  // namespace

RegexCheck analyze_regex(const std::string &re) { return Checker(re).run(); }

std::string check_regex(const std::string &re, size_t *offset) {
  RegexCheck r = analyze_regex(re);
  *offset = r.offset;
  return r.error;
}

}  // namespace xtap
