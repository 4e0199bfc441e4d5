// Pass 2, resolve_names: binds every name. A variable is a global when one is declared
// with its name and a local of its probe otherwise; arrays must be global.
// Calls are bound to builtins. Also marks which globals are read and
// written (GlobalDecl::read, written: for warnings; each body's lock set is
// collect_lock_sets') and checks statement placement.
#include <algorithm>
#include <regex>
#include <set>

#include <xtap/limits.h>

#include "builtins/builtins.h"
#include "passes/passes.h"

namespace xtap {
namespace {

// A tapset function whose C body carries stap's `/* guru */` mark (the
// memory writers, printk, panic ...) may only be called in guru mode.
bool needs_guru(const FunctionDecl &f) {
  return f.from_tapset && f.embedded && f.embedded_c.find("/* guru */") != std::string::npos;
}

class NameResolver {
 public:
  NameResolver(Script &s, Diagnostics &d) : script_(s), diags_(d) {}

  void run() {
    for (auto &f : script_.functions) {
      body_ = f.get();
      function_ = f.get();
      // A parameter may share a global's name (stap's argv tapset has
      // `argv` and strace.stp's functions take an `argv`; tcp_trace.stp has
      // `global state` and state_num2str(state)): it hides it, as in stap.
      // An embedded-C function's body cannot be walked; its untyped
      // parameters take their types from its callers (infer_types).
      if (f->embedded) continue;
      stmt(*f->body);
    }
    function_ = nullptr;
    for (auto &p : script_.probes) {
      body_ = p.get();
      if (p->condition) {
        expr(*p->condition);
        check_condition(*p->condition);
      }
      stmt(*p->body);
    }
    resolve_pending_stat_adds();
    resolve_pending_deletes();
    warn_unread_locals();
  }

  // `delete g` of globals whose kind was unknown when it was seen.
  void resolve_pending_deletes() {
    for (auto &[e, body] : pending_deletes_) {
      body_ = body;
      GlobalDecl *g = script_.find_global(e->text);
      if (g->is_array || g->arity > 0) {
        if ((e->global = array(g->name, e->loc, 0))) use(g, false, true);
      } else {
        target(*e, false);
      }
    }
    body_ = nullptr;
  }

  // Like stap's "eliding assignment": a local that is set and never read is
  // usually a misspelling or leftover code.
  void warn_unread_locals() {
    auto check = [&](const Body &b, size_t params) {
      for (size_t i = params; i < b.locals.size(); ++i) {
        const LocalVar &l = *b.locals[i];
        // Variables an alias sets for its users are theirs to ignore.
        if (l.written && !l.read && !l.loc.via)
          diags_.warning("XTP2320", l.loc, "local '" + l.name + "' is assigned but never read");
      }
    };
    for (auto &f : script_.functions)
      if (!f->from_tapset) check(*f, f->params.size());
    for (auto &p : script_.probes) check(*p, 0);
  }

 private:
  // A probe condition is evaluated before the body runs: no locals.
  void check_condition(const Expr &e) {
    if (e.kind == ExprKind::Var && e.local)
      diags_.error("XTP2217", e.loc, "probe condition uses '" + e.text + "', which is not a global")
          .hint = "declare it with 'global " + e.text + "'";
    if (e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec)
      diags_.error("XTP2218", e.loc, "a probe condition cannot change variables");
    // As in stap, a condition holds globals, literals and operators only: a
    // call could have effects or depend on state the condition cannot track.
    if (e.kind == ExprKind::Call && e.text.rfind("_xtap_", 0) != 0 &&
        (e.function || (e.builtin && (e.builtin->kind == BuiltinKind::Plain ||
                                      e.builtin->kind == BuiltinKind::Exit ||
                                      e.builtin->kind == BuiltinKind::Error))))
      diags_.error("XTP2234", e.loc, "a probe condition cannot call '" + e.text + "'").hint =
          "compute the value into a global in another probe and test that global";
    for (const auto &a : e.args) check_condition(*a);
  }

