// Pass 2b: target expressions. Each `$name` is asked of the probe's one
// location (pass 2a split probes with several), its `->member`/`[index]`
// components walked over the kernel's C types (symbols/target_access);
// `@cast(p, "type")` starts the walk from a type of the kernel catalog;
// `@defined(...)` becomes 1 or 0, so that dead branches can be elided;
// pretty-prints (`$$parms`, `$var$`) become the sprintf calls they stand for.
#include <set>

#include "passes/passes.h"
#include "symbols/btf.h"
#include "symbols/catalog.h"
#include "symbols/target_access.h"

namespace xtap {
namespace {

constexpr int kMaxPrettyMembers = 64;  // members shown per struct in a pretty-print

class TargetResolver {
 public:
  TargetResolver(const ProbeEnv &env, Diagnostics &diags) : env_(env), diags_(diags) {}

  void body(const DerivedProbe *where, StmtPtr &s) {
    where_ = where;
    stmt(s);
  }
  void condition(const DerivedProbe *where, ExprPtr &e) {
    where_ = where;
    expr(e);
  }

 private:
  // A branch that @defined decided is dropped before its targets are
  // resolved: it may name variables this location does not have.
  void stmt(StmtPtr &s) {
    for (auto *e : {&s->expr, &s->init, &s->step, &s->limit})
      if (*e) expr(*e);
    if (s->kind == StmtKind::If && s->expr->kind == ExprKind::Number) {
      if (s->expr->number) s = std::move(s->body[0]);
      else if (s->body.size() > 1) s = std::move(s->body[1]);
      else s = std::make_unique<Stmt>(StmtKind::Empty, s->loc);
      return stmt(s);
    }
    for (auto &b : s->body) stmt(b);
  }

  static bool constant(const Expr &e) { return e.kind == ExprKind::Number; }

  void expr(ExprPtr &e) {
    // The same for conditional expressions: @defined($x) ? $x : 0, and
    // @defined($x) && $x > 0.
    if (e->kind == ExprKind::Ternary) {
      expr(e->args[0]);
      if (constant(*e->arg(0))) {
        ExprPtr taken = std::move(e->args[e->arg(0)->number ? 1 : 2]);
        e = std::move(taken);
        return expr(e);
      }
    }
    if (e->kind == ExprKind::Logical) {
      expr(e->args[0]);
      bool is_and = e->op == Op::And;
      if (constant(*e->arg(0)) && (e->arg(0)->number != 0) != is_and) {
        auto n = std::make_unique<Expr>(ExprKind::Number, e->loc);
        n->number = is_and ? 0 : 1;
        e = std::move(n);
        return;
      }
    }
    if (e->kind == ExprKind::Defined) {
      Diagnostics quiet;
      std::swap(quiet, diags_);
      bool ok = resolve(*e->arg(0), /*for_defined=*/true);
      std::swap(quiet, diags_);
      auto n = std::make_unique<Expr>(ExprKind::Number, e->loc);
      n->number = ok ? 1 : 0;
      e = std::move(n);
      return;
    }
    for (size_t i = 0; i < e->args.size(); ++i)
      if (!(i == 0 && (e->kind == ExprKind::Ternary || e->kind == ExprKind::Logical))) expr(e->args[i]);
    // @defined($a) && @defined($b): both sides decided, so is the whole.
    if (e->kind == ExprKind::Logical && constant(*e->arg(0)) && constant(*e->arg(1))) {
      bool a = e->arg(0)->number != 0, b = e->arg(1)->number != 0;
      auto n = std::make_unique<Expr>(ExprKind::Number, e->loc);
      n->number = (e->op == Op::And ? a && b : a || b) ? 1 : 0;
      e = std::move(n);
      return;
    }
    if (e->kind != ExprKind::Target) return;
    if (e->target->pretty || e->target->name.starts_with("$$")) {
      if (ExprPtr p = pretty(*e)) e = std::move(p);
      return;
    }
    resolve(*e, false);
  }

