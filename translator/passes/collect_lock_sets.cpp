// Pass 2, collect_lock_sets: each probe's and function's lock set, from
// the names resolve_names bound. A body reads a global it evaluates
// (a variable, an element, `in`, a foreach over it, an aggregate of a
// statistic), writes one it assigns, increments or deletes (reading it too
// when the assignment combines with the old value: `+=`), and only adds to
// a statistic with `<<<` (globals_aggregated, a shared lock). A body's set
// includes the sets of the functions it calls, directly or not. Code
// generation takes the locks (codegen/emit_body.cpp).
#include <algorithm>

#include "passes/passes.h"

namespace xtap {
namespace {

void add(std::vector<GlobalDecl *> &set, GlobalDecl *g) {
  if (g && std::find(set.begin(), set.end(), g) == set.end()) set.push_back(g);
}

class LockSetCollector {
 public:
  explicit LockSetCollector(Body &b) : body_(b) {}

  void stmt(const Stmt &s) {
    if (s.kind == StmtKind::Delete) {
      deleted(*s.expr);
    } else if (s.kind == StmtKind::Foreach) {
      add(body_.globals_read, s.foreach->global);
      // A slice's keys; the array it slices is the foreach's own.
      if (s.foreach_histogram()) expr(*s.expr);
      else if (s.expr) keys(*s.expr);
    } else if (s.expr) {
      expr(*s.expr);
    }
    for (const Expr *e : {s.init.get(), s.step.get(), s.foreach ? s.foreach->limit.get() : nullptr})
      if (e) expr(*e);
    for (const auto &b : s.body) stmt(*b);
  }

  void expr(const Expr &e) {
    switch (e.kind) {
      case ExprKind::Var: add(body_.globals_read, e.global); return;
      case ExprKind::Index:
      case ExprKind::In:
        keys(e);
        add(body_.globals_read, e.global);
        return;
      case ExprKind::Assign:
        expr(*e.arg(1));
        if (e.op == Op::StatAdd) return added(*e.arg(0));
        return assigned(*e.arg(0), e.op != Op::None);
      case ExprKind::IncDec: return assigned(*e.arg(0), true);
      case ExprKind::Aggregate:  // args[1..]: @percentile(s, p)'s p, literal bounds
        keys(*e.arg(0));
        add(body_.globals_read, e.arg(0)->global);
        for (size_t i = 1; i < e.args.size(); ++i) expr(*e.arg(i));
        return;
      case ExprKind::Call:
        for (const auto &a : e.args) expr(*a);
        // `next` may run any function of the chain: their globals count.
        for (FunctionDecl *o = e.function; o; o = o->next_overload)
          if (std::find(body_.calls.begin(), body_.calls.end(), o) == body_.calls.end())
            body_.calls.push_back(o);
        return;
      case ExprKind::Star:
      case ExprKind::EmbeddedC: return;
      default:
        for (const auto &a : e.args) expr(*a);
    }
  }

 private:
  // The keys of an element or a slice (`*`, any key, evaluates nothing).
  void keys(const Expr &e) {
    if (e.kind != ExprKind::Index && e.kind != ExprKind::In) return;
    for (const auto &k : e.args)
      if (k->kind != ExprKind::Star) expr(*k);
  }

  // The left side of `=`, `+=` ..., `++`: `read` when the old value is used.
  void assigned(const Expr &e, bool read) {
    keys(e);
    if (e.kind == ExprKind::Target) {  // a target made a place (guru mode)
      for (const auto &a : e.args) expr(*a);
      return;
    }
    if (read) add(body_.globals_read, e.global);
    add(body_.globals_written, e.global);
  }

  // s <<< v, s[k] <<< v: per-CPU parts, a shared lock.
  void added(const Expr &e) {
    keys(e);
    add(body_.globals_aggregated, e.global);
  }

  void deleted(const Expr &e) {
    keys(e);
    add(body_.globals_written, e.global);
  }

  Body &body_;
};

// A body's lock set includes the globals of every function it calls,
// directly or not: iterate to a fixed point over the call graph.
void add_callees(Script &script) {
  std::vector<Body *> bodies;
  for (auto &f : script.functions) bodies.push_back(f.get());
  for (auto &p : script.probes) bodies.push_back(p.get());
  auto merge = [](std::vector<GlobalDecl *> &into, const std::vector<GlobalDecl *> &from) {
    bool changed = false;
    for (auto *g : from)
      if (std::find(into.begin(), into.end(), g) == into.end()) {
        into.push_back(g);
        changed = true;
      }
    return changed;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto *b : bodies)
      for (auto *f : b->calls) {
        changed |= merge(b->globals_read, f->globals_read);
        changed |= merge(b->globals_written, f->globals_written);
        changed |= merge(b->globals_aggregated, f->globals_aggregated);
      }
  }
}

}  // namespace

void collect_lock_sets(Script &s) {
  for (auto &f : s.functions)
    if (!f->embedded && f->body) LockSetCollector(*f).stmt(*f->body);
  for (auto &p : s.probes) {
    LockSetCollector c(*p);
    if (p->condition) c.expr(*p->condition);
    c.stmt(*p->body);
  }
  add_callees(s);
}

}  // namespace xtap