  bool has_local(const std::string &name) const {
    for (auto &l : body_->locals)
      if (l->name == name) return true;
    return false;
  }

  // `s <<< v` on a name that is neither a global nor a local yet. stap makes
  // it a local, which cannot hold a statistic: a body that never reads it
  // loses the '<<<' with a warning (stap's "eliding assignment"), one that
  // does is an error. Decided once the whole body has been walked.
  bool stat_add_to_undeclared(Expr &e) {
    const Expr &target = *e.arg(0);
    if (target.kind != ExprKind::Var || script_.find_global(target.text) || has_local(target.text))
      return false;
    pending_stat_adds_.push_back({&e, body_});
    return true;
  }

  void resolve_pending_stat_adds() {
    for (auto &[e, body] : pending_stat_adds_) {
      body_ = body;
      const Expr &target = *e->arg(0);
      // An aggregate of it has been reported already.
      if (read_undeclared_stats_.count({body, target.text})) continue;
      if (has_local(target.text)) {
        diags_.error("XTP2219", target.loc, "statistic '" + target.text + "' is not declared")
            .hint = "statistics must be global: add 'global " + target.text + "'";
        continue;
      }
      diags_
          .warning("XTP2320", target.loc,
                   "'" + target.text + "' is no global and nothing reads it: this '<<<' is dropped")
          .hint = "declare it with 'global " + target.text + "' to keep the statistic";
      // The value of `s <<< v` is v: what is left of it.
      ExprPtr value = std::move(e->args[1]);
      *e = std::move(*value);
    }
    pending_stat_adds_.clear();
    body_ = nullptr;
  }

  // catch (g) with a global g: the message is stored in the global, as in
  // stap. The runtime fills a hidden local that the catch block first
  // copies into g, so that g is an ordinary write of the probe.
  void catch_into_global(Stmt &s) {
    s.catch_clause->local = local("__catch_" + s.catch_clause->var, s.catch_clause->var_loc);
    auto assign = std::make_unique<Expr>(ExprKind::Assign, s.catch_clause->var_loc);
    assign->args.push_back(std::make_unique<Expr>(ExprKind::Var, s.catch_clause->var_loc));
    assign->args.back()->text = s.catch_clause->var;
    assign->args.push_back(std::make_unique<Expr>(ExprKind::Var, s.catch_clause->var_loc));
    assign->args.back()->text = s.catch_clause->local->name;
    auto copy = std::make_unique<Stmt>(StmtKind::Expr, s.catch_clause->var_loc);
    copy->expr = std::move(assign);
    Stmt &handler = *s.body[1];
    if (handler.kind == StmtKind::Block) {
      handler.body.insert(handler.body.begin(), std::move(copy));
    } else {
      auto block = std::make_unique<Stmt>(StmtKind::Block, handler.loc);
      block->body.push_back(std::move(copy));
      block->body.push_back(std::move(s.body[1]));
      s.body[1] = std::move(block);
    }
  }

  LocalVar *local(const std::string &name, Location loc) {
    for (auto &l : body_->locals)
      if (l->name == name) return l.get();
    body_->locals.push_back(std::make_unique<LocalVar>(LocalVar{name, std::move(loc)}));
    return body_->locals.back().get();
  }

  // The statistic of `s <<< v` (add) or of @op(s) (extraction).
  void statistic(Expr &e, bool add) {
    if (e.kind == ExprKind::Index) {
      for (auto &k : e.args) expr(*k);
      e.global = array(e.text, e.loc, e.args.size());
    } else if (e.kind == ExprKind::Var) {
      GlobalDecl *g = script_.find_global(e.text);
      if (!g) {
        read_undeclared_stats_.insert({body_, e.text});
        diags_.error("XTP2219", e.loc, "statistic '" + e.text + "' is not declared").hint =
            "statistics must be global: add 'global " + e.text + "'";
        return;
      }
      if (g->is_array || g->arity > 0 || g->max_entries > 0) {
        diags_.error("XTP2206", e.loc, "array '" + e.text + "' used without an index");
        return;
      }
      g->arity = 0;
      e.global = g;
    } else {
      diags_.error("XTP2219", e.loc,
                   "'<<<' and @aggregates need a global statistic or an element of one");
      return;
    }
    if (!e.global) return;
    if (!add) return use(e.global, true, false);
    e.global->written = true;
  }

