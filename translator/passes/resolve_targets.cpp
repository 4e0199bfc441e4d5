// Pass 2, resolve_targets: target expressions. Each `$name` is asked of the probe's one
// location (resolve_probes split probes with several), its `->member`/`[index]`
// components walked over the kernel's C types (symbols/target_access);
// `@cast(p, "type")` starts the walk from a type of the kernel catalog;
// `@defined(...)` becomes 1 or 0, so that dead branches can be elided;
// pretty-prints (`$$parms`, `$var$`) become the sprintf calls they stand for.
// An autocast (`->member` on a local, a call, `(expr)`) walks from the C type
// of the value it applies to: a target's, or one carried by locals assigned
// typed values and by functions that return them (as stap 4.8 does).
#include <map>
#include <set>

#include "passes/passes.h"
#include "probes/kernel_function.h"
#include "symbols/btf.h"
#include "symbols/catalog.h"
#include "symbols/header_types.h"
#include "symbols/target_access.h"

namespace xtap {
namespace {

constexpr int kMaxPrettyMembers = 64;  // members shown per struct in a pretty-print

// The C type a script value carries for autocasts: the address of a @cast
// type (`&@cast(p, "T")`, resolved where it is used, as stap does), or a
// type of a table pass 2 walked (a target's result).
struct CType {
  enum class Kind {
    None,
    Cast,
    Typed,
    Mixed
  } kind = Kind::None;                 // Mixed: assigned different types
  std::string cast_type, cast_module;  // Cast
  const TypeTable *types = nullptr;    // Typed
  int type = -1;
  bool address = false;  // Typed: the value is the address of a `type`
  bool user = false;     // Typed: it points into the probed program
  bool operator==(const CType &o) const {
    return kind == o.kind && cast_type == o.cast_type && cast_module == o.cast_module &&
           types == o.types && type == o.type && address == o.address && user == o.user;
  }
  // The type of a variable assigned both: the same, or none.
  void merge(const CType &o) {
    if (o.kind == Kind::None || *this == o) return;
    if (kind == Kind::None) *this = o;
    else *this = CType{Kind::Mixed};
  }
};

class TargetResolver {
 public:
  TargetResolver(const Script &script, const ProbeEnv &env, Diagnostics &diags,
                 bool skip_badvars = false)
      : script_(script),
        env_(env),
        diags_(diags),
        guru_(script.guru),
        skip_badvars_(skip_badvars) {}

  // `function` (null for a probe) is the function whose body this is: its
  // returns give its calls their type.
  void body(const DerivedProbe *where, StmtPtr &s, const FunctionDecl *function = nullptr) {
    where_ = where;
    function_ = function;
    locals_.clear();
    // A local's type comes from all its assignments, wherever they are:
    // learnt first from a quiet walk of a copy (twice, for locals typed
    // from other locals), so that a use before an assignment or in a loop
    // sees it.
    if (has_autocast(*s)) {
      for (int round = 0; round < 2; ++round) {
        StmtPtr copy = clone(*s);
        Diagnostics quiet;
        std::swap(quiet, diags_);
        learning_ = true;
        auto known = locals_;
        locals_.clear();
        for (auto &[name, t] : known)
          if (t.kind != CType::Kind::Mixed) locals_[name] = t;
        stmt(copy);
        learning_ = false;
        std::swap(quiet, diags_);
      }
    }
    stmt(s);
  }

  // The type of the value a call of `f` returns, once its body is resolved.
  const std::map<const FunctionDecl *, CType> &returns() const { return returns_; }
  void condition(const DerivedProbe *where, ExprPtr &e) {
    where_ = where;
    function_ = nullptr;
    locals_.clear();
    expr(e);
  }

