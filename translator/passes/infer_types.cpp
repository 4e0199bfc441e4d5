// Pass 2, infer_types: infers the type (long or string) of every variable, array key,
// array value and expression, iterating to a fixed point so that a use can
// type a variable assigned later in the script. Conflicts and variables
// whose type stays unknown are errors.
#include "builtins/builtins.h"
#include "format/format.h"
#include "passes/passes.h"

#include <algorithm>
#include <map>
#include <set>

namespace xtap {
namespace {

class TypeInferrer {
 public:
  TypeInferrer(Script &s, Diagnostics &d) : script_(s), diags_(d) {}

  void run() {
    for (auto &g : script_.globals)
      if (g->init) g->type = g->init->kind == ExprKind::Number ? Type::Long : Type::String;
    for (auto &f : script_.functions) {
      f->return_type = f->declared_return;
      // An untyped embedded-C function that returns something takes its
      // return type from where its calls are used, as in stap
      // (buildok/fortynine.stp: `log(foo("hello"))` makes foo a string).
      if (!f->returns_value && f->return_type == Type::Unknown && !returns_from_c(*f) &&
          !gives_no_value(*f))
        f->return_type = Type::Long;
      for (auto *p : f->params) p->type = p->declared;
    }
    // Each round can only move types from unknown to known, so this ends.
    do {
      changed_ = false;
      walk_all();
      // What the calls could not tell: a long, as a C value is by default.
      if (!changed_)
        for (auto &f : script_.functions)
          if (f->return_type == Type::Unknown && returns_from_c(*f)) {
            f->return_type = Type::Long;
            changed_ = true;
          }
    } while (changed_);
    type_valueless_functions();
    report_ = true;
    walk_all();
    for (auto &g : script_.globals) {
      if (g->type != Type::Unknown) continue;
      if (!g->read && !g->written) {
        // Pass 2's own globals (an @entry value no location reads) are
        // no concern of the script's.
        if (g->name.rfind("__xtap_", 0) != 0)
          diags_.warning("XTP2301", g->loc, "global '" + g->name + "' is never used");
        g->type = Type::Long;
        if (g->is_array)
          for (auto &k : g->key_types)
            if (k == Type::Unknown) k = Type::Long;
        continue;
      }
      diags_.error("XTP2302", g->loc, "cannot tell the type of global '" + g->name + "'").hint =
          "assign it a number or a string somewhere";
    }
    drop_unused_scalars();
    for (auto &g : script_.globals)
      for (size_t i = 0; i < g->key_types.size(); ++i)
        if (g->key_types[i] == Type::Unknown && g->type != Type::Unknown)
          diags_.error("XTP2303", g->loc,
                       "cannot tell the type of key " + std::to_string(i + 1) + " of array '" +
                           g->name + "'");
  }

 private:
  // A scalar global nothing reads, writes or initializes would be a C
  // variable nothing uses (gcc warns): dropped, as stap elides it, after
  // the XTP2301 warning. Arrays and statistics stay: their tables name them.
  void drop_unused_scalars() {
    std::erase_if(script_.globals, [](const std::unique_ptr<GlobalDecl> &g) {
      return !g->read && !g->written && !g->init && !g->is_array && g->type != Type::Stat;
    });
    for (size_t i = 0; i < script_.globals.size(); ++i)
      script_.globals[i]->index = static_cast<int>(i);
  }

  void walk_body(Body &b) {
    stmt(*b.body);
    if (!report_) return;
    for (auto &l : b.locals) {
      if (l->type != Type::Unknown) continue;
      if (function_ && function_->embedded) {
        // Its C body says nothing about it, and no call gave it a type. A
        // function nothing calls is not checked, as stap elides it.
        if (!called_.count(function_)) {
          l->type = Type::Long;
          continue;
        }
        diags_
            .error("XTP2224", l->loc,
                   "parameter '" + l->name + "' of embedded-C function '" + function_->name +
                       "' needs a type: no call to it tells whether it is a number or a string")
            .hint = "write " + l->name + ":long or " + l->name + ":string";
        continue;
      }
      auto &d = diags_.error("XTP2304", l->loc, "cannot tell the type of local '" + l->name + "'");
      // Often a misspelt variable: suggest a typed one with a similar name.
      std::vector<std::string> names;
      for (auto &g : script_.globals)
        if (g->type != Type::Unknown) names.push_back(g->name);
      for (auto &o : b.locals)
        if (o->type != Type::Unknown) names.push_back(o->name);
      std::string guess = closest_match(l->name, names);
      d.hint = guess.empty() ? "assign it a number or a string before using it"
                             : "did you mean '" + guess + "'?";
    }
  }

