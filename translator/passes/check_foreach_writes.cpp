// Pass 2, check_foreach_writes: an array must not change while a foreach walks it.
// The runtime iterates the map in place, so an element added or removed
// under the loop could be skipped, seen twice or freed while in use. As in
// stap, the loop body may not assign, increment or delete an element of the
// array it walks, nor call a function whose own body does (`delete a` of the
// whole array is allowed, as stap allows it).
#include <algorithm>
#include <map>
#include <set>

#include "passes/passes.h"

namespace xtap {
namespace {

using Written = std::set<const GlobalDecl *>;

// The global array an lvalue names, if any: a[k] = ..., a[k]++, delete a[k].
const GlobalDecl *element_of(const Expr &e) {
  return e.kind == ExprKind::Index ? e.global : nullptr;
}

// Calls f(e) for every expression in s, subexpressions included.
template <class F>
void each_expr(const Expr &e, F &f) {
  f(e);
  for (const auto &a : e.args)
    if (a) each_expr(*a, f);
}

template <class F>
void each_expr(const Stmt &s, F &f) {
  for (const Expr *e : s.operands())
    if (e) each_expr(*e, f);
}

// The arrays whose elements a body writes itself (not through calls).
Written own_writes(const Stmt &s) {
  Written out;
  auto f = [&](const Expr &e) {
    if ((e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec) && !e.args.empty())
      if (const GlobalDecl *g = element_of(*e.args[0])) out.insert(g);
  };
  std::vector<const Stmt *> todo{&s};
  while (!todo.empty()) {
    const Stmt *t = todo.back();
    todo.pop_back();
    each_expr(*t, f);
    if (t->kind == StmtKind::Delete && t->expr)
      if (const GlobalDecl *g = element_of(*t->expr)) out.insert(g);
    for (const auto &b : t->body)
      if (b) todo.push_back(b.get());
  }
  return out;
}

class Checker {
 public:
  Checker(const std::map<const FunctionDecl *, Written> &writes, Diagnostics &diags)
      : writes_(writes), diags_(diags) {}

  void stmt(const Stmt &s) {
    if (!walking_.empty()) {
      auto f = [&](const Expr &e) { expr(e); };
      each_expr(s, f);
      if (s.kind == StmtKind::Delete && s.expr) written(element_of(*s.expr), s.expr->loc);
    }
    const bool loop = s.kind == StmtKind::Foreach && s.foreach->global;
    if (loop) walking_.push_back(s.foreach->global);
    for (const auto &b : s.body)
      if (b) stmt(*b);
    if (loop) walking_.pop_back();
  }

 private:
  void expr(const Expr &e) {
    if ((e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec) && !e.args.empty())
      written(element_of(*e.args[0]), e.args[0]->loc);
    if (e.kind != ExprKind::Call || !e.function) return;
    auto it = writes_.find(e.function);
    if (it == writes_.end()) return;
    for (const GlobalDecl *g : walking_)
      if (it->second.count(g)) {
        diags_
            .error("XTP2323", e.loc,
                   "'" + e.text + "' modifies array '" + g->name + "' while a foreach walks it")
            .hint = "collect the changes in another array and apply them after the loop";
        return;
      }
  }

  void written(const GlobalDecl *g, const Location &loc) {
    if (!g || std::find(walking_.begin(), walking_.end(), g) == walking_.end()) return;
    diags_.error("XTP2323", loc, "array '" + g->name + "' is modified while a foreach walks it")
        .hint = "collect the changes in another array and apply them after the loop";
  }

  const std::map<const FunctionDecl *, Written> &writes_;
  Diagnostics &diags_;
  std::vector<const GlobalDecl *> walking_;
};

}  // namespace

void check_foreach_writes(const Script &s, Diagnostics &diags) {
  std::map<const FunctionDecl *, Written> writes;
  for (const auto &f : s.functions)
    if (f->body) writes[f.get()] = own_writes(*f->body);
  Checker c(writes, diags);
  for (const auto &f : s.functions)
    if (f->body) c.stmt(*f->body);
  for (const auto &p : s.probes)
    if (p->body) c.stmt(*p->body);
}

}  // namespace xtap