  // @variance(s, N): one bit shift per statistic, as the runtime keeps one.
  void variance_shift(const Expr &e) {
    GlobalDecl &g = *e.arg(0)->global;
    long long n = e.arg(1)->number;
    if (n < 0 || n > 62) {
      diags_.error("XTP2226", e.arg(1)->loc, "the @variance bit shift must be between 0 and 62");
      return;
    }
    if (g.variance_shift >= 0 && g.variance_shift != n) {
      diags_
          .error("XTP2226", e.arg(1)->loc,
                 "statistic '" + g.name + "' is used with different @variance bit shifts")
          .hint = "the other one is at " + g.variance_loc.str();
      return;
    }
    g.variance_shift = static_cast<int>(n);
    g.variance_loc = e.arg(1)->loc;
  }

  // A number as written, with its minus sign: -1 is Neg applied to 1.
  static bool literal(const Expr &e, long long *out) {
    if (e.kind == ExprKind::Number) *out = e.number;
    else if (e.kind == ExprKind::Unary && e.op == Op::Neg && e.arg(0)->kind == ExprKind::Number)
      *out = -e.arg(0)->number;
    else return false;
    return true;
  }

  // @percentile(s, P[, D]), @median(s), @quantiles(s): the statistic keeps a
  // sketch. P / D must be within 0..1; literals are checked here, the rest
  // at run time.
  void percentile(Expr &e) {
    if (e.arg(0)->global) e.arg(0)->global->percentiles = true;
    for (size_t i = 1; i < e.args.size(); ++i) expr(*e.arg(i));
    if (e.args.size() < 2) return;
    const Expr &p = *e.arg(1);
    const Expr *d = e.args.size() > 2 ? e.arg(2) : nullptr;
    long long pv = 0, den = 100;
    if (d && literal(*d, &den) && den <= 0) {
      diags_.error("XTP2280", d->loc, "the percentile's denominator must be positive").hint =
          "@percentile(s, 999, 1000) is the 99.9th percentile";
      return;
    }
    if ((d && !literal(*d, &den)) || !literal(p, &pv)) return;
    if (pv < 0 || pv > den)
      diags_
          .error("XTP2280", p.loc,
                 "percentile " + std::to_string(pv) + (d ? "/" + std::to_string(den) : "") +
                     " is not within 0.." + std::to_string(den))
          .hint = d ? "P / D must be within 0..1"
                    : "give a percentile from 0 to 100, or P and D "
                      "for P / D: @percentile(s, 999, 1000)";
  }

  // Every @hist_* of one statistic must describe the same histogram: the
  // runtime keeps one set of buckets per statistic.
  void histogram(const Expr &e) {
    GlobalDecl &g = *e.arg(0)->global;
    int kind = e.stat == StatOp::HistLinear ? 1 : 2;
    long long lo = 0, hi = 0, step = 0;
    if (kind == 1) {
      lo = e.arg(1)->number;
      hi = e.arg(2)->number;
      step = e.arg(3)->number;
      linear_buckets(e, lo, hi, step);
    }
    if (g.hist == 0) {
      g.hist = kind;
      g.hist_lo = lo;
      g.hist_hi = hi;
      g.hist_step = step;
      g.hist_loc = e.loc;
    } else if (g.hist != kind || g.hist_lo != lo || g.hist_hi != hi || g.hist_step != step) {
      diags_.error("XTP2222", e.loc, "statistic '" + g.name + "' is used with different histograms")
          .hint = "the other one is at " + g.hist_loc.str();
    }
  }