  // The functions of a run-time overload chain take the same arguments and
  // give the same kind of value: `next` passes one's call to the next.
  void unify_overloads(FunctionDecl &f) {
    FunctionDecl *n = f.next_overload;
    if (!n) return;
    if (called_.count(&f)) called_.insert(n);
    std::string what = "function '" + f.name + "' (overloaded at " + n->loc.str() + ")";
    for (size_t i = 0; i < f.params.size(); ++i) {
      unify(f.params[i]->type, n->params[i]->type, f.params[i]->loc, "parameter of " + what);
      unify(n->params[i]->type, f.params[i]->type, n->params[i]->loc, "parameter of " + what);
    }
    unify(f.return_type, n->return_type, f.loc, "the value of " + what);
    unify(n->return_type, f.return_type, n->loc, "the value of " + what);
  }

  void walk_all() {
    for (auto &f : script_.functions) unify_overloads(*f);
    for (auto &f : script_.functions) {
      function_ = f.get();
      walk_body(*f);
      if (report_ && f->return_type == Type::Unknown)
        diags_.error("XTP2314", f->loc, "cannot tell the return type of function '" + f->name + "'")
            .hint = "annotate it, as in 'function " + f->name + ":long(...)'";
    }
    function_ = nullptr;
    for (auto &p : script_.probes) {
      if (p->condition) expect(*p->condition, Type::Long);
      walk_body(*p);
    }
  }

  void mismatch(const Location &loc, const std::string &what, Type have, Type want) {
    if (!report_) return;
    diags_.error("XTP2305", loc,
                 what + " is " + type_name(have) + " but is used as " + type_name(want) + " here");
  }

  // Gives `slot` type `t` if it has none; reports a conflict otherwise.
  void unify(Type &slot, Type t, const Location &loc, const std::string &what) {
    if (t == Type::Unknown) return;
    if (slot == Type::Unknown) {
      slot = t;
      changed_ = true;
    } else if (slot != t) {
      mismatch(loc, what, slot, t);
    }
  }

  std::vector<Type> &keys_of(GlobalDecl &g) {
    if (g.key_types.size() < static_cast<size_t>(std::max(g.arity, 0)))
      g.key_types.resize(g.arity, Type::Unknown);
    return g.key_types;
  }

  void keys(Expr &e) {
    if (!e.global) return;
    auto &kt = keys_of(*e.global);
    for (size_t i = 0; i < e.args.size() && i < kt.size(); ++i) {
      Type t = expr(*e.arg(i), kt[i]);
      unify(kt[i], t, e.arg(i)->loc, "key " + std::to_string(i + 1) + " of array '" + e.text + "'");
    }
  }

  // Pushes `want` into e (typing variables) and returns e's type.
  Type expect(Expr &e, Type want) {
    Type t = expr(e, want);
    if (t != Type::Unknown && want != Type::Unknown && t != want)
      mismatch(e.loc, "this expression", t, want);
    return t;
  }

  Type set(Expr &e, Type t) { return e.type = t; }

  Type stat_misuse(Expr &e) {
    if (report_)
      diags_.error("XTP2316", e.loc, "'" + e.text + "' is a statistic: it has no value of its own")
          .hint = "add to it with <<< and read it with @count, @sum, @min, @max, @avg or @variance";
    return Type::Unknown;
  }

