// Pass 1: `private` declarations are seen only in the file that declares
// them, as in stap. The parser gives each such global or function a name
// with a prefix unique to its file (Parser::private_name); this renames
// the file's own uses to match, so that another file's uses of the plain
// name find nothing (or its own declaration of that name).
#include <set>

#include "parse/lexer.h"
#include "parse/parser_impl.h"

namespace xtap {

std::string display_name(const std::string &name) {
  if (name.rfind("__private", 0) != 0) return name;
  size_t end = name.find('_', sizeof("__private") - 1);
  return end == std::string::npos ? name : name.substr(end + 1);
}

namespace parse_internal {
namespace {

class Renamer {
 public:
  explicit Renamer(const std::map<std::string, std::string> &names) : names_(names) {}

  void expr(Expr &e) {
    switch (e.kind) {
      case ExprKind::Var:
        if (hidden_.count(e.text)) break;
        [[fallthrough]];
      case ExprKind::Index:
      case ExprKind::In:
      case ExprKind::Call: rename(e.text); break;
      default: break;
    }
    for (auto &a : e.args) expr(*a);
  }

  void stmt(Stmt &s) {
    for (auto *e : s.operands())
      if (e) expr(*e);
    if (s.foreach && !s.foreach->array.empty()) rename(s.foreach->array);
    if (s.catch_clause && !s.catch_clause->var.empty() && !hidden_.count(s.catch_clause->var))
      rename(s.catch_clause->var);
    for (auto &b : s.body) stmt(*b);
  }

  void function(FunctionDecl &f) {
    // A parameter hides a global of the same name inside its function.
    for (const auto *p : f.params) hidden_.insert(p->name);
    stmt(*f.body);
    hidden_.clear();
  }

  // Point conditions are shared between the points of a declaration;
  // renaming one twice changes nothing.
  void points(std::vector<ProbePoint> &pps) {
    for (auto &pp : pps)
      if (pp.condition) expr(const_cast<Expr &>(*pp.condition));
  }

 private:
  const std::map<std::string, std::string> &names_;
  std::set<std::string> hidden_;

  void rename(std::string &name) {
    auto it = names_.find(name);
    if (it != names_.end()) name = it->second;
  }
};

}  // namespace

FileDecls count_decls(const Script &s) {
  return {s.globals.size(), s.probes.size(), s.functions.size(), s.aliases.size()};
}

std::string private_prefix(int file) { return "__private" + std::to_string(file) + "_"; }

void hide_private_names(Script &s, const FileDecls &before,
                        const std::map<std::string, std::string> &names) {
  Renamer r(names);
  for (size_t i = before.probes; i < s.probes.size(); ++i) {
    auto &p = *s.probes[i];
    if (p.condition) r.expr(*p.condition);
    r.points(p.points);
    r.stmt(*p.body);
  }
  for (size_t i = before.functions; i < s.functions.size(); ++i) r.function(*s.functions[i]);
  for (size_t i = before.aliases; i < s.aliases.size(); ++i) {
    r.points(s.aliases[i]->points);
    r.stmt(*s.aliases[i]->body);
    if (s.aliases[i]->epilogue_body) r.stmt(*s.aliases[i]->epilogue_body);
  }
}

}  // namespace parse_internal
}  // namespace xtap