  // Resolves a non-pretty target expression in place; false after reporting.
  bool resolve(Expr &e, bool for_defined) {
    TargetRef &t = *e.target;
    if (t.pretty || t.name.starts_with("$$")) return for_defined && where_ && !where_->context_vars().empty();
    if (t.name == "@var") {
      diags_.error("XTP2227", e.loc, "@var(\"" + t.cast_type + "\") needs the kernel's debuginfo, which xtap does not read yet")
          .hint = "use a tracepoint argument ($name) or @cast on a pointer instead";
      return false;
    }
    const TypeTable *types = nullptr;
    int base = -1;
    std::string base_c;
    bool address = false;
    if (t.name == "@cast") {
      // A location typed from the kernel's BTF casts to BTF's types: the
      // layouts of the kernel as built, with no header catalog to build.
      const TypeTable *own = where_ ? where_->types() : nullptr;
      if (own && (base = cast_type(*own, t.cast_type)) >= 0) {
        types = own;
      } else {
        // The header catalog first; then BTF, which also has the records the
        // headers keep private to the kernel's sources (tty_struct, rq).
        std::string error, btf_error;
        const KernelCatalog *cat = env_.catalog ? env_.catalog(&error) : nullptr;
        if (cat) {
          types = &cat->types();
          base = cast_type(*types, t.cast_type);
        }
        const KernelBtf *btf = base < 0 && env_.btf ? env_.btf(&btf_error) : nullptr;
        if (btf && (base = cast_type(btf->types(), t.cast_type)) >= 0) types = &btf->types();
        if (!cat && base < 0) {
          diags_.error("XTP2228", e.loc, "@cast needs the kernel's type catalog: " + error);
          return false;
        }
      }
      if (base < 0) {
        diags_
            .error("XTP2229", e.loc,
                   "type '" + t.cast_type +
                       "' is not a struct or union the kernel headers or BTF define")
            .hint =
            "name a struct or union as in @cast(p, \"task_struct\") or @cast(p, \"struct file\")";
        return false;
      }
      address = true;
    } else {
      const ContextVar *cv = where_ ? where_->context_var(t.name.substr(1)) : nullptr;
      if (!cv) {
        unknown_variable(e);
        return false;
      }
      if (!cv->unavailable.empty()) {
        diags_.error("XTP2154", e.loc,
                     "target variable '" + t.name + "' cannot be read at " + where_->name() + ": " +
                         cv->unavailable);
        return false;
      }
      types = where_->types();
      base = cv->type;
      base_c = cv->c_value;
    }
    TargetWalkError err;
    t.access = walk_target(*types, base, base_c, address, t, &err, type_only_);
    if (!t.access) {
      Location loc = err.component < t.components.size() ? t.components[err.component].loc : e.loc;
      auto &d = diags_.error("XTP2230", loc, err.message);
      if (!err.hint.empty()) d.hint = err.hint;
      return false;
    }
    e.type = Type::Long;
    return true;
  }

  static int cast_type(const TypeTable &types, std::string name) {
    bool is_union = false;
    while (!name.empty() && (name.back() == ' ' || name.back() == '*')) name.pop_back();
    if (name.starts_with("struct ")) name = name.substr(7);
    else if (name.starts_with("union ")) name = name.substr(6), is_union = true;
    return types.find_record(name, is_union);
  }

  void unknown_variable(const Expr &e) {
    const std::string &name = e.target->name;
    if (!where_) {
      diags_.error("XTP2225", e.loc, "target variable '" + name + "' cannot be used in a function")
          .hint = "pass its value to the function as an argument";
      return;
    }
    std::vector<std::string> names;
    for (const auto &v : where_->context_vars()) names.push_back("$" + v.name);
    auto &d = diags_.error("XTP2225", e.loc, "target variable '" + name + "' is not available at " + where_->name());
    if (names.empty()) {
      d.hint = "this probe point has no target variables; guard uses with @defined(" + name + ")";
      return;
    }
    std::string guess = closest_match(name, names);
    std::string all;
    for (const auto &n : names) all += (all.empty() ? "" : " ") + n;
    d.hint = guess.empty() ? "available: " + all : "did you mean '" + guess + "'? (available: " + all + ")";
  }

  // ----------------------------------------------------------- pretty-prints

  // A copy of `base` (a target) with one more `->member`.
  static ExprPtr with_member(const Expr &base, const std::string &member) {
    ExprPtr c = clone(base);
    c->target->pretty = 0;
    c->target->components.push_back({TargetComponent::Kind::Member, member, -1, base.loc});
    return c;
  }

  static ExprPtr plain(const Expr &base) {
    ExprPtr c = clone(base);
    c->target->pretty = 0;
    return c;
  }