  Type expr(Expr &e, Type want) {
    switch (e.kind) {
      case ExprKind::Number: return set(e, Type::Long);
      case ExprKind::String: return set(e, Type::String);
      case ExprKind::Var:
        if (e.global && e.global->type == Type::Stat) return stat_misuse(e);
        if (e.global) {
          unify(e.global->type, want, e.loc, "global '" + e.text + "'");
          return set(e, e.global->type);
        }
        if (e.local) {
          unify(e.local->type, want, e.loc, "local '" + e.text + "'");
          return set(e, e.local->type);
        }
        return Type::Unknown;
      case ExprKind::Index:
        keys(e);
        if (!e.global) return Type::Unknown;
        if (e.global->type == Type::Stat) return stat_misuse(e);
        unify(e.global->type, want, e.loc, "array '" + e.text + "'");
        return set(e, e.global->type);
      case ExprKind::In: keys(e); return set(e, Type::Long);
      case ExprKind::Call: return call(e, want);
      case ExprKind::Unary: expect(*e.arg(0), Type::Long); return set(e, Type::Long);
      case ExprKind::Logical:
        expect(*e.arg(0), Type::Long);
        expect(*e.arg(1), Type::Long);
        return set(e, Type::Long);
      case ExprKind::Binary: return binary(e);
      case ExprKind::Ternary: {
        expect(*e.arg(0), Type::Long);
        Type a = expr(*e.arg(1), want);
        Type b = expr(*e.arg(2), want == Type::Unknown ? a : want);
        if (a == Type::Unknown) a = expr(*e.arg(1), b);
        if (a != Type::Unknown && b != Type::Unknown && a != b)
          mismatch(e.arg(2)->loc, "this branch", b, a);
        return set(e, a);
      }
      case ExprKind::Assign: return assign(e);
      case ExprKind::Aggregate: {
        Expr &st = *e.arg(0);
        if (report_ && !hist_ok_ && is_histogram(e)) {
          std::string h = stat_op_name(e.stat);
          diags_.error("XTP2315", e.loc, "a histogram can only be printed or indexed by bucket")
              .hint = "print(@" + h + "(s)), sprint(@" + h + "(s)), @" + h + "(s)[i], i in @" + h +
                      "(s), foreach ([i] in @" + h + "(s))";
        }
        if (report_ && !hist_ok_ && e.stat == StatOp::Quantiles)
          diags_.error("XTP2315", e.loc, "@quantiles can only be printed").hint =
              "print(@quantiles(s)), sprint(@quantiles(s)); for one value, @percentile(s, 99)";
        if (st.kind == ExprKind::Index) keys(st);
        if (e.stat == StatOp::Percentile)
          for (size_t i = 1; i < e.args.size(); ++i) expect(*e.arg(i), Type::Long);
        if (st.global) unify(st.global->type, Type::Stat, st.loc, "'" + st.text + "'");
        st.type = Type::Stat;
        return set(e, Type::Long);
      }
      case ExprKind::HistBucket:
        histogram(*e.arg(0));
        for (size_t i = 1; i < e.args.size(); ++i) expect(*e.arg(i), Type::Long);
        return set(e, Type::Long);
      case ExprKind::IncDec: expect(*e.arg(0), Type::Long); return set(e, Type::Long);
      case ExprKind::Target:  // @cast's pointer and [index] expressions are numbers
        for (auto &a : e.args) expect(*a, Type::Long);
        return set(e, Type::Long);
      case ExprKind::EmbeddedC:
        return set(e, e.text.find("/* string */") != std::string::npos ? Type::String : Type::Long);
      case ExprKind::Star:  // any key of a slice: whatever the array's key is
        return set(e, want);
      case ExprKind::Defined:  // replaced by resolve_targets
        return set(e, Type::Long);
      case ExprKind::Entry:  // rewritten by expand_entry before this pass
        return Type::Unknown;
    }
    return Type::Unknown;
  }

  // A histogram where one may stand: printed, its buckets indexed or iterated.
  void histogram(Expr &h) {
    hist_ok_ = true;
    expr(h, Type::Unknown);
    hist_ok_ = false;
  }

