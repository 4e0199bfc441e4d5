// Pass 2, elide_unread_assignments: drops what a probe alias computes for its users when the probe
// that uses it never reads the result, as stap's "eliding assignment"
// does: `probe syscall.* { n++ }` then reads no user strings and formats no
// argstr. Only assignments an alias put in place are dropped (the script's
// own unread assignments keep their warning, XTP2320), and only when the
// value has no side effects: constants, variables, target variables,
// operators, sprintf and calls of tapset functions (which touch no
// globals). Dropping one may leave others unread, so it repeats.
#include <set>

#include "passes/passes.h"

namespace xtap {
namespace {

class Elider {
 public:
  explicit Elider(const Script &s) : script_(s) {}

  bool run(Stmt &body) {
    read_.clear();
    collect(body);
    return drop(body);
  }

 private:
  const Script &script_;
  std::set<std::string> read_;

  static bool plain_store(const Expr &e) {
    return e.kind == ExprKind::Assign && e.op == Op::None && e.args[0]->kind == ExprKind::Var;
  }

  void collect(const Expr &e) {
    if (e.kind == ExprKind::Var) read_.insert(e.text);
    for (size_t i = plain_store(e) ? 1 : 0; i < e.args.size(); ++i) collect(*e.args[i]);
  }

  void collect(const Stmt &s) {
    for (const auto *e : s.operands())
      if (e) collect(*e);
    for (const auto &b : s.body) collect(*b);
  }

  bool pure(const Expr &e) const {
    switch (e.kind) {
      case ExprKind::Number:
      case ExprKind::String:
      case ExprKind::Var:
      case ExprKind::Target:
      case ExprKind::Unary:
      case ExprKind::Binary:
      case ExprKind::Logical:
      case ExprKind::Ternary: break;
      case ExprKind::Call: {
        const FunctionDecl *f = script_.find_function(e.text);
        if (!(f ? f->from_tapset : e.text == "sprintf")) return false;
        break;
      }
      default: return false;
    }
    for (const auto &a : e.args)
      if (!pure(*a)) return false;
    return true;
  }

  bool droppable(const Stmt &s) const {
    if (s.kind != StmtKind::Expr || !s.loc.via || !plain_store(*s.expr)) return false;
    const std::string &name = s.expr->args[0]->text;
    return !read_.count(name) && !script_.find_global(name) && pure(*s.expr->args[1]);
  }

  bool drop(Stmt &s) {
    bool changed = false;
    for (auto &b : s.body) {
      if (droppable(*b)) {
        b = std::make_unique<Stmt>(StmtKind::Empty, b->loc);
        changed = true;
      } else {
        changed |= drop(*b);
      }
    }
    return changed;
  }
};

}  // namespace

void elide_unread_assignments(Script &s) {
  Elider e(s);
  for (auto &p : s.probes)
    while (e.run(*p->body)) {
    }
}

}  // namespace xtap