 private:
  // A branch that @defined decided is dropped before its targets are
  // resolved: it may name variables this location does not have.
  void stmt(StmtPtr &s) {
    for (auto *e : s->operand_slots())
      if (*e) expr(*e);
    if (s->kind == StmtKind::Return && s->expr && function_ && !learning_)
      returns_[function_].merge(ctype_of(*s->expr));
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
    if (e->kind == ExprKind::Assign && e->arg(0)->kind == ExprKind::Target && e->op != Op::StatAdd)
      return assign(*e);
    if (e->kind == ExprKind::Defined) {
      // A provider may have rewritten the target into something else (a
      // call of its tapset): what it stands for exists. A choice
      // (@choose_defined, a ternary) is decided below, side by side.
      const Expr &what = *e->arg(0);
      if (what.kind != ExprKind::Ternary && (what.kind != ExprKind::Target || !what.target)) {
        auto n = std::make_unique<Expr>(ExprKind::Number, e->loc);
        n->number = 1;
        e = std::move(n);
        return;
      }
      Diagnostics quiet;
      std::swap(quiet, diags_);
      bool ok = defined(e->args[0]);
      std::swap(quiet, diags_);
      auto n = std::make_unique<Expr>(ExprKind::Number, e->loc);
      n->number = ok ? 1 : 0;
      e = std::move(n);
      return;
    }
    for (size_t i = 0; i < e->args.size(); ++i)
      if (!(i == 0 && (e->kind == ExprKind::Ternary || e->kind == ExprKind::Logical)))
        expr(e->args[i]);
    if (e->kind == ExprKind::Call && raw_access_name(e->text)) return raw_access(e);
    // x = typed value: x carries the type to its autocasts.
    if (e->kind == ExprKind::Assign && e->op == Op::None && e->arg(0)->kind == ExprKind::Var)
      note_local(e->arg(0)->text, ctype_of(*e->arg(1)));
    // @defined($a) && @defined($b): both sides decided, so is the whole.
    if (e->kind == ExprKind::Logical && constant(*e->arg(0)) && constant(*e->arg(1))) {
      bool a = e->arg(0)->number != 0, b = e->arg(1)->number != 0;
      auto n = std::make_unique<Expr>(ExprKind::Number, e->loc);
      n->number = (e->op == Op::And ? a && b : a || b) ? 1 : 0;
      e = std::move(n);
      return;
    }
    // !@defined(@task->in_iowait): decided too, so that an `if` on it
    // drops the branch it rules out (schedtimes.stp).
    if (e->kind == ExprKind::Unary && e->op == Op::Not && constant(*e->arg(0))) {
      auto n = std::make_unique<Expr>(ExprKind::Number, e->loc);
      n->number = e->arg(0)->number ? 0 : 1;
      e = std::move(n);
      return;
    }
    if (e->kind != ExprKind::Target) return;
    // $$name of a PLT probe: the called function's name, known per location.
    std::string constant;
    if (!e->target->pretty && e->target->components.empty() && where_ &&
        where_->string_constant(e->target->name, &constant)) {
      auto str = std::make_unique<Expr>(ExprKind::String, e->loc);
      str->text = constant;
      str->type = Type::String;
      e = std::move(str);
      return;
    }
    if (e->target->pretty || e->target->name.starts_with("$$")) {
      if (ExprPtr p = pretty(*e)) e = std::move(p);
      return;
    }
    badvar_ = false;
    if (!resolve(*e, false) && badvar_) {
      // --skip-badvars: the unknown variable reads as 0, as in stap.
      auto zero = std::make_unique<Expr>(ExprKind::Number, e->loc);
      zero->type = Type::Long;
      e = std::move(zero);
    }
  }

  // @cast's chain walked in the kernel's BTF when `tried` (the types it
  // failed in) is not BTF's; null when that fails too.
  std::shared_ptr<TargetAccess> walk_cast_in_btf(const TargetRef &t, const std::string &base_c,
                                                 const TypeTable *tried) {
    std::string error;
    const KernelBtf *btf = env_.btf ? env_.btf(&error) : nullptr;
    if (!btf || &btf->types() == tried) return nullptr;
    int base = cast_type(btf->types(), t.cast_type);
    if (base < 0) return nullptr;
    TargetWalkError ignored;
    return walk_target(btf->types(), base, base_c, true, t, &ignored, type_only_, true);
  }

  // What a target expression's components are walked from: a type in a
  // type table, and the C value (or address) of the variable or pointer.
  struct TargetBase {
    const TypeTable *types = nullptr;
    int base = -1, base_reg = -1;
    std::string base_c;
    bool address = false, base_can_fail = false, user = false;
  };