  // The runtime refuses these histograms at session start, with stap's
  // words; stap accepts them until then, so this is only a warning.
  void linear_buckets(const Expr &e, long long lo, long long hi, long long step) {
    std::string problem;
    if (step == 0) {
      problem = "its step (interval) is 0";
    } else if (step < 0 || hi < lo ||
               (static_cast<unsigned long long>(hi) - static_cast<unsigned long long>(lo)) /
                       static_cast<unsigned long long>(step) >
                   XTAP_HIST_MAX_BUCKETS - 3) {
      problem = "it needs low <= high, a positive step and at most " +
                std::to_string(XTAP_HIST_MAX_BUCKETS - 2) + " buckets ((high - low) / step + 1)";
    }
    if (problem.empty()) return;
    diags_
        .warning("XTP2220", e.loc, "this @hist_linear makes the session fail to start: " + problem)
        .hint =
        "as in stap, the module builds and its start fails; give low <= high and a step "
        "that divides the range into at most " +
        std::to_string(XTAP_HIST_MAX_BUCKETS - 2) + " buckets";
  }

  void use(GlobalDecl *g, bool read, bool write) {
    g->read |= read;
    g->written |= write;
  }

  GlobalDecl *array(const std::string &name, const Location &loc, size_t arity) {
    GlobalDecl *g = script_.find_global(name);
    if (!g) {
      auto &d = diags_.error("XTP2201", loc, "array '" + name + "' is not declared");
      d.hint = "arrays must be global: add 'global " + name + "' at the top of the script";
      return nullptr;
    }
    if (g->arity == 0) {
      diags_.error("XTP2202", loc,
                   "'" + name + "' is used as a scalar elsewhere, here as an array");
      return nullptr;
    }
    if (arity > 9) {
      diags_.error("XTP2203", loc, "arrays take at most 9 keys");
      return nullptr;
    }
    if (g->arity > 0 && static_cast<size_t>(g->arity) != arity && arity != 0) {
      diags_.error("XTP2204", loc,
                   "array '" + name + "' used with " + std::to_string(arity) + " key(s) here but " +
                       std::to_string(g->arity) + " elsewhere");
      return nullptr;
    }
    g->is_array = true;
    if (arity) g->arity = static_cast<int>(arity);
    return g;
  }

  // `lvalue`: the expression is assigned to; `read`: its old value is used.
  void target(Expr &e, bool read) {
    if (e.kind == ExprKind::Var) {
      var(e, read, true);
    } else if (e.kind == ExprKind::Index) {
      for (auto &k : e.args) expr(*k);
      if ((e.global = array(e.text, e.loc, e.args.size()))) use(e.global, read, true);
    } else if (e.kind == ExprKind::Target && e.target->access && !read) {
      for (auto &a : e.args) expr(*a);  // a target resolve_targets made a place (guru mode)
    } else {
      diags_.error("XTP2205", e.loc,
                   "the left side of an assignment must be a variable or an array element");
    }
  }

  void var(Expr &e, bool read, bool write) {
    if (LocalVar *param = parameter(e.text)) {
      e.local = param;
      param->read |= read;
      param->written |= write;
      return;
    }
    if (GlobalDecl *g = script_.find_global(e.text)) {
      if (g->is_array || g->arity > 0 || g->max_entries > 0) {
        diags_.error("XTP2206", e.loc, "array '" + e.text + "' used without an index").hint =
            "write " + e.text + "[key]";
        return;
      }
      g->arity = 0;
      e.global = g;
      use(g, read, write);
      return;
    }
    e.local = local(e.text, e.loc);
    e.local->read |= read;
    e.local->written |= write;
  }

