// A small JSON reader and writer for the files xtap and xtap-run exchange
// (a bundle's manifest.json). No dependencies beyond the standard library,
// so that the static xtap-run stays small. Input comes from users and from
// other machines: parsing is bounded in depth and never throws.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xtap::json {

class Value {
 public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;
  static Value boolean(bool b);
  static Value number(double n);
  static Value string(std::string s);
  static Value array();
  static Value object();

  Kind kind() const { return kind_; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool is_array() const { return kind_ == Kind::Array; }

  // Typed reads: the fallback when the value has another kind.
  bool as_bool(bool fallback = false) const;
  double as_number(double fallback = 0) const;
  const std::string &as_string() const;  // "" unless a string

  // Objects: the member named `key`, or a Null value. Members keep the
  // order they were set or read in.
  const Value &operator[](std::string_view key) const;
  Value &set(const std::string &key, Value v);
  const std::vector<std::pair<std::string, Value>> &members() const { return members_; }

  // Arrays.
  const std::vector<Value> &items() const { return items_; }
  Value &push(Value v);

  // Compact when indent < 0, else pretty-printed with `indent` spaces.
  std::string dump(int indent = 2) const;

 private:
  void dump_to(std::string *out, int indent, int depth) const;

  Kind kind_ = Kind::Null;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<Value> items_;
  std::vector<std::pair<std::string, Value>> members_;
};

// Parses a whole document; nullopt with *error ("line L, column C: ...")
// when it is not valid JSON.
std::optional<Value> parse(std::string_view text, std::string *error);

// `s` as a JSON string literal, quotes included.
std::string quote(std::string_view s);

}  // namespace xtap::json