  Type binary(Expr &e) {
    if (e.op == Op::Concat) {
      expect(*e.arg(0), Type::String);
      expect(*e.arg(1), Type::String);
      return set(e, Type::String);
    }
    if (is_comparison(e.op)) {
      Type a = expr(*e.arg(0), Type::Unknown);
      Type b = expr(*e.arg(1), a);
      if (a == Type::Unknown && b != Type::Unknown) a = expr(*e.arg(0), b);
      if (a != Type::Unknown && b != Type::Unknown && a != b && report_)
        diags_.error("XTP2306", e.loc,
                     std::string("cannot compare ") + type_name(a) + " with " + type_name(b));
      return set(e, Type::Long);
    }
    if (e.op == Op::Match || e.op == Op::NoMatch) {
      expect(*e.arg(0), Type::String);
      Expr &re = *e.arg(1);
      if (re.kind != ExprKind::String) {
        if (report_)
          diags_.error(
              "XTP2307", re.loc,
              "the right side of " + e.op_spelling() + " must be a literal regular expression");
        return set(e, Type::Long);
      }
      re.type = Type::String;  // checked and numbered by collect_tables
      return set(e, Type::Long);
    }
    expect(*e.arg(0), Type::Long);
    expect(*e.arg(1), Type::Long);
    return set(e, Type::Long);
  }

  Type assign(Expr &e) {
    Expr &lhs = *e.arg(0);
    Expr &rhs = *e.arg(1);
    if (e.op == Op::StatAdd) {
      if (lhs.kind == ExprKind::Index) keys(lhs);
      if (lhs.global) unify(lhs.global->type, Type::Stat, lhs.loc, "'" + lhs.text + "'");
      lhs.type = Type::Stat;
      expect(rhs, Type::Long);
      return set(e, Type::Long);
    }
    if (e.op == Op::Concat) {
      expect(lhs, Type::String);
      expect(rhs, Type::String);
      return set(e, Type::String);
    }
    if (e.op != Op::None) {
      expect(lhs, Type::Long);
      expect(rhs, Type::Long);
      return set(e, Type::Long);
    }
    Type r = expr(rhs, Type::Unknown);
    Type l = expr(lhs, r);
    if (r == Type::Unknown && l != Type::Unknown) r = expr(rhs, l);
    if (l != Type::Unknown && r != Type::Unknown && l != r)
      mismatch(rhs.loc, "the assigned value", r, l);
    return set(e, l != Type::Unknown ? l : r);
  }

  static bool returns_from_c(const FunctionDecl &f) {
    if (!f.embedded || f.declared_return != Type::Unknown) return false;
    for (const char *r : {"STAP_RETURN", "STAP_RETVALUE", "__retvalue"})
      if (f.embedded_c.find(r) != std::string::npos) return true;
    return false;
  }

  // A script function without `return EXPR` (and no declared type) gives
  // no value. As in stap, a call of it used as a value takes its type from
  // where it is used (`x && f()`: a long, 0); one used where nothing tells
  // the type (`a = f()` with nothing else typing a) is an error (stap
  // testsuite semko/one.stp), and calls as statements need none.
  static bool gives_no_value(const FunctionDecl &f) {
    for (const FunctionDecl *o = &f; o; o = o->next_overload)
      if (o->embedded || o->returns_value || o->declared_return != Type::Unknown) return false;
    return true;
  }

  void type_valueless_functions() {
    for (auto &f : script_.functions) {
      if (f->return_type != Type::Unknown || !gives_no_value(*f)) continue;
      auto use = valueless_uses_.find(f.get());
      if (use != valueless_uses_.end())
        diags_
            .error("XTP2330", use->second,
                   "function '" + f->name +
                       "' returns no value, and nothing here tells the type of the value used")
            .hint = "return a value from it ('return EXPR'), or call it as a statement of its own";
      f->return_type = Type::Long;
    }
  }