  // Resolves a non-pretty target expression in place; false after reporting.
  bool resolve(Expr &e, bool for_defined) {
    TargetRef &t = *e.target;
    if (raw_access_name(t.name)) return t.access != nullptr;  // made by raw_access
    std::string constant;
    if (where_ && where_->string_constant(t.name, &constant)) return for_defined;
    if (t.pretty || t.name.starts_with("$$"))
      return for_defined && where_ && !where_->context_vars().empty();
    TargetBase b;
    if (t.name == "@autocast" && !autocast_base(e, b)) {
      // Reported after dead code is dropped (check_autocasts): an unused
      // autocast is no error, as in stap.
      t.access.reset();
      return false;
    }
    if (b.types) {
      // an autocast typed above
    } else if (t.name == "@cast") {
      // &@cast(p, "T") in a tapset function is p: its type is looked up
      // only where an autocast uses it (task_current()->pid), so that
      // calling the function loads no type information.
      if (function_ && function_->from_tapset && t.address_of && t.components.empty() &&
          !writing_) {
        t.access = std::make_shared<TargetAccess>();
        e.type = Type::Long;
        return true;
      }
      if (!cast_base(e, b)) return false;
    } else if (!variable_base(e, b)) {
      return false;
    }
    return walk_components(e, b);
  }

  // An autocast's operand: typed (b filled), or a @cast carried here (the
  // target becomes that @cast); false when its type is unknown.
  bool autocast_base(Expr &e, TargetBase &b) {
    TargetRef &t = *e.target;
    CType ct = ctype_of(*e.arg(0));
    if (ct.kind == CType::Kind::Cast) {
      // &@cast(p, "T") carried here: @cast(value, "T") with these components.
      t.name = "@cast";
      t.cast_type = ct.cast_type;
      t.cast_module = ct.cast_module;
      return true;
    }
    if (ct.kind != CType::Kind::Typed) return false;
    b.types = ct.types;
    b.base = ct.type;
    b.address = ct.address;
    b.user = ct.user;
    return true;
  }

  // @cast(p, "T"[, "MODULE"]): T from a user header's DWARF, the
  // location's own types, the header catalog or BTF; false after reporting.
  bool cast_base(Expr &e, TargetBase &b) {
    TargetRef &t = *e.target;
    // A location typed from the kernel's BTF casts to BTF's types: the
    // layouts of the kernel as built, with no header catalog to build.
    const TypeTable *own = where_ ? where_->types() : nullptr;
    if (is_user_header_module(t.cast_module)) {
      // @cast(p, "timeval", "<sys/time.h>"): a user-space header's type,
      // from the DWARF of the headers compiled.
      std::string error, name = t.cast_type;
      while (!name.empty() && (name.back() == ' ' || name.back() == '*')) name.pop_back();
      const KernelDwarf *hd = user_header_types(t.cast_module, &error);
      if (hd && (b.base = hd->find_named_record(name)) >= 0) b.types = &hd->types();
      if (b.base < 0) {
        diags_
            .error("XTP2229", e.loc,
                   "type '" + t.cast_type + "' is not a struct or union that " + t.cast_module +
                       " defines" + (hd ? "" : ": " + error))
            .hint = "name a struct, union or typedef of one that the headers define";
        return false;
      }
    } else if (own && (b.base = cast_type(*own, t.cast_type)) >= 0) {
      b.types = own;
    } else {
      // The header catalog first; then BTF, which also has the records the
      // headers keep private to the kernel's sources (tty_struct, rq).
      std::string error, btf_error;
      const KernelCatalog *cat = env_.catalog ? env_.catalog(&error) : nullptr;
      if (cat) {
        b.types = &cat->types();
        b.base = cast_type(*b.types, t.cast_type);
      }
      const KernelBtf *btf = b.base < 0 && env_.btf ? env_.btf(&btf_error) : nullptr;
      if (btf && (b.base = cast_type(btf->types(), t.cast_type)) >= 0) b.types = &btf->types();
      if (!cat && b.base < 0) {
        diags_.error("XTP2228", e.loc, "@cast needs the kernel's type catalog: " + error);
        return false;
      }
    }
    if (b.base < 0) {
      diags_
          .error("XTP2229", e.loc,
                 "type '" + t.cast_type +
                     "' is not a struct or union the kernel headers or BTF define")
          .hint =
          "name a struct or union as in @cast(p, \"task_struct\") or @cast(p, \"struct file\")";
      return false;
    }
    b.address = true;
    return true;
  }

