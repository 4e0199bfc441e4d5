// Pass 2, before target expressions are resolved: a statement that only
// reads a target expression (`$dentry`, `@cast(p, "task_struct")->pid`)
// computes a value nobody uses, so it is dropped with a warning, as stap
// drops side-effect-free expressions before it reports target variables
// it could not resolve. A script may then name a variable that only some
// kernels have in such a statement (stap's transok/ten.stp) and still be
// translated everywhere.
#include "passes/passes.h"

namespace xtap {
namespace {

// Computes a value and nothing else: no call, assignment or embedded C.
bool side_effect_free(const Expr &e) {
  switch (e.kind) {
    case ExprKind::Call:
    case ExprKind::Assign:
    case ExprKind::IncDec:
    case ExprKind::Entry:
    case ExprKind::EmbeddedC: return false;
    default:
      for (const auto &a : e.args)
        if (!side_effect_free(*a)) return false;
      return true;
  }
}

bool reads_target(const Expr &e) {
  if (e.kind == ExprKind::Target && e.target->name != "@autocast") return true;
  for (const auto &a : e.args)
    if (reads_target(*a)) return true;
  return false;
}

void elide(StmtPtr &s, Diagnostics &diags) {
  if (s->kind == StmtKind::Expr && reads_target(*s->expr) && side_effect_free(*s->expr)) {
    diags.warning("XTP2322", s->expr->loc,
                  "this expression has no side effects and its value is not used: it is dropped");
    s = std::make_unique<Stmt>(StmtKind::Empty, s->loc);
    return;
  }
  for (auto &b : s->body) elide(b, diags);
}

}  // namespace

void elide_pure_statements(Script &s, Diagnostics &diags) {
  for (auto &p : s.probes) elide(p->body, diags);
  for (auto &f : s.functions)
    if (!f->embedded && !f->from_tapset) elide(f->body, diags);
}

}  // namespace xtap
