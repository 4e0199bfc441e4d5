// Pass 2, check_autocasts (after dead code is dropped): autocasts (`x->member`, `(e)[i]`,
// `&e` on a value that is no target variable) whose value has no C type
// resolve_targets could find. A statement that is nothing but such an expression
// is dropped, as stap drops unused autocasts; any other is an error. With
// -u nothing is dropped, and such a statement is an error too, as in stap
// (its testsuite's semko/autocast09.stp).
#include "passes/passes.h"

namespace xtap {
namespace {

bool unresolved(const Expr &e) {
  return e.kind == ExprKind::Target && e.target->name == "@autocast" && !e.target->access;
}

// Computes a value and nothing else: no call, assignment or embedded C.
bool side_effect_free(const Expr &e) {
  switch (e.kind) {
    case ExprKind::Call:
    case ExprKind::Assign:
    case ExprKind::IncDec:
    case ExprKind::EmbeddedC: return false;
    default:
      for (const auto &a : e.args)
        if (!side_effect_free(*a)) return false;
      return true;
  }
}

class Checker {
 public:
  Checker(Diagnostics &diags, bool keep_unused) : diags_(diags), keep_unused_(keep_unused) {}

  void stmt(StmtPtr &s) {
    if (!keep_unused_ && s->kind == StmtKind::Expr && unresolved(*s->expr) &&
        side_effect_free(*s->expr)) {
      s = std::make_unique<Stmt>(StmtKind::Empty, s->loc);
      return;
    }
    for (auto *e : s->operands())
      if (e) expr(*e);
    for (auto &b : s->body) stmt(b);
  }

  void expr(const Expr &e) {
    for (const auto &a : e.args) expr(*a);
    if (!unresolved(e)) return;
    const TargetRef &t = *e.target;
    std::string op = t.components.empty() ? (t.address_of ? "&" : "$")
                     : t.components.front().kind == TargetComponent::Kind::Member
                         ? "->" + t.components.front().member
                         : "[...]";
    Location loc = t.components.empty() ? e.loc : t.components.front().loc;
    diags_
        .error("XTP2231", loc,
               "cannot apply '" + op + "' here: the C type of the value it applies to is unknown")
        .hint =
        "autocasts apply to values whose C type xtap knows: a target variable, &@cast(p, "
        "\"type\"), "
        "a local or function given only such values; otherwise write @cast(value, \"type\")" +
        (t.components.empty() ? std::string() : "->" + t.components.front().member);
  }

 private:
  Diagnostics &diags_;
  bool keep_unused_;
};

}  // namespace

void check_autocasts(Script &s, Diagnostics &diags, bool keep_unused) {
  Checker c(diags, keep_unused);
  for (auto &p : s.probes) {
    if (p->condition) c.expr(*p->condition);
    c.stmt(p->body);
  }
  for (auto &f : s.functions)
    if (!f->embedded) c.stmt(f->body);
}

}  // namespace xtap
