#include "parse/ast.h"

namespace xtap {

const char *type_name(Type t) {
  switch (t) {
    case Type::Long: return "long";
    case Type::String: return "string";
    case Type::Unknown: break;
  }
  return "unknown";
}

std::string ProbePoint::str() const {
  std::string s;
  for (const auto &c : components) {
    if (!s.empty()) s += '.';
    s += c.name;
    if (c.has_arg) {
      s += '(';
      if (c.arg_is_string)
        s += '"' + c.str_arg + '"';
      else
        s += std::to_string(c.num_arg);
      s += ')';
    }
  }
  return s;
}

GlobalDecl *Script::find_global(const std::string &name) const {
  for (const auto &g : globals)
    if (g->name == name) return g.get();
  return nullptr;
}

FunctionDecl *Script::find_function(const std::string &name) const {
  for (const auto &f : functions)
    if (f->name == name) return f.get();
  return nullptr;
}

}  // namespace xtap