  // Appends "fmt" and its arguments for the value of `target` (resolvable)
  // of C type `type` to a pretty-print, as stap formats it: numbers in
  // decimal, pointers in hex, strings quoted, structs as {.m=v, ...}.
  void pretty_value(const TypeTable &types, int type, ExprPtr target, int depth, std::string &fmt,
                    std::vector<ExprPtr> &args) {
    const KType &t = types.at(types.strip_typedefs(type));
    if (t.kind == KTypeKind::Int || t.kind == KTypeKind::Enum) {
      fmt += t.is_signed ? "%d" : "%u";
      args.push_back(std::move(target));
      return;
    }
    bool char_like = false;
    if (t.kind == KTypeKind::Pointer || t.kind == KTypeKind::Array) {
      const KType &elem = types.at(types.strip_typedefs(t.target));
      char_like = elem.kind == KTypeKind::Int && elem.size == 1;
      if (char_like) {
        fmt += "%s";
        auto call = std::make_unique<Expr>(ExprKind::Call, target->loc);
        call->text = "kernel_string_quoted";
        call->args.push_back(std::move(target));
        args.push_back(std::move(call));
        return;
      }
      if (t.kind == KTypeKind::Pointer && depth > 0 && (elem.kind == KTypeKind::Struct || elem.kind == KTypeKind::Union) &&
          elem.complete) {
        pretty_record(types, elem, *target, depth - 1, fmt, args);
        return;
      }
      if (t.kind == KTypeKind::Array) {
        fmt += "[...]";
        return;
      }
      fmt += "%p";
      args.push_back(std::move(target));
      return;
    }
    if ((t.kind == KTypeKind::Struct || t.kind == KTypeKind::Union) && t.complete) {
      if (depth <= 0) {
        fmt += "{...}";
        return;
      }
      pretty_record(types, t, *target, depth - 1, fmt, args);
      return;
    }
    fmt += "?";
  }

  void pretty_record(const TypeTable &types, const KType &rec, const Expr &base, int depth, std::string &fmt,
                     std::vector<ExprPtr> &args) {
    fmt += "{";
    int shown = 0;
    for (const auto &m : rec.members) {
      if (shown == kMaxPrettyMembers) {
        fmt += ", ...";
        break;
      }
      if (m.name.empty()) continue;  // anonymous members: stap skips them too
      fmt += std::string(shown++ ? ", " : "") + "." + m.name + "=";
      pretty_value(types, m.type, with_member(base, m.name), depth, fmt, args);
    }
    fmt += "}";
  }

  ExprPtr pretty(const Expr &e) {
    const TargetRef &t = *e.target;
    std::string fmt;
    std::vector<ExprPtr> args;
    if (t.name == "$$parms" || t.name == "$$vars" || t.name == "$$locals" || t.name == "$$return") {
      if (!where_) {
        unknown_variable(e);
        return nullptr;
      }
      for (const auto &v : where_->context_vars()) {
        bool want = t.name == "$$vars" || (t.name == "$$parms") == v.parameter;
        if (t.name == "$$return") want = v.name == "return";
        if (!want) continue;
        if (!fmt.empty()) fmt += " ";
        fmt += v.name + "=";
        if (!v.unavailable.empty()) {
          fmt += "?";
          continue;
        }
        auto var = std::make_unique<Expr>(ExprKind::Target, e.loc);
        var->target = std::make_unique<TargetRef>();
        var->target->name = "$" + v.name;
        if (t.pretty) {
          pretty_value(*where_->types(), v.type, std::move(var), t.pretty, fmt, args);
        } else {
          fmt += "%#x";
          args.push_back(std::move(var));
        }
      }
    } else {
      // $var$ / $var$$: resolve the place first, to learn its type.
      ExprPtr base = plain(e);
      base->target->address_of = false;
      const TypeTable *types = nullptr;
      int type = -1;
      if (!type_of(*base, &types, &type)) return nullptr;
      pretty_value(*types, type, std::move(base), t.pretty, fmt, args);
    }
    // The sprintf the pretty-print stands for; its targets are resolved now.
    auto call = std::make_unique<Expr>(ExprKind::Call, e.loc);
    call->text = "sprintf";
    auto f = std::make_unique<Expr>(ExprKind::String, e.loc);
    f->text = fmt;
    call->args.push_back(std::move(f));
    for (auto &a : args) call->args.push_back(std::move(a));
    for (auto &a : call->args) expr(a);
    call->type = Type::String;
    return call;
  }

  // The C type a target expression names (without reading it).
  bool type_of(const Expr &e, const TypeTable **types, int *type) {
    ExprPtr probe = clone(e);
    type_only_ = true;
    bool ok = resolve(*probe, false);
    type_only_ = false;
    if (!ok) return false;
    *types = probe->target->access->types;
    *type = probe->target->access->type;
    return true;
  }

  const ProbeEnv &env_;
  Diagnostics &diags_;
  const DerivedProbe *where_ = nullptr;
  bool type_only_ = false;
};

}  // namespace

void resolve_targets(Script &s, const Elaborated &e, const ProbeEnv &env, Diagnostics &diags) {
  TargetResolver r(env, diags);
  for (auto &p : s.probes) {
    const DerivedProbe *where = single_location(e, *p);
    if (p->condition) r.condition(where, p->condition);
    r.body(where, p->body);
  }
  // Tapset functions nothing calls are dropped later (prune_tapsets): their
  // @cast types need not exist in this kernel.
  std::set<std::string> reachable = reachable_function_names(s);
  for (auto &f : s.functions)
    if (!f->embedded && (!f->from_tapset || reachable.count(f->name))) r.body(nullptr, f->body);
}

}  // namespace xtap