  Type call(Expr &e, Type want) {
    if (FunctionDecl *f = e.function) {
      called_.insert(f);
      if (!statement_exprs_.count(&e) && gives_no_value(*f)) {
        valueless_uses_.emplace(f, e.loc);
        unify(f->return_type, want, e.loc, "the value of '" + f->name + "'");
      }
      if (returns_from_c(*f)) unify(f->return_type, want, e.loc, "the value of '" + f->name + "'");
      for (size_t i = 0; i < e.args.size() && i < f->params.size(); ++i) {
        LocalVar *p = f->params[i];
        Type t = expr(*e.arg(i), p->type);
        unify(p->type, t, e.arg(i)->loc, "parameter '" + p->name + "' of '" + f->name + "'");
      }
      return set(e, f->return_type);
    }
    const Builtin *b = e.builtin;
    if (!b) return Type::Unknown;
    switch (b->kind) {
      case BuiltinKind::Printf:
      case BuiltinKind::Sprintf: format_call(e); break;
      case BuiltinKind::Print:
        for (auto &a : e.args) {
          if (is_printed_aggregate(*a)) {
            histogram(*a);
            continue;
          }
          Type t = expr(*a, Type::Unknown);
          // An untyped local is reported once, as XTP2304.
          if (report_ && t == Type::Unknown && !(a->kind == ExprKind::Var && a->local))
            diags_.error("XTP2308", a->loc, "cannot tell the type of this argument");
        }
        if (report_ && e.text == "print" && e.args.empty())
          diags_.error("XTP2309", e.loc, "print() needs at least one argument");
        break;
      case BuiltinKind::Sprint:
      case BuiltinKind::PrintDelimited: {
        size_t from = b->kind == BuiltinKind::PrintDelimited ? 1 : 0;
        // The delimiter must separate something: printd needs two values.
        if (e.args.size() <= from * 2) {
          if (report_)
            diags_.error("XTP2309", e.loc,
                         "'" + e.text + "' needs " +
                             (from ? "a delimiter and at least two values" : "at least one value"));
          break;
        }
        if (from) expect(*e.arg(0), Type::String);
        for (size_t i = from; i < e.args.size(); ++i) {
          if (!from && is_printed_aggregate(*e.arg(i))) {  // sprint(@hist_log(s)): its text
            histogram(*e.arg(i));
            continue;
          }
          Type t = expr(*e.arg(i), Type::Unknown);
          if (report_ && t == Type::Unknown)
            diags_.error("XTP2308", e.arg(i)->loc, "cannot tell the type of this argument");
        }
        break;
      }
      default:
        if (e.args.size() != b->params.size()) {
          if (report_)
            diags_.error("XTP2310", e.loc,
                         "'" + e.text + "' takes " + std::to_string(b->params.size()) +
                             " argument(s), " + std::to_string(e.args.size()) + " given");
          break;
        }
        for (size_t i = 0; i < e.args.size(); ++i) expect(*e.arg(i), b->params[i]);
    }
    return set(e, b->result);
  }

  void format_call(Expr &e) {
    if (e.args.empty() || e.arg(0)->kind != ExprKind::String) {
      if (report_)
        diags_.error("XTP2311", e.args.empty() ? e.loc : e.arg(0)->loc,
                     "'" + e.text + "' needs a literal format string as its first argument");
      for (auto &a : e.args) expr(*a, Type::Unknown);
      return;
    }
    expr(*e.arg(0), Type::String);
    Format f = parse_format(e.arg(0)->text);
    if (!f.error.empty()) {
      if (report_) diags_.error("XTP2312", e.arg(0)->loc, "bad format string: " + f.error);
      return;
    }
    if (f.has_raw_conversions() && e.text == "sprintf" && report_)
      diags_.error("XTP2319", e.arg(0)->loc,
                   "%b, %m and %M write raw bytes: use them with printf, not sprintf");
    std::vector<Type> want;
    for (const auto &p : f.pieces) {
      if (p.literal) continue;
      if (p.width == "*") want.push_back(Type::Long);
      if (p.precision == "*") want.push_back(Type::Long);
      want.push_back(format_arg_type(p));
    }
    size_t given = e.args.size() - 1;
    if (given != want.size()) {
      if (report_)
        diags_.error("XTP2313", e.loc,
                     "format string wants " + std::to_string(want.size()) + " argument(s), " +
                         std::to_string(given) + " given");
      for (size_t i = 1; i < e.args.size(); ++i) expr(*e.arg(i), Type::Unknown);
      return;
    }
    for (size_t i = 0; i < want.size(); ++i) expect(*e.arg(i + 1), want[i]);
  }