  // $name or @var("name"): the location's context variable, or a global
  // of the probed code; false after reporting.
  bool variable_base(Expr &e, TargetBase &b) {
    TargetRef &t = *e.target;
    ContextVar global;
    const ContextVar *cv = nullptr;
    if (t.name == "@var") {
      if (!(cv = var_lookup(e, &global, &b.types))) return false;
    } else {
      cv = where_ ? where_->context_var(t.name.substr(1)) : nullptr;
      b.types = where_ ? where_->types() : nullptr;
      // A global of the probed function's compilation unit, unless a
      // parameter or local of the same name shadows it.
      if (!cv && where_ && where_->global_var(t.name.substr(1), "", &global, &b.types))
        cv = &global;
    }
    if (!cv) {
      unknown_variable(e);
      return false;
    }
    if (!cv->unavailable.empty()) {
      auto &d = diags_.error("XTP2154", e.loc,
                             "target variable '" + t.spelling() + "' cannot be read" +
                                 (where_ ? " at " + where_->name() : "") + ": " + cv->unavailable);
      // A value DWARF only knows as it was at entry: the entry probe has it.
      if (cv->unavailable.find("DW_OP_entry_value") != std::string::npos)
        d.hint =
            "read it where the function is entered (a kernel.function(\"NAME\") probe, where "
            "parameters are in their argument registers) and keep it in a global keyed by "
            "tid() until this point; guard this use with @defined(" +
            t.spelling() + ")";
      return false;
    }
    // A variable of a process probe (not a kernel global @var found):
    // its pointers are the program's.
    b.user = where_ && where_->user_memory() && cv != &global;
    b.base = cv->type;
    b.base_c = cv->c_value;
    b.base_reg = cv->reg;
    b.base_can_fail = cv->can_fail;
    if (!type_only_) cv->used = true;
    if (!cv->address_c.empty()) {
      b.base_c = cv->address_c;
      b.address = true;
    }
    return true;
  }

  // The `->member` and `[index]` components from the base into the access
  // program (and, when assigned, its store); false after reporting.
  bool walk_components(Expr &e, const TargetBase &b) {
    TargetRef &t = *e.target;
    TargetWalkError err;
    std::shared_ptr<TargetAccess> access = walk_target(
        *b.types, b.base, b.base_c, b.address, t, &err, type_only_, t.name == "@cast" || b.address);
    // A chain through a struct the headers only declare (task_struct's
    // ->files, a files_struct): the whole chain again in BTF's types.
    if (!access && t.name == "@cast") access = walk_cast_in_btf(t, b.base_c, b.types);
    if (access) {
      access->base_can_fail = b.base_can_fail;
      access->user = b.user;
    }
    t.access = access;
    if (!t.access) {
      Location loc = err.component < t.components.size() ? t.components[err.component].loc : e.loc;
      auto &d = diags_.error("XTP2230", loc, err.message);
      if (!err.hint.empty()) d.hint = err.hint;
      return false;
    }
    if (writing_) {
      std::string why = make_store(*access, b.base_reg, b.address);
      if (!why.empty()) {
        diags_.error("XTP2156", e.loc,
                     "cannot assign to '" + t.spelling() + "'" +
                         (where_ ? " at " + where_->name() : "") + ": " + why);
        return false;
      }
    }
    e.type = Type::Long;
    return true;
  }

