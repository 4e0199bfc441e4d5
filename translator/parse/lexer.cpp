#include "parse/lexer.h"

#include <array>
#include <cctype>
#include <string_view>

namespace xtap {
namespace {

constexpr std::array kKeywords = {"probe",    "global",  "function", "if",      "else", "while",
                                  "for",      "foreach", "in",       "delete",  "next", "break",
                                  "continue", "return",  "limit",    "private", "try",  "catch"};

// Longest first, so that the lexer takes "<<=" before "<<" before "<".
constexpr std::array kOperators = {
    "->", "%(", "%?", "%:", "%)", "<<<", "<<=", ">>=", "==", "!=", "<=", ">=", "&&", "||",
    "++", "--", "+=", "-=", "*=", "/=",  "%=",  "&=",  "|=", "^=", ".=", "<<", ">>", "=~",
    "!~", "{",  "}",  "(",  ")",  "[",   "]",   ",",   ";",  ":",  "?",  "+",  "-",  "*",
    "/",  "%",  "<",  ">",  "=",  "!",   "~",   "&",   "|",  "^",  "."};

class Lexer {
 public:
  Lexer(const SourceFile &f, Diagnostics &d) : file_(f), src_(f.text), diags_(d) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space_and_comments();
      Token t = next();
      bool end = t.kind == Tok::End;
      out.push_back(std::move(t));
      if (end) break;
    }
    return out;
  }

 private:
  Location here(int length = 1) const { return {&file_, line_, col_, length, nullptr}; }
  char peek(size_t k = 0) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  void advance(size_t n = 1) {
    for (size_t i = 0; i < n && pos_ < src_.size(); ++i) {
      if (src_[pos_++] == '\n') {
        ++line_;
        col_ = 1;
      } else {
        ++col_;
      }
    }
  }

  void skip_space_and_comments() {
    for (;;) {
      char c = peek();
      if (c == '#' || (c == '/' && peek(1) == '/')) {
        while (peek() && peek() != '\n') advance();
      } else if (c == '/' && peek(1) == '*') {
        Location start = here(2);
        advance(2);
        while (peek() && !(peek() == '*' && peek(1) == '/')) advance();
        if (!peek()) {
          diags_.error("XTP1003", start, "unterminated comment").hint = "close it with '*/'";
          return;
        }
        advance(2);
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        advance();
      } else {
        return;
      }
    }
  }