  void expr(Expr &e) {
    switch (e.kind) {
      case ExprKind::Number:
      case ExprKind::String: return;
      case ExprKind::Var: return var(e, true, false);
      case ExprKind::Index:
        for (auto &k : e.args) expr(*k);
        if ((e.global = array(e.text, e.loc, e.args.size()))) use(e.global, true, false);
        return;
      case ExprKind::In:
        slice_keys(e);
        if ((e.global = array(e.text, e.loc, e.args.size()))) use(e.global, true, false);
        return;
      case ExprKind::EmbeddedC: embedded_args(e); return;
      case ExprKind::Entry:  // rewritten by expand_entry before this pass
        return;
      case ExprKind::Star:
        diags_.error("XTP2242", e.loc, "'*' (any key) is only allowed in a slice").hint =
            "slices are 'foreach (k in a[x, *])', 'delete a[x, *]' and '[x, *] in a'";
        return;
      case ExprKind::Call: {
        for (auto &a : e.args) expr(*a);
        if (FunctionDecl *f = script_.find_function(e.text)) {
          if (FunctionDecl *exact = script_.find_function(e.text, e.args.size())) f = exact;
          e.function = f;
          if (e.args.size() != f->params.size()) arity_mismatch(e);
          if (needs_guru(*f) && !script_.guru)
            diags_.error("XTP2158", e.loc, "function '" + e.text + "' needs guru mode").hint =
                "run with -g (guru mode): it writes kernel or user memory or changes the system";
          return;
        }
        e.builtin = find_builtin(e.text);
        if (!e.builtin) {
          auto &d = diags_.error("XTP2207", e.loc, "unknown function '" + e.text + "'");
          std::vector<std::string> names = builtin_names();
          for (auto &f : script_.functions) names.push_back(f->name);
          names.insert(names.end(), script_.pruned_functions.begin(),
                       script_.pruned_functions.end());
          std::string guess = closest_match(e.text, names);
          if (!guess.empty()) d.hint = "did you mean '" + guess + "'?";
        }
        return;
      }
      case ExprKind::Assign:
        expr(*e.arg(1));
        if (e.op == Op::StatAdd && stat_add_to_undeclared(e)) return;
        if (e.op == Op::StatAdd) return statistic(*e.arg(0), true);
        target(*e.arg(0), e.op != Op::None);
        return;
      case ExprKind::Aggregate:
        statistic(*e.arg(0), false);
        if (e.arg(0)->global && is_histogram(e)) histogram(e);
        if (e.arg(0)->global && e.stat == StatOp::Variance) e.arg(0)->global->uses_variance = true;
        if (e.arg(0)->global && e.stat == StatOp::Variance && e.args.size() > 1) variance_shift(e);
        if (is_percentile(e)) percentile(e);
        return;
      case ExprKind::HistBucket:
        for (auto &a : e.args) expr(*a);
        if (e.args.size() != 2) one_bucket_index(e.arg(2)->loc);
        return;
      case ExprKind::IncDec: target(*e.arg(0), true); return;
      case ExprKind::Unary:
      case ExprKind::Binary:
      case ExprKind::Logical:
      case ExprKind::Ternary:
      case ExprKind::Target:
      case ExprKind::Defined:
        for (auto &a : e.args) expr(*a);
        return;
    }
  }

  // STAP_ARG_x in an embedded C expression reads the local x (a parameter
  // of the enclosing function, or a local set before).
  void embedded_args(Expr &e) {
    static const std::regex arg("STAP_ARG_([A-Za-z_][A-Za-z0-9_]*)");
    for (std::sregex_iterator it(e.text.begin(), e.text.end(), arg), end; it != end; ++it) {
      std::string name = (*it)[1];
      bool found = false;
      for (auto &l : body_->locals)
        if (l->name == name) {
          l->read = found = true;
        }
      if (!found)
        diags_.error("XTP2243", e.loc,
                     "embedded C reads STAP_ARG_" + name + ", but '" + name +
                         "' is not a parameter or local here");
    }
  }

  // The keys of a slice: any may be `*`.
  void slice_keys(Expr &e) {
    for (auto &k : e.args)
      if (k->kind != ExprKind::Star) expr(*k);
  }