  void stmt(Stmt &s) {
    switch (s.kind) {
      case StmtKind::Expr:
        statement_position(s.expr.get());
        expr(*s.expr, Type::Unknown);
        break;
      case StmtKind::If:
      case StmtKind::While: expect(*s.expr, Type::Long); break;
      case StmtKind::Try:
        if (LocalVar *v = s.catch_clause->local)
          unify(v->type, Type::String, v->loc, "local '" + v->name + "'");
        break;
      case StmtKind::Return:
        if (s.expr && function_) {
          Type t = expr(*s.expr, function_->return_type);
          unify(function_->return_type, t, s.expr->loc,
                "the return value of '" + function_->name + "'");
        }
        break;
      case StmtKind::For:
        statement_position(s.init.get());
        if (s.init) expr(*s.init, Type::Unknown);
        if (s.expr) expect(*s.expr, Type::Long);
        statement_position(s.step.get());
        if (s.step) expr(*s.step, Type::Unknown);
        break;
      case StmtKind::Delete:
        if (s.expr->kind == ExprKind::Index) keys(*s.expr);
        else if (!s.expr->global ||
                 (!s.expr->global->is_array && s.expr->global->type != Type::Stat))
          expr(*s.expr, Type::Unknown);
        break;
      case StmtKind::Foreach:
        if (s.foreach_histogram()) {
          histogram(*s.expr);
          for (LocalVar *v : s.foreach->vars)
            unify(v->type, Type::Long, v->loc, "local '" + v->name + "'");
          if (LocalVar *v = s.foreach->value_var)
            unify(v->type, Type::Long, v->loc, "local '" + v->name + "'");
        } else if (s.expr) {
          keys(*s.expr);
        }
        if (s.foreach->limit) expect(*s.foreach->limit, Type::Long);
        if (s.foreach->global && s.foreach->value_var) {
          if (s.foreach->global->type == Type::Stat) {
            if (report_)
              diags_.error("XTP2317", s.foreach->value_loc,
                           "a statistic array has no values to bind: use @count(" +
                               s.foreach->array + "[...]) and friends in the loop");
          } else {
            unify(s.foreach->value_var->type, s.foreach->global->type, s.foreach->value_loc,
                  "local '" + s.foreach->value + "'");
            unify(s.foreach->global->type, s.foreach->value_var->type, s.foreach->value_loc,
                  "array '" + s.foreach->array + "'");
          }
        }
        if (s.foreach->sort_stat && s.foreach->global && s.foreach->global->type != Type::Stat &&
            s.foreach->global->type != Type::Unknown && report_)
          diags_.error(
              "XTP2223", s.foreach->array_loc,
              std::string("'@") + stat_op_name(*s.foreach->sort_stat) + "' sorts statistics only");
        if (s.foreach->global) {
          auto &kt = keys_of(*s.foreach->global);
          for (size_t i = 0; i < s.foreach->vars.size() && i < kt.size(); ++i) {
            unify(s.foreach->vars[i]->type, kt[i], s.foreach->key_locs[i],
                  "local '" + s.foreach->vars[i]->name + "'");
            unify(kt[i], s.foreach->vars[i]->type, s.foreach->key_locs[i],
                  "key " + std::to_string(i + 1) + " of array '" + s.foreach->array + "'");
          }
        }
        break;
      default: break;
    }
    for (auto &b : s.body) stmt(*b);
  }

  Script &script_;
  Diagnostics &diags_;
  std::set<const FunctionDecl *> called_;  // functions some call reaches
  bool changed_ = false;
  bool report_ = false;
  bool hist_ok_ = false;  // inside print(): histograms allowed
  FunctionDecl *function_ = nullptr;
  // Expressions whose value nothing uses: a statement's, and the branches
  // of a ?: that is one (buildok/nine.stp: `c ? f() : g(1);`).
  std::set<const Expr *> statement_exprs_;
  void statement_position(const Expr *e) {
    if (!e) return;
    statement_exprs_.insert(e);
    if (e->kind == ExprKind::Ternary) {
      statement_position(e->args[1].get());
      statement_position(e->args[2].get());
    }
  }
  std::map<const FunctionDecl *, Location> valueless_uses_;  // first use as a value
};

}  // namespace

void infer_types(Script &s, Diagnostics &diags) { TypeInferrer(s, diags).run(); }

}  // namespace xtap