  // @kderef(size, addr), @uderef(size, addr), @kregister(n), @uregister(n)
  // (parsed as calls): a target read of `size` bytes (zero-extended) at
  // addr through the kernel or user nofault reader, or of the register
  // (DWARF's numbering) in the probe's saved registers.
  void raw_access(ExprPtr &e) {
    const std::string &op = e->text;
    const bool deref = op.ends_with("deref"), user = op[1] == 'u';
    const long long n = e->arg(0)->number;
    auto t = std::make_unique<Expr>(ExprKind::Target, e->loc);
    t->target = std::make_unique<TargetRef>(TargetRef{.name = op});
    auto acc = std::make_shared<TargetAccess>();
    if (deref) {
      if (n != 1 && n != 2 && n != 4 && n != 8) {
        diags_.error("XTP2232", e->arg(0)->loc,
                     op + " reads 1, 2, 4 or 8 bytes, not " + std::to_string(n));
        return;
      }
      t->args.push_back(std::move(e->args[1]));
      expr(t->args[0]);
      acc->ops.push_back({AccessOp::Kind::Load, 0, -1, static_cast<uint32_t>(n), false, 0, 0});
      acc->user = user;
    } else {
      // The probe's saved registers are the program's in a process probe,
      // the kernel's elsewhere: each operator reads only its own.
      const bool here_user = where_ && where_->user_memory();
      if (n < 0 || n > 16) {
        diags_.error(
            "XTP2232", e->arg(0)->loc,
            op + "(" + std::to_string(n) + "): x86-64 registers are 0 to 16 in DWARF's numbering");
        return;
      }
      if (where_ && user != here_user) {
        diags_
            .error("XTP2232", e->loc,
                   op + " needs a " + (user ? "process" : "kernel") + " probe's registers")
            .hint =
            user ? "use it in a process(...) probe" : "in a process(...) probe use @uregister(n)";
        return;
      }
      acc->base_c = "(u64)xtap_dwarf_reg(c, " + std::to_string(n) + ")";
    }
    t->target->access = acc;
    t->type = Type::Long;
    e = std::move(t);
  }

  static bool raw_access_name(const std::string &n) {
    return n == "@kderef" || n == "@uderef" || n == "@kregister" || n == "@uregister";
  }

  // ----------------------------------------------------------- autocasts

  static bool has_autocast(const Expr &e) {
    if (e.kind == ExprKind::Target && e.target->name == "@autocast") return true;
    for (const auto &a : e.args)
      if (has_autocast(*a)) return true;
    return false;
  }
  static bool has_autocast(const Stmt &s) {
    for (const auto *e : s.operands())
      if (e && has_autocast(*e)) return true;
    for (const auto &b : s.body)
      if (has_autocast(*b)) return true;
    return false;
  }

  void note_local(const std::string &name, const CType &t) {
    if (script_.find_global(name)) return;  // globals carry no type, as in stap
    CType &known = locals_[name];
    // An untyped value assigned too: the variable is a plain long.
    if (t.kind == CType::Kind::None) known = CType{CType::Kind::Mixed};
    else known.merge(t);
  }

  // The C type `e`'s value carries for an autocast, if any.
  CType ctype_of(const Expr &e) const {
    switch (e.kind) {
      case ExprKind::Target: {
        const TargetRef &t = *e.target;
        if (t.pretty) return {};
        if (t.name == "@cast" && t.address_of && t.components.empty()) {
          CType c{CType::Kind::Cast};
          c.cast_type = t.cast_type;
          c.cast_module = t.cast_module;
          return c;
        }
        if (!t.access || t.access->type < 0 || !t.access->types) return {};
        CType c{CType::Kind::Typed};
        c.types = t.access->types;
        c.type = t.access->type;
        c.address = t.access->address;
        c.user = t.access->user;
        // A value that is no pointer (an int member) types nothing.
        if (!c.address && c.types->at(c.types->strip_typedefs(c.type)).kind != KTypeKind::Pointer)
          return {};
        return c;
      }
      case ExprKind::Var: {
        auto it = locals_.find(e.text);
        if (it == locals_.end() || it->second.kind == CType::Kind::Mixed ||
            script_.find_global(e.text))
          return {};
        return it->second;
      }
      case ExprKind::Call: {
        const FunctionDecl *f = script_.find_function(e.text, e.args.size());
        auto it = f ? returns_.find(f) : returns_.end();
        if (it == returns_.end() || it->second.kind == CType::Kind::Mixed) return {};
        return it->second;
      }
      case ExprKind::Ternary: {
        CType a = ctype_of(*e.arg(1)), b = ctype_of(*e.arg(2));
        return a == b ? a : CType{};
      }
      case ExprKind::Assign: return e.op == Op::None ? ctype_of(*e.arg(1)) : CType{};
      default: return {};
    }
  }

  // @defined(a): a target or autocast that resolves here, the defined side
  // of a decided choice; any other value is defined.
  bool defined(ExprPtr &a) {
    if (a->kind == ExprKind::Ternary) {
      expr(a->args[0]);
      if (!constant(*a->arg(0))) return true;
      return defined(a->args[a->arg(0)->number ? 1 : 2]);
    }
    if (a->kind != ExprKind::Target) return true;
    if (a->target->name == "@autocast") expr(a->args[0]);
    return resolve(*a, /*for_defined=*/true);
  }

