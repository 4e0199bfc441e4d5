// Pass 2, elide_pure_code: drops code without effect before anything checks it, as stap's
// optimizer does ahead of its type checking: script functions no probe
// calls; assignments to locals nothing reads (their values are still
// computed when that has effects); expression statements without side
// effects (`- @entry(get_cycles())` in a begin probe, `no . $such`); and
// ifs left with nothing to do. So a script stap accepts because such code
// never runs is not refused for it here. -u keeps everything. Loops stay
// even when empty (stap drops them): a loop may not end, and a script may
// count on MAXACTION stopping it.
//
// Side effects: storing into a global or a read local, printing, exit,
// delete, control flow (next, break, continue, return), calls of functions
// that have any (a function's own locals do not count), embedded C not
// marked /* pure */, and the builtins but the sprint family.
#include <cctype>
#include <map>
#include <set>

#include "builtins/builtins.h"
#include "passes/passes.h"

namespace xtap {
namespace {

class PureElider {
 public:
  PureElider(Script &s, Diagnostics &diags) : s_(s), diags_(diags) {}

  void run() {
    drop_uncalled_functions();
    find_impure_functions();
    for (auto &p : s_.probes) body(*p->body, {});
    for (auto &f : s_.functions)
      if (!f->embedded) {
        std::set<std::string> params;
        for (const auto *pm : f->params) params.insert(pm->name);
        params_.assign(params.begin(), params.end());
        body(*f->body, params);
        params_.clear();
      }
    // Calls in the statements dropped no longer count.
    impure_.clear();
    drop_uncalled_functions();
  }

 private:
  Script &s_;
  Diagnostics &diags_;
  std::set<const FunctionDecl *> impure_;
  std::set<std::string> read_;  // locals read in the body being elided
  std::set<std::pair<const SourceFile *, std::string>> warned_;
  std::set<const Expr *> stored_values_;  // what dead stores left: warned about already
  std::vector<std::string> params_;       // of the function being elided

  // ------------------------------------------------------------ functions
  std::vector<FunctionDecl *> callees(const Expr &e) {
    std::vector<FunctionDecl *> out;
    // The function of the call's arity; a call of the wrong arity keeps
    // every overload of the name, to be reported with the arities there are.
    walk(e, [&](const Expr &x) {
      if (x.kind != ExprKind::Call) return;
      for (FunctionDecl *f : s_.call_targets(x.text, x.args.size())) out.push_back(f);
    });
    return out;
  }

  template <typename F>
  static void walk(const Expr &e, F &&f) {
    f(e);
    for (const auto &a : e.args) walk(*a, f);
  }

  template <typename F>
  static void walk(const Stmt &s, F &&f) {
    for (const auto *e : s.operands())
      if (e) walk(*e, f);
    for (const auto &b : s.body) walk(*b, f);
  }

  // stap resolves functions from the probes outwards: one no probe
  // reaches is not even looked at.
  void drop_uncalled_functions() {
    std::set<const FunctionDecl *> reached;
    std::vector<const FunctionDecl *> work;
    auto reach = [&](const Expr &e) {
      for (auto *f : callees(e))
        if (reached.insert(f).second) work.push_back(f);
    };
    for (const auto &p : s_.probes) {
      if (p->condition) walk(*p->condition, reach);
      walk(*p->body, reach);
      for (const auto &pp : p->points)
        if (pp.condition) walk(*pp.condition, reach);
    }
    while (!work.empty()) {
      const FunctionDecl *f = work.back();
      work.pop_back();
      walk(*f->body, reach);
      // `next` hands the call on to the rest of the overload chain.
      if (FunctionDecl *n = f->next_overload; n && f->passes_on() && reached.insert(n).second)
        work.push_back(n);
    }
    // Tapset functions go later (prune_tapsets): pass 2 still adds calls
    // of its own (expand_entry).
    std::erase_if(s_.functions, [&](const std::unique_ptr<FunctionDecl> &f) {
      return !f->from_tapset && !reached.count(f.get());
    });
    link_overloads(s_);  // a chain may have lost a function `next` never reaches
    for (size_t i = 0; i < s_.functions.size(); ++i) s_.functions[i]->index = static_cast<int>(i);
  }