  void stmt(Stmt &s) {
    if (s.expr && s.kind != StmtKind::Delete && s.kind != StmtKind::Foreach) expr(*s.expr);
    if (s.init) expr(*s.init);
    if (s.step) expr(*s.step);
    switch (s.kind) {
      case StmtKind::Delete:
        if (s.expr->kind == ExprKind::Var || s.expr->kind == ExprKind::Index) {
          if (s.expr->kind == ExprKind::Var) {
            if (GlobalDecl *g = script_.find_global(s.expr->text)) {
              if (g->is_array || g->arity > 0 || g->max_entries > 0) {
                s.expr->global = array(g->name, s.expr->loc, 0);
                if (s.expr->global) use(g, false, true);
                return;
              }
              if (g->arity < 0) {
                // `delete g` says nothing of g's kind: decide once every
                // other use has been seen (a tapset may clear an array
                // before the code that fills it).
                pending_deletes_.push_back({s.expr.get(), body_});
                return;
              }
            }
          }
          if (s.expr->kind == ExprKind::Index) {
            slice_keys(*s.expr);
            if ((s.expr->global = array(s.expr->text, s.expr->loc, s.expr->args.size())))
              use(s.expr->global, false, true);
          } else {
            target(*s.expr, false);
          }
        } else {
          diags_.error("XTP2208", s.expr->loc,
                       "'delete' needs a variable, an array or an array element");
        }
        return;
      case StmtKind::Foreach: {
        if (s.foreach_histogram()) {
          expr(*s.expr);
          if (s.foreach->keys.size() != 1) one_bucket_index(s.foreach->key_locs[1]);
        } else if (GlobalDecl *g =
                       array(s.foreach->array, s.foreach->array_loc, s.foreach->keys.size())) {
          s.foreach->global = g;
          use(g, true, false);
        }
        if (s.expr && !s.foreach_histogram()) {  // a slice: foreach (... in a[k, *])
          slice_keys(*s.expr);
          s.expr->global = array(s.expr->text, s.expr->loc, s.expr->args.size());
        }
        for (size_t i = 0; i < s.foreach->keys.size(); ++i) {
          if (script_.find_global(s.foreach->keys[i])) {
            diags_.error("XTP2209", s.foreach->key_locs[i],
                         "foreach key '" + s.foreach->keys[i] + "' must be a local, not a global");
            continue;
          }
          s.foreach->vars.push_back(local(s.foreach->keys[i], s.foreach->key_locs[i]));
        }
        if (!s.foreach->value.empty()) {
          if (script_.find_global(s.foreach->value))
            diags_.error("XTP2209", s.foreach->value_loc,
                         "foreach value '" + s.foreach->value + "' must be a local, not a global");
          else s.foreach->value_var = local(s.foreach->value, s.foreach->value_loc);
        }
        if (s.foreach->limit) expr(*s.foreach->limit);
        if ((s.foreach->sort_stat && !stat_op_sorts(*s.foreach->sort_stat)) ||
            !s.foreach->sort_stat_unknown.empty())
          diags_.error("XTP2223", s.foreach->array_loc,
                       "foreach can sort a statistic by @count, @sum, @min, @max or @avg, not @" +
                           (s.foreach->sort_stat ? stat_op_name(*s.foreach->sort_stat)
                                                 : s.foreach->sort_stat_unknown));
        ++loops_;
        stmt(*s.body[0]);
        --loops_;
        return;
      }
      case StmtKind::Try:
        if (!s.catch_clause->var.empty()) {
          // A parameter or local of that name hides a global, as elsewhere.
          if (!has_local(s.catch_clause->var) && script_.find_global(s.catch_clause->var) &&
              s.body.size() > 1)
            catch_into_global(s);
          else s.catch_clause->local = local(s.catch_clause->var, s.catch_clause->var_loc);
        }
        for (auto &b : s.body) stmt(*b);
        return;
      case StmtKind::While:
      case StmtKind::For:
        ++loops_;
        stmt(*s.body[0]);
        --loops_;
        return;
      case StmtKind::Break:
      case StmtKind::Continue:
        if (loops_ == 0)
          diags_.error("XTP2210", s.loc,
                       std::string("'") + (s.kind == StmtKind::Break ? "break" : "continue") +
                           "' outside of a loop");
        return;
      case StmtKind::Return:
        if (!function_) {
          diags_.error("XTP2211", s.loc, "'return' outside of a function").hint =
              "use 'next' to leave a probe early";
        } else if (s.expr) {
          function_->returns_value = true;
        }
        return;
      case StmtKind::Next: return;  // in a function: the next overload (link_overloads)
      default:
        for (auto &b : s.body) stmt(*b);
    }
  }