  // Registers a kprobe handler can change: the saved general-purpose
  // registers, which the kernel restores when the handler returns; not the
  // stack pointer (DWARF 7) or anything past r15.
  static bool settable_register(int reg) { return reg >= 0 && reg <= 15 && reg != 7; }

  // Turns a resolved read into the left side of an assignment: "" or why not.
  static std::string make_store(TargetAccess &acc, int base_reg, bool base_in_memory) {
    if (acc.ops.empty()) {
      if (base_in_memory) return "it is not a value";
      if (base_reg < 0)
        return "its value here is a copy xtap cannot write back (a parameter saved at entry, a "
               "constant, or a computed value)";
      if (!settable_register(base_reg))
        return "it lives in register " + std::to_string(base_reg) +
               " (DWARF numbering), which a probe handler cannot change";
      acc.store_reg = base_reg;
      return "";
    }
    const AccessOp &last = acc.ops.back();
    if (acc.user) return "it is in the probed program's memory, which xtap does not write";
    if (last.kind != AccessOp::Kind::Load)
      return "it is an array or function, not a value; assign to its elements";
    acc.store_size = last.size;
    acc.store_bit_offset = last.bit_offset;
    acc.store_bit_size = last.bit_size;
    return "";
  }

  // $var = v, $p->f = v, $var += v (guru mode): the left side resolved as
  // a place to store to; a compound assignment reads it first.
  void assign(Expr &e) {
    Expr &lhs = *e.args[0];
    const TargetRef &t = *lhs.target;
    if (!guru_) {
      diags_
          .error("XTP2155", lhs.loc,
                 "assigning to target variable '" + t.spelling() + "' needs guru mode")
          .hint =
          "run with -g (guru mode): writing kernel variables can crash or corrupt the kernel";
      return;
    }
    if (t.pretty || t.name.starts_with("$$") || t.address_of) {
      diags_.error("XTP2156", lhs.loc,
                   "cannot assign to '" + t.spelling() + "': it is not a variable or member");
      return;
    }
    if (e.op == Op::Concat) {
      diags_.error("XTP2156", lhs.loc, "cannot assign a string to '" + t.spelling() + "'").hint =
          "target variables hold numbers and addresses";
      return;
    }
    if (e.op != Op::None) {
      auto bin = std::make_unique<Expr>(ExprKind::Binary, e.loc);
      bin->op = e.op;
      bin->args.push_back(clone(lhs));
      bin->args.push_back(std::move(e.args[1]));
      e.args[1] = std::move(bin);
      e.op = Op::None;
    }
    expr(e.args[1]);
    for (size_t i = 0; i < lhs.args.size(); ++i) expr(lhs.args[i]);  // @cast's pointer, [index]
    writing_ = true;
    resolve(lhs, false);
    writing_ = false;
  }

  // @var("name[@file]"[, "module"]): a local or parameter of the probe's
  // location (no file given), else a global or file static from DWARF.
  const ContextVar *var_lookup(const Expr &e, ContextVar *global, const TypeTable **types) {
    const TargetRef &t = *e.target;
    std::string name = t.cast_type, file;
    if (size_t at = name.find('@'); at != std::string::npos) {
      file = name.substr(at + 1);
      name.erase(at);
    }
    if (name.empty()) {
      diags_.error("XTP2227", e.loc, "@var needs a variable name").hint =
          "as in @var(\"jiffies\") or @var(\"counter@kernel/fork.c\")";
      return nullptr;
    }
    if (where_ && t.cast_module.empty()) {
      if (file.empty()) {
        if (const ContextVar *cv = where_->context_var(name)) {
          *types = where_->types();
          return cv;
        }
      }
      if (where_->global_var(name, file, global, types)) return global;
    }
    std::string error;
    if (!dwarf_global_var(env_, t.cast_module, name, file, global, types, &error)) {
      diags_.error("XTP2227", e.loc, error).hint =
          "@var(\"name@FILE\"[, \"module\"]) reads a global or file static; install the kernel's "
          "-dbg package "
          "or point at the debuginfo with --debuginfo PATH";
      return nullptr;
    }
    return global;
  }

