// Pass 2, elide_dead_code: drops branches whose condition is a constant, such as those
// guarded by @defined($var), before names are bound: stap does the same, so
// that scripts can mention target variables a probe does not have.
#include "passes/passes.h"

namespace xtap {
namespace {

void elide(StmtPtr &s) {
  if (s->kind == StmtKind::If && s->expr->kind == ExprKind::Number) {
    if (s->expr->number) {
      s = std::move(s->body[0]);
    } else if (s->body.size() > 1) {
      s = std::move(s->body[1]);
    } else {
      s = std::make_unique<Stmt>(StmtKind::Empty, s->loc);
    }
    return elide(s);
  }
  for (auto &b : s->body) elide(b);
}

}  // namespace

void elide_dead_branches(StmtPtr &body) { elide(body); }

void elide_dead_code(Script &s) {
  for (auto &p : s.probes) elide(p->body);
  for (auto &f : s.functions) elide(f->body);
}

}  // namespace xtap
