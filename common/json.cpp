// Recursive descent over RFC 8259 JSON, with a depth limit so that a
// hostile manifest cannot exhaust the stack.
#include "common/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace xtap::json {

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}

Value Value::number(double n) {
  Value v;
  v.kind_ = Kind::Number;
  v.number_ = n;
  return v;
}

Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.string_ = std::move(s);
  return v;
}

Value Value::array() {
  Value v;
  v.kind_ = Kind::Array;
  return v;
}

Value Value::object() {
  Value v;
  v.kind_ = Kind::Object;
  return v;
}

bool Value::as_bool(bool fallback) const { return kind_ == Kind::Bool ? bool_ : fallback; }
double Value::as_number(double fallback) const {
  return kind_ == Kind::Number ? number_ : fallback;
}

const std::string &Value::as_string() const {
  static const std::string empty;
  return kind_ == Kind::String ? string_ : empty;
}

const Value &Value::operator[](std::string_view key) const {
  static const Value null;
  for (const auto &[k, v] : members_)
    if (k == key) return v;
  return null;
}

Value &Value::set(const std::string &key, Value v) {
  for (auto &[k, old] : members_)
    if (k == key) return old = std::move(v);
  members_.emplace_back(key, std::move(v));
  return members_.back().second;
}

Value &Value::push(Value v) {
  items_.push_back(std::move(v));
  return items_.back();
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string Value::dump(int indent) const {
  std::string out;
  dump_to(&out, indent, 0);
  return out;
}

void Value::dump_to(std::string *out, int indent, int depth) const {
  auto newline = [&](int d) {
    if (indent < 0) return;
    *out += '\n';
    out->append(static_cast<size_t>(indent) * d, ' ');
  };
  switch (kind_) {
    case Kind::Null: *out += "null"; break;
    case Kind::Bool: *out += bool_ ? "true" : "false"; break;
    case Kind::Number: {
      char buf[32];
      if (std::isfinite(number_) && number_ == std::floor(number_) && std::fabs(number_) < 9e15)
        std::snprintf(buf, sizeof buf, "%.0f", number_);
      else std::snprintf(buf, sizeof buf, "%.17g", std::isfinite(number_) ? number_ : 0.0);
      *out += buf;
      break;
    }
    case Kind::String: *out += quote(string_); break;
    case Kind::Array:
      *out += '[';
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i) *out += ',';
        newline(depth + 1);
        items_[i].dump_to(out, indent, depth + 1);
      }
      if (!items_.empty()) newline(depth);
      *out += ']';
      break;
    case Kind::Object:
      *out += '{';
      for (size_t i = 0; i < members_.size(); ++i) {
        if (i) *out += ',';
        newline(depth + 1);
        *out += quote(members_[i].first);
        *out += indent < 0 ? ":" : ": ";
        members_[i].second.dump_to(out, indent, depth + 1);
      }
      if (!members_.empty()) newline(depth);
      *out += '}';
      break;
  }
}

namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::optional<Value> document(std::string *error) {
    Value v;
    if (value(&v, 0)) {
      skip_space();
      if (pos_ == s_.size()) return v;
      fail("unexpected text after the document");
    }
    size_t line = 1, col = 1;
    for (size_t i = 0; i < err_pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    *error = "line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + err_;
    return std::nullopt;
  }

 private:
  bool fail(const std::string &why) {
    if (err_.empty()) {
      err_ = why;
      err_pos_ = pos_;
    }
    return false;
  }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return fail("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool value(Value *out, int depth) {
    if (depth > kMaxDepth) return fail("nested too deeply");
    skip_space();
    if (pos_ >= s_.size()) return fail("unexpected end of input");
    char c = s_[pos_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      std::string str;
      if (!string(&str)) return false;
      *out = Value::string(std::move(str));
      return true;
    }
    if (c == 't') return literal("true") && (*out = Value::boolean(true), true);
    if (c == 'f') return literal("false") && (*out = Value::boolean(false), true);
    if (c == 'n') return literal("null") && (*out = Value(), true);
    if (c == '-' || (c >= '0' && c <= '9')) return number(out);
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool number(Value *out) {
    size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    auto digits = [&] {
      size_t n = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_, ++n;
      return n;
    };
    size_t int_start = pos_;
    if (!digits() || (s_[int_start] == '0' && pos_ - int_start > 1)) return fail("invalid number");
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (!digits()) return fail("invalid number");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits()) return fail("invalid number");
    }
    *out = Value::number(std::strtod(std::string(s_.substr(start, pos_ - start)).c_str(), nullptr));
    return true;
  }

  static void utf8(std::string *out, unsigned cp) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xc0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xe0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      *out += static_cast<char>(0xf0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  bool hex4(unsigned *cp) {
    if (pos_ + 4 > s_.size()) return fail("truncated \\u escape");
    *cp = 0;
    for (int i = 0; i < 4; ++i) {
      char h = s_[pos_++];
      int d = h >= '0' && h <= '9'   ? h - '0'
              : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                     : -1;
      if (d < 0) return fail("invalid \\u escape");
      *cp = *cp * 16 + static_cast<unsigned>(d);
    }
    return true;
  }

  bool string(std::string *out) {
    ++pos_;  // the opening quote
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= s_.size()) break;
      char e = s_[pos_++];
      switch (e) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          unsigned cp = 0;
          if (!hex4(&cp)) return false;
          if (cp >= 0xd800 && cp < 0xdc00 && s_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            unsigned low = 0;
            if (!hex4(&low)) return false;
            if (low < 0xdc00 || low > 0xdfff) return fail("invalid surrogate pair");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          }
          utf8(out, cp);
          break;
        }
        default: return fail(std::string("invalid escape '\\") + e + "'");
      }
    }
    return fail("unterminated string");
  }

  bool array(Value *out, int depth) {
    ++pos_;
    *out = Value::array();
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
    for (;;) {
      Value item;
      if (!value(&item, depth + 1)) return false;
      out->push(std::move(item));
      skip_space();
      if (pos_ >= s_.size()) return fail("unterminated array");
      char c = s_[pos_++];
      if (c == ']') return true;
      if (c != ',') return --pos_, fail("expected ',' or ']'");
    }
  }

  bool object(Value *out, int depth) {
    ++pos_;
    *out = Value::object();
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
    for (;;) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a member name");
      std::string key;
      if (!string(&key)) return false;
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
      ++pos_;
      Value v;
      if (!value(&v, depth + 1)) return false;
      out->set(key, std::move(v));
      skip_space();
      if (pos_ >= s_.size()) return fail("unterminated object");
      char c = s_[pos_++];
      if (c == '}') return true;
      if (c != ',') return --pos_, fail("expected ',' or '}'");
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string err_;
  size_t err_pos_ = 0;
};

}  // namespace

std::optional<Value> parse(std::string_view text, std::string *error) {
  return Parser(text).document(error);
}

}  // namespace xtap::json