  static int cast_type(const TypeTable &types, std::string name) {
    while (!name.empty() && (name.back() == ' ' || name.back() == '*')) name.pop_back();
    if (name.starts_with("struct ")) return types.find_record(name.substr(7));
    if (name.starts_with("union ")) return types.find_record(name.substr(6), true);
    // A bare name: a struct tag, a union tag, or a typedef of either
    // (refcount_t, atomic_t), as stap finds them.
    int id = types.find_record(name);
    if (id < 0) id = types.find_record(name, true);
    if (id < 0) id = types.find_record_typedef(name);
    return id;
  }

  void unknown_variable(const Expr &e) {
    const std::string &name = e.target->name;
    if (!where_) {
      diags_.error("XTP2225", e.loc, "target variable '" + name + "' cannot be used in a function")
          .hint = "pass its value to the function as an argument";
      return;
    }
    std::string no_debuginfo = where_->missing_debuginfo();
    if (!no_debuginfo.empty() && name != "$$return") {
      diags_
          .error("XTP2157", e.loc,
                 "target variable '" + name + "' needs the DWARF debuginfo of " + where_->name() +
                     ": " + no_debuginfo)
          .hint =
          "install the program's -dbg or -dbgsym package (its debuginfo under /usr/lib/debug), or "
          "build it with -g; guard uses with @defined(" +
          name + ")";
      return;
    }
    if (skip_badvars_ && !writing_ && !e.target->pretty && !e.target->name.starts_with("$$")) {
      diags_.warning("XTP2249", e.loc,
                     "target variable '" + name + "' is not available at " + where_->name() +
                         ": it reads as 0 (--skip-badvars)");
      badvar_ = true;
      return;
    }
    std::vector<std::string> names;
    for (const auto &v : where_->context_vars()) names.push_back("$" + v.name);
    auto &d = diags_.error("XTP2225", e.loc,
                           "target variable '" + name + "' is not available at " + where_->name());
    if (names.empty()) {
      d.hint = "this probe point has no target variables; guard uses with @defined(" + name + ")";
      return;
    }
    std::string guess = closest_match(name, names);
    std::string all;
    for (const auto &n : names) all += (all.empty() ? "" : " ") + n;
    d.hint = guess.empty() ? "available: " + all
                           : "did you mean '" + guess + "'? (available: " + all + ")";
    std::string no_globals = where_->globals_unavailable();
    if (guess.empty() && !no_globals.empty())
      d.hint += "; if '" + name + "' is a kernel global, " + no_globals;
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
        call->text =
            where_ && where_->user_memory() ? "user_string_quoted" : "kernel_string_quoted";
        call->args.push_back(std::move(target));
        args.push_back(std::move(call));
        return;
      }
      if (t.kind == KTypeKind::Pointer && depth > 0 &&
          (elem.kind == KTypeKind::Struct || elem.kind == KTypeKind::Union) && elem.complete) {
        // Followed into its struct, but a NULL pointer (an optional
        // argument, an unset member) prints as the address "0x0", as
        // stap's pretty-prints do, instead of a read fault that ends the
        // script: `p ? sprintf("{...}", p->a, ...) : "0x0"`.
        std::string inner_fmt;
        std::vector<ExprPtr> inner_args;
        pretty_record(types, elem, *target, depth - 1, inner_fmt, inner_args);
        auto null_text = std::make_unique<Expr>(ExprKind::String, target->loc);
        null_text->text = "0x0";
        null_text->type = Type::String;
        auto choice = std::make_unique<Expr>(ExprKind::Ternary, target->loc);
        choice->type = Type::String;
        Location loc = target->loc;
        choice->args.push_back(std::move(target));
        choice->args.push_back(sprintf_call(loc, inner_fmt, inner_args));
        choice->args.push_back(std::move(null_text));
        fmt += "%s";
        args.push_back(std::move(choice));
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

  void pretty_record(const TypeTable &types, const KType &rec, const Expr &base, int depth,
                     std::string &fmt, std::vector<ExprPtr> &args) {
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
      // A process probe without the program's DWARF has no parameters
      // or locals to show: say so rather than print nothing.
      if (!where_ || (t.name != "$$return" && !where_->missing_debuginfo().empty())) {
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
        const TypeTable &vt = *where_->types();
        const KType &k = vt.at(vt.strip_typedefs(v.type));
        if (!t.pretty && (k.kind == KTypeKind::Struct || k.kind == KTypeKind::Union)) {
          fmt += "{...}";  // a struct in memory: $$vars$ shows its members
        } else if (t.pretty) {
          pretty_value(*where_->types(), v.type, std::move(var), t.pretty, fmt, args);
        } else {
          fmt += "%#x";
          args.push_back(std::move(var));
        }
      }
    } else {
      // $$name where the location has no such variable (it is a PLT
      // probe's): not a pretty-print of anything.
      if (!t.pretty) {
        unknown_variable(e);
        return nullptr;
      }
      // $var$ / $var$$: resolve the place first, to learn its type.
      ExprPtr base = plain(e);
      base->target->address_of = false;
      const TypeTable *types = nullptr;
      int type = -1;
      if (!type_of(*base, &types, &type)) return nullptr;
      pretty_value(*types, type, std::move(base), t.pretty, fmt, args);
    }
    // The sprintf the pretty-print stands for; its targets are resolved now.
    ExprPtr call = sprintf_call(e.loc, fmt, args);
    for (auto &a : call->args) expr(a);
    return call;
  }

