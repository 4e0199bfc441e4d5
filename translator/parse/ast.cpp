#include "parse/ast.h"

namespace xtap {

const char *type_name(Type t) {
  switch (t) {
    case Type::Long: return "long";
    case Type::String: return "string";
    case Type::Stat: return "stats";
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

ExprPtr clone(const Expr &e) {
  auto c = std::make_unique<Expr>(e.kind, e.loc);
  c->number = e.number;
  c->text = e.text;
  c->op = e.op;
  c->postfix = e.postfix;
  for (const auto &a : e.args) c->args.push_back(clone(*a));
  return c;
}

StmtPtr clone(const Stmt &s) {
  auto c = std::make_unique<Stmt>(s.kind, s.loc);
  for (const auto &b : s.body) c->body.push_back(clone(*b));
  if (s.expr) c->expr = clone(*s.expr);
  if (s.init) c->init = clone(*s.init);
  if (s.step) c->step = clone(*s.step);
  c->foreach_keys = s.foreach_keys;
  c->foreach_key_locs = s.foreach_key_locs;
  c->foreach_array = s.foreach_array;
  c->foreach_array_loc = s.foreach_array_loc;
  c->foreach_value = s.foreach_value;
  c->foreach_value_loc = s.foreach_value_loc;
  c->sort_column = s.sort_column;
  c->sort_desc = s.sort_desc;
  if (s.limit) c->limit = clone(*s.limit);
  return c;
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