  void find_impure_functions() {
    for (bool more = true; more;) {
      more = false;
      for (const auto &f : s_.functions) {
        if (impure_.count(f.get())) continue;
        bool impure = f->embedded ? f->embedded_c.find("/* pure */") == std::string::npos
                                  : !function_pure(*f);
        if (impure) more = impure_.insert(f.get()).second;
      }
    }
  }

  // In a function, storing into its own locals is no side effect.
  bool function_pure(const FunctionDecl &f) {
    read_.clear();
    return stmt_pure(*f.body, /*in_function=*/true);
  }

  // ------------------------------------------------------------ purity
  bool is_global(const std::string &name) const { return s_.find_global(name) != nullptr; }

  bool expr_pure(const Expr &e, bool in_function) const {
    switch (e.kind) {
      case ExprKind::Assign:
      case ExprKind::IncDec: {
        const Expr &l = *e.args[0];
        // A dead store is dropped before purity is asked (body()); in a
        // function, its locals die with it.
        if (l.kind != ExprKind::Var || is_global(l.text)) return false;
        if (!in_function && (read_.count(l.text) || e.op != Op::None)) return false;
        if (e.op == Op::StatAdd) return false;
        break;
      }
      case ExprKind::Call: {
        if (const FunctionDecl *f = s_.find_function(e.text, e.args.size())) {
          if (impure_.count(f)) return false;
        } else {
          const Builtin *b = find_builtin(e.text);
          if (!b || (b->kind != BuiltinKind::Sprintf && b->kind != BuiltinKind::Sprint &&
                     !(b->kind == BuiltinKind::PrintDelimited && b->result == Type::String)))
            return false;
        }
        break;
      }
      case ExprKind::EmbeddedC:
        if (e.text.find("/* pure */") == std::string::npos) return false;
        break;
      // Kept to be reported where they cannot stand (stap refuses them
      // before its optimizer runs): `*` outside a slice, a histogram
      // outside print.
      case ExprKind::Star: return false;
      case ExprKind::Aggregate:
        if (is_printed_aggregate(e)) return false;
        break;
      default: break;
    }
    for (const auto &a : e.args)
      if (!expr_pure(*a, in_function)) return false;
    return true;
  }

  bool stmt_pure(const Stmt &s, bool in_function) const {
    switch (s.kind) {
      case StmtKind::Block:
      case StmtKind::Expr:
      case StmtKind::If:
      case StmtKind::Empty:
      case StmtKind::Foreach:
      case StmtKind::Try: break;
      case StmtKind::Return: return in_function && (!s.expr || expr_pure(*s.expr, in_function));
      // A loop may not end (`while (1) { }` runs into MAXACTION, an error
      // the script may count on), so it is kept, as stap keeps it.
      case StmtKind::While:
      case StmtKind::For:
      default: return false;  // and delete, next, break, continue
    }
    // A foreach stores its keys and value: into globals, that is an effect.
    if (s.foreach) {
      for (const auto &k : s.foreach->keys)
        if (is_global(k)) return false;
      if (!s.foreach->value.empty() && is_global(s.foreach->value)) return false;
    }
    for (const auto *e : s.operands())
      if (e && !expr_pure(*e, in_function)) return false;
    for (const auto &b : s.body)
      if (!stmt_pure(*b, in_function)) return false;
    return true;
  }