  Token next() {
    Token t;
    t.loc = here();
    char c = peek();
    if (!c) return t;
    if ((c == '$' || c == '@') && peek(1) == '#') {
      t.kind = Tok::Identifier;
      t.text = std::string(1, c) + "#";
      t.loc.length = 2;
      advance(2);
      return t;
    }
    if (c == '%' && peek(1) == '{') return embedded_c(t);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '@')
      return identifier(t);
    if (std::isdigit(static_cast<unsigned char>(c))) return number(t);
    if (c == '"') return string(t);
    std::string_view rest(src_.data() + pos_, src_.size() - pos_);
    for (const char *op : kOperators) {
      if (rest.starts_with(op)) {
        t.kind = Tok::Operator;
        t.text = op;
        t.loc.length = static_cast<int>(t.text.size());
        advance(t.text.size());
        return t;
      }
    }
    diags_.error("XTP1001", t.loc, std::string("unexpected character '") + c + "'");
    advance();
    return next_after_error();
  }

  Token next_after_error() {
    skip_space_and_comments();
    return next();
  }

  // %{ ... %}: embedded C, kept verbatim (guru mode and tapsets only).
  Token embedded_c(Token &t) {
    advance(2);
    size_t start = pos_;
    while (peek() && !(peek() == '%' && peek(1) == '}')) advance();
    if (!peek()) {
      diags_.error("XTP1006", t.loc, "unterminated embedded C block").hint = "close it with '%}'";
      return t;
    }
    t.kind = Tok::EmbeddedC;
    t.text = src_.substr(start, pos_ - start);
    advance(2);
    return t;
  }

  // Names, and target variables as stap spells them: $name, $$parms, and
  // the pretty-printing forms $name$ and $$parms$$.
  Token identifier(Token &t) {
    size_t start = pos_;
    bool target = peek() == '$';
    advance();
    if (target)
      while (peek() == '$') advance();
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') advance();
    if (target)
      while (peek() == '$') advance();
    t.text = src_.substr(start, pos_ - start);
    t.loc.length = static_cast<int>(t.text.size());
    t.kind = Tok::Identifier;
    for (const char *kw : kKeywords)
      if (t.text == kw) t.kind = Tok::Keyword;
    return t;
  }

  Token number(Token &t) {
    size_t start = pos_;
    while (std::isalnum(static_cast<unsigned char>(peek()))) advance();
    std::string text = src_.substr(start, pos_ - start);
    t.kind = Tok::Number;
    t.text = text;
    t.loc.length = static_cast<int>(text.size());
    int base = 10;
    std::string digits = text;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
      base = 16;
      digits = text.substr(2);
    } else if (text.size() > 1 && text[0] == '0') {
      base = 8;
      digits = text.substr(1);
    }
    unsigned long long v = 0;
    bool ok = !digits.empty();
    for (char ch : digits) {
      int d = std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0'
              : std::isxdigit(static_cast<unsigned char>(ch))
                  ? std::tolower(static_cast<unsigned char>(ch)) - 'a' + 10
                  : 99;
      if (d >= base) {
        ok = false;
        break;
      }
      unsigned long long nv = v * base + d;
      if (nv / base != v) {  // wrapped past 64 bits
        diags_.error("XTP1004", t.loc, "number '" + text + "' does not fit in 64 bits");
        return t;
      }
      v = nv;
    }
    if (!ok) {
      diags_.error("XTP1005", t.loc, "malformed number '" + text + "'");
      return t;
    }
    t.number = static_cast<long long>(v);
    return t;
  }

  Token string(Token &t) {
    Location start = here();
    advance();  // opening quote
    std::string value;
    while (peek() && peek() != '"') {
      char c = peek();
      if (c == '\n') break;
      if (c != '\\') {
        value += c;
        advance();
        continue;
      }
      advance();
      char e = peek();
      advance();
      switch (e) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case 'a': value += '\a'; break;
        case 'b': value += '\b'; break;
        case 'f': value += '\f'; break;
        case 'v': value += '\v'; break;
        case '\\': value += '\\'; break;
        case '"': value += '"'; break;
        case '\'': value += '\''; break;
        case '?': value += '?'; break;
        case 'x': {
          int v = 0, n = 0;
          while (n < 2 && std::isxdigit(static_cast<unsigned char>(peek()))) {
            char h = peek();
            v = v * 16 + (std::isdigit(static_cast<unsigned char>(h))
                              ? h - '0'
                              : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
            advance();
            ++n;
          }
          value += static_cast<char>(v);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0', n = 1;
            while (n < 3 && peek() >= '0' && peek() <= '7') {
              v = v * 8 + (peek() - '0');
              advance();
              ++n;
            }
            value += static_cast<char>(v);
          } else {
            // stap keeps unknown escapes as written.
            value += '\\';
            value += e;
          }
      }
    }
    if (peek() != '"') {
      diags_.error("XTP1002", start, "unterminated string literal").hint =
          "close the string with '\"' before the end of the line";
      t.kind = Tok::String;  // go on lexing, so later errors are found too
      t.text = value;
      return t;
    }
    advance();
    t.kind = Tok::String;
    t.text = value;
    t.loc.length = col_ - start.column > 0 && line_ == start.line ? col_ - start.column : 1;
    return t;
  }

  const SourceFile &file_;
  const std::string &src_;
  Diagnostics &diags_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

std::vector<Token> lex(const SourceFile &file, Diagnostics &diags) {
  return Lexer(file, diags).run();
}

}  // namespace xtap
