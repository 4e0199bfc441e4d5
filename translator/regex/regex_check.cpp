#include "regex/regex_check.h"

#include <cctype>

namespace xtap {
namespace {

class Checker {
 public:
  explicit Checker(const std::string &re) : re_(re) {}

  std::string run(size_t *offset) {
    alternation(0);
    if (err_.empty() && i_ < re_.size()) fail("unmatched ')'");
    *offset = err_at_;
    return err_;
  }

 private:
  void fail(const std::string &what) {
    if (err_.empty()) {
      err_ = what;
      err_at_ = i_;
    }
  }
  bool at(char c) const { return i_ < re_.size() && re_[i_] == c; }

  void alternation(int depth) {
    sequence(depth);
    while (err_.empty() && at('|')) {
      ++i_;
      sequence(depth);
    }
  }

  void sequence(int depth) {
    bool have_atom = false;
    while (err_.empty() && i_ < re_.size() && !at('|') && !(at(')') && depth > 0)) {
      if (at(')')) return;  // unmatched: reported by run()
      char c = re_[i_];
      if (c == '*' || c == '+' || c == '?' || c == '{') {
        if (!have_atom) return fail(std::string("nothing to repeat before '") + c + "'");
        repetition();
        continue;
      }
      atom(depth);
      have_atom = true;
    }
  }

  void repetition() {
    if (!at('{')) {
      ++i_;
      return;
    }
    size_t start = i_++;
    auto number = [&](long *v) {
      if (i_ >= re_.size() || !isdigit(static_cast<unsigned char>(re_[i_]))) return false;
      *v = 0;
      while (i_ < re_.size() && isdigit(static_cast<unsigned char>(re_[i_]))) {
        *v = *v * 10 + (re_[i_++] - '0');
        if (*v > 1000) return false;
      }
      return true;
    };
    long lo = 0, hi = -1;
    if (!number(&lo)) {
      i_ = start;
      return fail("bad repetition count in '{...}' (numbers up to 1000)");
    }
    hi = lo;
    if (at(',')) {
      ++i_;
      hi = -1;
      if (!at('}') && !number(&hi)) {
        i_ = start;
        return fail("bad repetition count in '{...}' (numbers up to 1000)");
      }
    }
    if (!at('}')) {
      i_ = start;
      return fail("unterminated '{'");
    }
    ++i_;
    if (hi >= 0 && hi < lo) {
      i_ = start;
      fail("repetition '{m,n}' with n < m");
    }
  }

  void atom(int depth) {
    char c = re_[i_];
    if (c == '(') {
      size_t open = i_++;
      alternation(depth + 1);
      if (!err_.empty()) return;
      if (!at(')')) {
        i_ = open;
        return fail("unmatched '('");
      }
      ++i_;
      return;
    }
    if (c == '[') return bracket();
    if (c == '\\') {
      if (i_ + 1 >= re_.size()) return fail("trailing backslash");
      i_ += 2;
      return;
    }
    ++i_;  // literal, '.', '^', '$'
  }

  void bracket() {
    size_t open = i_++;
    if (at('^')) ++i_;
    if (at(']')) ++i_;  // a leading ']' is literal
    while (i_ < re_.size() && !at(']')) {
      if (at('[') && i_ + 1 < re_.size() && re_[i_ + 1] == ':') {
        size_t end = re_.find(":]", i_ + 2);
        if (end == std::string::npos) {
          i_ = open;
          return fail("unterminated character class '[:'");
        }
        std::string name = re_.substr(i_ + 2, end - i_ - 2);
        static const char *classes[] = {"alpha", "digit", "alnum", "upper", "lower", "space",
                                        "punct", "print", "graph", "cntrl", "xdigit", "blank"};
        bool ok = false;
        for (const char *k : classes) ok |= name == k;
        if (!ok) return fail("unknown character class '[:" + name + ":]'");
        i_ = end + 2;
        continue;
      }
      ++i_;
    }
    if (!at(']')) {
      i_ = open;
      return fail("unterminated '['");
    }
    ++i_;
  }

  const std::string &re_;
  size_t i_ = 0;
  std::string err_;
  size_t err_at_ = 0;
};

}  // namespace

std::string check_regex(const std::string &re, size_t *offset) { return Checker(re).run(offset); }

}  // namespace xtap