  // ------------------------------------------------------------ eliding
  static bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  // Locals read anywhere in the body: all but the target of a plain `=`.
  void collect_reads(const Expr &e) {
    bool store = e.kind == ExprKind::Assign && e.op == Op::None && e.args[0]->kind == ExprKind::Var;
    if (e.kind == ExprKind::Var) read_.insert(e.text);
    // Embedded C reads locals as STAP_ARG_x or THIS->x: any word of it
    // may be one.
    if (e.kind == ExprKind::EmbeddedC) {
      for (size_t i = 0; i < e.text.size();) {
        if (!is_word(e.text[i])) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < e.text.size() && is_word(e.text[j])) ++j;
        std::string word = e.text.substr(i, j - i);
        read_.insert(word.rfind("STAP_ARG_", 0) == 0 ? word.substr(9) : word);
        i = j;
      }
    }
    for (size_t i = store ? 1 : 0; i < e.args.size(); ++i) collect_reads(*e.args[i]);
  }

  void collect_reads(const Stmt &s) {
    for (const auto *e : s.operands())
      if (e) collect_reads(*e);
    if (s.catch_clause && !s.catch_clause->var.empty()) read_.insert(s.catch_clause->var);
    for (const auto &b : s.body) collect_reads(*b);
  }

  bool own_code(const Location &loc) const {
    return !loc.via && (!loc.file || loc.file == s_.file);
  }

  // `x = v` with x a local nothing reads: v alone.
  bool drop_dead_stores(ExprPtr &e, const std::set<std::string> &keep) {
    bool changed = false;
    for (auto &a : e->args) changed |= drop_dead_stores(a, keep);
    if (e->kind != ExprKind::Assign || e->op != Op::None || e->args[0]->kind != ExprKind::Var)
      return changed;
    const std::string &name = e->args[0]->text;
    if (read_.count(name) || keep.count(name) || is_global(name)) return changed;
    // What an alias computes for its users is elide_unread_assignments'
    // (which drops it whole, calls of tapset functions included).
    if (e->loc.via && e->loc.via->what.rfind("probe alias", 0) == 0) return changed;
    if (own_code(e->args[0]->loc) && warned_.insert({e->loc.file, name}).second)
      diags_.warning("XTP2320", e->args[0]->loc, "local '" + name + "' is assigned but never read")
          .hint =
          "the assignment is dropped, as stap does; its value is computed only if that "
          "has side effects";
    ExprPtr value = std::move(e->args[1]);
    e = std::move(value);
    stored_values_.insert(e.get());
    return true;
  }

  bool elide(StmtPtr &s, const std::set<std::string> &keep, bool in_function) {
    bool changed = false;
    for (auto *e : s->operand_slots())
      if (*e) changed |= drop_dead_stores(*e, keep);
    for (auto &b : s->body) changed |= elide(b, keep, in_function);
    if (s->kind == StmtKind::Empty || s->kind == StmtKind::Block) {
      std::erase_if(s->body, [](const StmtPtr &b) { return b->kind == StmtKind::Empty; });
      return changed;
    }
    // Statements of their own with no effect go (a function's own stores
    // count here: they are read, or dropped above).
    if (!stmt_pure(*s, false)) return changed;
    if (s->kind == StmtKind::Expr && own_code(s->loc) && !stored_values_.count(s->expr.get()))
      diags_.warning("XTP2322", s->expr->loc, "this statement has no effect and is dropped").hint =
          "stap drops it too; use its value (print it, store it in a global) to keep it";
    StmtPtr empty = std::make_unique<Stmt>(StmtKind::Empty, s->loc);
    std::swap(s, empty);
    if (own_code(empty->loc) && empty->kind != StmtKind::Empty)
      s_.dropped.push_back({std::move(empty), params_});
    return true;
  }

  void body(Stmt &b, const std::set<std::string> &keep) {
    for (bool changed = true; changed;) {
      read_.clear();
      collect_reads(b);
      changed = false;
      for (auto &st : b.body) changed |= elide(st, keep, false);
      std::erase_if(b.body, [](const StmtPtr &x) { return x->kind == StmtKind::Empty; });
    }
  }
};

}  // namespace

void elide_pure_code(Script &s, Diagnostics &diags) { PureElider(s, diags).run(); }

}  // namespace xtap