  // @hist_log(s)[i, j], [i, j] in @hist_log(s), foreach ([i, j] in @hist_log(s)).
  void one_bucket_index(const Location &loc) {
    diags_.error("XTP2321", loc, "a histogram is indexed by one bucket number").hint =
        "write @hist_log(s)[i]: log buckets are 0 to 127 (64 counts 0), linear ones 0 for the "
        "underflow, then one per step, then the overflow";
  }

  // A call whose argument count no definition of the function takes.
  void arity_mismatch(const Expr &e) {
    std::vector<const FunctionDecl *> defs;
    for (const auto &f : script_.functions)
      if (f->name == e.text) defs.push_back(f.get());
    std::string takes;
    for (size_t i = 0; i < defs.size(); ++i)
      takes += (i == 0                 ? ""
                : i + 1 == defs.size() ? " or "
                                       : ", ") +
               std::to_string(defs[i]->params.size());
    auto &d = diags_.error("XTP2214", e.loc,
                           "function '" + e.text + "' takes " + takes + " argument(s), " +
                               std::to_string(e.args.size()) + " given");
    d.hint = "it is defined at " + defs[0]->loc.str();
    for (size_t i = 1; i < defs.size(); ++i) d.hint += " and " + defs[i]->loc.str();
  }

  // The current function's parameter of this name, which hides a global.
  LocalVar *parameter(const std::string &name) const {
    if (function_)
      for (auto *p : function_->params)
        if (p->name == name) return p;
    return nullptr;
  }

  Script &script_;
  Diagnostics &diags_;
  Body *body_ = nullptr;
  FunctionDecl *function_ = nullptr;
  std::vector<std::pair<Expr *, Body *>> pending_deletes_;
  std::vector<std::pair<Expr *, Body *>> pending_stat_adds_;        // s <<< v, s undeclared
  std::set<std::pair<Body *, std::string>> read_undeclared_stats_;  // @count(s), s undeclared
  int loops_ = 0;
};

}  // namespace

void resolve_names(Script &s, Diagnostics &diags) {
  NameResolver(s, diags).run();
  for (auto &g : s.globals) {
    if (g->max_entries > 0) g->is_array = true;
    if (g->wrap && !g->is_array && (g->read || g->written)) {
      diags
          .error("XTP2240", g->wrap_loc,
                 "'" + g->name + "' is a scalar: only arrays can wrap around")
          .hint = "remove the '%' after the name, or use '" + g->name + "' with keys";
      continue;
    }
    if (g->is_array && g->arity < 0) {
      if (!g->read && !g->written) {
        // Declared with a size and never used (warned about as unused):
        // give it a shape so that it can still be emitted.
        g->arity = 1;
        g->key_types = {Type::Long};
        continue;
      }
      diags.error("XTP2212", g->loc, "array '" + g->name + "' is never used with keys");
    }
    // Every entry of a statistic array is preallocated on every CPU, and a
    // percentile sketch is 15 KiB (PERCENTILE_BITS=4): MAXMAPENTRIES of
    // them are 30 MiB per CPU.
    if (g->is_array && g->percentiles && g->max_entries == 0)
      diags
          .warning("XTP2281", g->loc,
                   "each entry of '" + g->name +
                       "' keeps a percentile sketch on every CPU, and without a size it "
                       "preallocates MAXMAPENTRIES entries (30 MiB per CPU at the defaults)")
          .hint = "declare the entries it needs, 'global " + g->name +
                  "[100]', or a coarser sketch: -D PERCENTILE_BITS=2 (3.9 KiB an entry)";
  }
}

}  // namespace xtap
