// Pass 2b: drops tapset functions and globals that the script does not
// use, directly or through other tapset code, so that a module carries only
// what it runs. Runs on names, before they are bound.
#include <set>

#include "passes/passes.h"

namespace xtap {
namespace {

struct Uses {
  std::set<std::string> names;      // variables and arrays
  std::set<std::string> functions;  // calls

  void expr(const Expr &e) {
    switch (e.kind) {
      case ExprKind::Call: functions.insert(e.text); break;
      case ExprKind::Var:
      case ExprKind::Index:
      case ExprKind::In: names.insert(e.text); break;
      default: break;
    }
    for (const auto &a : e.args) expr(*a);
  }

  void stmt(const Stmt &s) {
    if (s.expr) expr(*s.expr);
    if (s.init) expr(*s.init);
    if (s.step) expr(*s.step);
    if (s.limit) expr(*s.limit);
    if (!s.foreach_array.empty()) names.insert(s.foreach_array);
    for (const auto &b : s.body) stmt(*b);
  }
};

}  // namespace

void prune_tapsets(Script &s) {
  Uses uses;
  for (const auto &p : s.probes) {
    if (p->condition) uses.expr(*p->condition);
    uses.stmt(*p->body);
  }
  for (const auto &f : s.functions)
    if (!f->from_tapset) uses.stmt(*f->body);

  // Follow calls into tapset functions until nothing new is reached.
  // By declaration: overloads share a name, and a call may reach any of them.
  std::set<const FunctionDecl *> walked;
  for (bool more = true; more;) {
    more = false;
    for (const auto &f : s.functions) {
      if (!f->from_tapset || !uses.functions.count(f->name) || walked.count(f.get())) continue;
      walked.insert(f.get());
      uses.stmt(*f->body);
      more = true;
    }
  }
  std::erase_if(s.functions, [&](const std::unique_ptr<FunctionDecl> &f) {
    bool drop = f->from_tapset && !uses.functions.count(f->name);
    if (drop) s.pruned_functions.push_back(f->name);
    return drop;
  });
  std::erase_if(s.globals, [&](const std::unique_ptr<GlobalDecl> &g) {
    return g->from_tapset && !uses.names.count(g->name);
  });
  for (size_t i = 0; i < s.globals.size(); ++i) s.globals[i]->index = static_cast<int>(i);
  for (size_t i = 0; i < s.functions.size(); ++i) s.functions[i]->index = static_cast<int>(i);
}

}  // namespace xtap