  static ExprPtr sprintf_call(const Location &loc, const std::string &fmt,
                              std::vector<ExprPtr> &args) {
    auto call = std::make_unique<Expr>(ExprKind::Call, loc);
    call->text = "sprintf";
    auto f = std::make_unique<Expr>(ExprKind::String, loc);
    f->text = fmt;
    f->type = Type::String;
    call->args.push_back(std::move(f));
    for (auto &a : args) call->args.push_back(std::move(a));
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

  const Script &script_;
  const ProbeEnv &env_;
  Diagnostics &diags_;
  const DerivedProbe *where_ = nullptr;
  const FunctionDecl *function_ = nullptr;         // whose body this is
  std::map<std::string, CType> locals_;            // this body's typed locals
  std::map<const FunctionDecl *, CType> returns_;  // what functions return
  bool learning_ = false;                          // the quiet walk that learns locals' types
  bool type_only_ = false;
  bool guru_ = false;
  bool writing_ = false;
  bool skip_badvars_ = false;  // --skip-badvars: an unknown $var reads as 0 (XTP2249)
  bool badvar_ = false;        // unknown_variable() let the last $var read as 0
};

}  // namespace

namespace {

void calls_in(const Script &s, const Expr &e, std::vector<FunctionDecl *> &out) {
  if (e.kind == ExprKind::Call)
    if (FunctionDecl *f = s.find_function(e.text, e.args.size())) out.push_back(f);
  for (const auto &a : e.args) calls_in(s, *a, out);
}
void calls_in(const Script &s, const Stmt &st, std::vector<FunctionDecl *> &out) {
  for (const auto *e : st.operands())
    if (e) calls_in(s, *e, out);
  for (const auto &b : st.body) calls_in(s, *b, out);
}

// Functions callees first, so that what a function returns is typed
// before the autocasts of its calls are resolved (recursion: in any order).
void order_functions(const Script &s, FunctionDecl *f, std::set<FunctionDecl *> &seen,
                     std::vector<FunctionDecl *> &out) {
  if (!seen.insert(f).second) return;
  std::vector<FunctionDecl *> callees;
  calls_in(s, *f->body, callees);
  for (FunctionDecl *c : callees) order_functions(s, c, seen, out);
  out.push_back(f);
}

}  // namespace

void resolve_targets(Script &s, const Elaborated &e, const ProbeEnv &env, Diagnostics &diags,
                     bool skip_badvars) {
  TargetResolver r(s, env, diags, skip_badvars);
  // Tapset functions nothing calls are dropped later (prune_tapsets): their
  // @cast types need not exist in this kernel.
  std::set<const FunctionDecl *> reachable = reachable_tapset_functions(s);
  std::set<FunctionDecl *> seen;
  std::vector<FunctionDecl *> order;
  for (auto &f : s.functions) order_functions(s, f.get(), seen, order);
  for (FunctionDecl *f : order)
    if (!f->embedded && (!f->from_tapset || reachable.count(f))) r.body(nullptr, f->body, f);
  for (auto &p : s.probes) {
    const DerivedProbe *where = single_location(e, *p);
    if (p->condition) r.condition(where, p->condition);
    r.body(where, p->body);
  }
}

}  // namespace xtap
