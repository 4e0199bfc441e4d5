// Pass 2, check_dropped_code: the uses of globals in the code elide_pure_code dropped, checked
// against what the rest of the script makes of them. stap resolves names
// before its optimizer drops anything, so `if (4 in foo) { }` with a scalar
// `foo` is an error there even though the test does nothing; here too
// (XTP2202, XTP2204, XTP2206 as for code that runs). Runs after
// resolve_names, which decided each global's kind from the code kept.
#include <algorithm>

#include "passes/passes.h"

namespace xtap {
namespace {

class DroppedChecker {
 public:
  DroppedChecker(const Script &s, Diagnostics &d) : script_(s), diags_(d) {}

  void check(const DroppedStmt &d) {
    params_ = &d.params;
    stmt(*d.stmt);
  }

 private:
  const GlobalDecl *global(const std::string &name) const {
    if (std::find(params_->begin(), params_->end(), name) != params_->end()) return nullptr;
    return script_.find_global(name);
  }

  // `name` used with `keys` keys (0: as a whole array, as in `delete a`).
  void as_array(const std::string &name, const Location &loc, size_t keys) {
    const GlobalDecl *g = global(name);
    if (!g || (!g->read && !g->written)) return;  // its kind rests on this code alone
    if (!g->is_array && g->arity == 0) {
      diags_.error("XTP2202", loc, "'" + name + "' is used as a scalar elsewhere, here as an array")
          .hint = "this code does nothing and is dropped, but its names are checked, as in stap";
      return;
    }
    if (keys && g->arity > 0 && static_cast<size_t>(g->arity) != keys)
      diags_.error("XTP2204", loc,
                   "array '" + name + "' used with " + std::to_string(keys) + " key(s) here but " +
                       std::to_string(g->arity) + " elsewhere");
  }

  void as_scalar(const std::string &name, const Location &loc) {
    const GlobalDecl *g = global(name);
    if (g && (g->read || g->written) && g->is_array)
      diags_.error("XTP2206", loc, "array '" + name + "' used without an index").hint =
          "write " + name + "[key]";
  }

  void expr(const Expr &e) {
    if (e.kind == ExprKind::Var) as_scalar(e.text, e.loc);
    if (e.kind == ExprKind::Index || e.kind == ExprKind::In) as_array(e.text, e.loc, e.args.size());
    for (const auto &a : e.args) expr(*a);
  }

  void stmt(const Stmt &s) {
    if (s.kind == StmtKind::Foreach && !s.foreach->array.empty())
      as_array(s.foreach->array, s.foreach->array_loc, s.foreach->keys.size());
    if (s.kind == StmtKind::Delete && s.expr && s.expr->kind == ExprKind::Var) {
      // `delete g`: a scalar or a whole array, either is fine
    } else if (s.expr) {
      expr(*s.expr);
    }
    for (const auto *e : {s.init.get(), s.step.get(), s.foreach ? s.foreach->limit.get() : nullptr})
      if (e) expr(*e);
    for (const auto &b : s.body) stmt(*b);
  }

  const Script &script_;
  Diagnostics &diags_;
  const std::vector<std::string> *params_ = nullptr;
};

}  // namespace

void check_dropped_code(Script &s, Diagnostics &diags) {
  DroppedChecker c(s, diags);
  for (const auto &d : s.dropped) c.check(d);
  s.dropped.clear();
}

}  // namespace xtap
