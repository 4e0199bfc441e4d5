// Pass 2, expand_entry: @entry(expr) in .return probes. Each probe that uses it gets a
// companion probe that evaluates every @entry expression when the function
// (or system call) is entered and saves the values in hidden arrays; the
// return probe takes its values out of them first thing, and each @entry
// becomes a read of its local copy.
//
// The arrays are keyed by _xtap_entry_key() (tapsets/entry.stp): in a
// kretprobe (kernel.function("f").return, kprobe.function("f").return) it
// is the kretprobe instance, the same at the entry and the return of one
// call, so recursion and concurrent calls each keep their own values; the
// companion of such a point is marked entry_half and runs from the
// kretprobe's entry handler (probes/kernel_function.cpp, probes/kprobe.cpp).
// A uretprobe (process("P").function("f").return) pairs the same way: its
// entry hook keeps the call in a slot that keys the values
// (runtime-kmod/probes/uprobes.c).
// A system call's return (kernel.trace("syscalls:sys_exit_NAME"), which
// syscall.NAME.return expands to) pairs with its sys_enter event, keyed by
// the thread: a task is in one system call at a time. A return whose entry
// was not seen (the call began before the session) does not run the probe,
// as with a kretprobe.
#include "passes/passes.h"

namespace xtap {
namespace {

constexpr const char *kKeyFunction = "_xtap_entry_key";
constexpr const char *kKeyLocal = "__xtap_entry_key";

ExprPtr var(const std::string &name, const Location &loc) {
  auto e = std::make_unique<Expr>(ExprKind::Var, loc);
  e->text = name;
  return e;
}

ExprPtr keyed(ExprKind kind, const std::string &array, ExprPtr key) {
  Location loc = key->loc;
  auto e = std::make_unique<Expr>(kind, loc);
  e->text = array;
  e->args.push_back(std::move(key));
  return e;
}

StmtPtr expr_stmt(ExprPtr e) {
  auto s = std::make_unique<Stmt>(StmtKind::Expr, e->loc);
  s->expr = std::move(e);
  return s;
}

StmtPtr assign(ExprPtr lhs, ExprPtr rhs) {
  Location loc = lhs->loc;
  auto a = std::make_unique<Expr>(ExprKind::Assign, loc);
  a->args.push_back(std::move(lhs));
  a->args.push_back(std::move(rhs));
  return expr_stmt(std::move(a));
}

// True for the kretprobe families, whose entry half runs at the same
// location as the return (the same target variables).
bool is_kretprobe_point(const ProbePoint &pp) {
  const auto &cs = pp.components;
  return cs[0].name == "kprobe" || cs[0].name == "module" || cs[0].name == "process" ||
         (cs[0].name == "kernel" && cs.size() > 1 && cs[1].name == "function");
}

// What the entry side of a return point is: the point itself for the
// kretprobe families (run by the same kretprobe's entry handler), the
// enter event for a system call's exit event; nullopt when the point has
// no entry to save values at.
bool entry_point_of(const ProbePoint &pp, ProbePoint *out) {
  const auto &cs = pp.components;
  bool returns = cs.size() >= 3 && cs.back().name == "return" && !cs.back().has_arg;
  if (returns && (cs[0].name == "kprobe" || cs[0].name == "module" || cs[0].name == "process" ||
                  (cs[0].name == "kernel" && cs[1].name == "function"))) {
    *out = pp;
    return true;
  }
  if (cs.size() == 2 && cs[0].name == "kernel" && cs[1].name == "trace" && cs[1].arg_is_string) {
    const std::string &tp = cs[1].str_arg;
    std::string entry;
    if (tp.rfind("syscalls:sys_exit_", 0) == 0) entry = "syscalls:sys_enter_" + tp.substr(18);
    else if (tp == "raw_syscalls:sys_exit") entry = "raw_syscalls:sys_enter";
    if (entry.empty()) return false;
    *out = pp;
    out->components[1].str_arg = entry;
    return true;
  }
  return false;
}

// @defined(t1) && @defined(t2) ... for the target expressions in `e`, or
// null when it has none. An @entry of a target some locations lack
// (@defined(@entry($sk)) ? @entry($sk) : @entry($sock->sk)) is saved and
// taken only where the target exists, and elsewhere left as written, in
// the branch that pass 2 drops there (or reports, if it is not dead).
void collect_targets(const Expr &e, std::vector<const Expr *> *out) {
  if (e.kind == ExprKind::Target) {
    out->push_back(&e);
    return;
  }
  if (e.kind == ExprKind::Defined) return;
  for (const auto &a : e.args) collect_targets(*a, out);
}

ExprPtr defined_all(const Expr &e) {
  std::vector<const Expr *> targets;
  collect_targets(e, &targets);
  ExprPtr all;
  for (const Expr *t : targets) {
    auto d = std::make_unique<Expr>(ExprKind::Defined, t->loc);
    d->args.push_back(clone(*t));
    if (!all) {
      all = std::move(d);
      continue;
    }
    auto both = std::make_unique<Expr>(ExprKind::Logical, t->loc);
    both->op = Op::And;
    both->args.push_back(std::move(all));
    both->args.push_back(std::move(d));
    all = std::move(both);
  }
  return all;
}

// Replaces every @entry under `e` by a read of its saved copy, collecting
// the expressions to evaluate at entry.
struct EntryCollector {
  // Whether the return has the entry's target variables (kretprobes): then
  // an @entry of a target it lacks is left as written (see above). A system
  // call's exit has other variables than its entry: its @entry values are
  // always the saved ones.
  bool same_targets = true;
  std::vector<ExprPtr> saved;   // the @entry operands, in order
  std::vector<ExprPtr> guards;  // their defined_all(), or null
  std::vector<Location> locs;

  void expr(ExprPtr &e) {
    for (auto &a : e->args) expr(a);
    if (e->kind != ExprKind::Entry) return;
    Location loc = e->loc;
    std::string local = "__xtap_entry_" + std::to_string(saved.size());
    ExprPtr guard = defined_all(*e->arg(0));
    ExprPtr read = var(local, loc);
    if (guard && same_targets) {
      auto t = std::make_unique<Expr>(ExprKind::Ternary, loc);
      t->args.push_back(clone(*guard));
      t->args.push_back(std::move(read));
      t->args.push_back(clone(*e->arg(0)));
      read = std::move(t);
    }
    saved.push_back(std::move(e->args[0]));
    guards.push_back(std::move(guard));
    locs.push_back(loc);
    e = std::move(read);
  }
  void stmt(Stmt &s) {
    for (auto *e : s.operand_slots())
      if (*e) expr(*e);
    for (auto &b : s.body) stmt(*b);
  }
};

// `body` alone, or under `if (guard)`.
StmtPtr guarded(const ExprPtr &guard, StmtPtr body) {
  if (!guard) return body;
  auto s = std::make_unique<Stmt>(StmtKind::If, body->loc);
  s->expr = clone(*guard);
  s->body.push_back(std::move(body));
  return s;
}

// The first @entry under `e` / `s`, for errors where it cannot be.
const Expr *find_entry(const Expr &e) {
  if (e.kind == ExprKind::Entry) return &e;
  for (const auto &a : e.args)
    if (const Expr *f = find_entry(*a)) return f;
  return nullptr;
}

const Expr *find_entry(const Stmt &s) {
  for (const auto *e : s.operands())
    if (e)
      if (const Expr *f = find_entry(*e)) return f;
  for (const auto &b : s.body)
    if (const Expr *f = find_entry(*b)) return f;
  return nullptr;
}

// @defined(@entry(...)) where there is no entry to save at (a function, a
// begin probe): 0, as in stap, and the branches it guards go.
void no_entry_here(Expr &e) {
  if (e.kind == ExprKind::Defined && e.text == "@entry") {
    e.kind = ExprKind::Number;
    e.number = 0;
    e.args.clear();
    e.text.clear();
    return;
  }
  for (auto &a : e.args) no_entry_here(*a);
}

void no_entry_here(StmtPtr &s) {
  std::vector<Expr *> exprs;
  auto fold = [](Stmt &st, auto &self) -> void {
    for (auto *e : st.operands())
      if (e) no_entry_here(*e);
    for (auto &b : st.body) self(*b, self);
  };
  fold(*s, fold);
  elide_dead_branches(s);
}

bool has_entry_point(const ProbeDecl &p) {
  for (const auto &pp : p.points) {
    ProbePoint ep;
    if (entry_point_of(pp, &ep)) return true;
  }
  return false;
}

}  // namespace

void expand_entry(Script &s, Diagnostics &diags) {
  for (const auto &f : s.functions)
    if (f->body && !f->embedded) no_entry_here(f->body);
  for (auto &p : s.probes)
    if (!has_entry_point(*p)) no_entry_here(p->body);
  for (const auto &f : s.functions)
    if (f->body && !f->embedded)
      if (const Expr *e = find_entry(*f->body))
        diags.error("XTP2165", e->loc, "@entry can only be used in the body of a .return probe")
            .hint = "a function has no entry of its own; pass the value from the probe";
  for (const auto &g : s.globals)
    if (g->init)
      if (const Expr *e = find_entry(*g->init))
        diags.error("XTP2165", e->loc, "@entry can only be used in the body of a .return probe");

  int group = 0;
  std::vector<std::unique_ptr<ProbeDecl>> added;
  for (auto &p : s.probes) {
    if (p->condition)
      if (const Expr *e = find_entry(*p->condition)) {
        diags.error("XTP2165", e->loc, "@entry cannot be used in a probe's condition").hint =
            "test it in the body: if (@entry(...)) { ... }";
        continue;
      }
    const Expr *first = find_entry(*p->body);
    if (!first) continue;
    std::vector<ProbePoint> entry_points;
    bool ok = true;
    bool unknown = false;
    for (const auto &pp : p->points) {
      ProbePoint ep;
      // A point no family knows (an alias xtap lacks) is resolve_probes'
      // to report, or to drop if optional.
      bool known = false;
      for (const auto *prov : probe_providers()) known = known || prov->matches(pp);
      if (!known) {
        unknown = unknown || !pp.optional;
        continue;
      }
      if (!entry_point_of(pp, &ep)) {
        auto &d =
            diags.error("XTP2165", first->loc,
                        "@entry can only be used in a .return probe, not in '" + pp.str() + "'");
        d.hint =
            "@entry(expr) saves expr's value at the entry of the function whose return is "
            "probed: kernel.function(\"f\").return, kprobe.function(\"f\").return, "
            "process(\"PATH\").function(\"f\").return, syscall.NAME.return";
        ok = false;
        break;
      }
      entry_points.push_back(std::move(ep));
    }
    if (!ok || unknown || entry_points.empty()) continue;

    EntryCollector collect;
    for (const auto &pp : p->points)
      collect.same_targets = collect.same_targets && is_kretprobe_point(pp);
    collect.stmt(*p->body);
    ++group;
    std::string prefix = "__xtap_entry_" + std::to_string(group) + "_";
    Location loc = p->loc;

    auto saver = std::make_unique<ProbeDecl>();
    saver->loc = p->loc;
    saver->points = std::move(entry_points);
    saver->alias = p->alias;
    saver->entry_group = group;
    saver->entry_half = true;
    auto save_body = std::make_unique<Stmt>(StmtKind::Block, p->body->loc);
    save_body->body.push_back(assign(var(kKeyLocal, loc), [&] {
      auto c = std::make_unique<Expr>(ExprKind::Call, loc);
      c->text = kKeyFunction;
      return c;
    }()));

    // The return side: take the values out (every run deletes what its
    // entry saved, so the arrays hold only calls in flight).
    auto prologue = std::make_unique<Stmt>(StmtKind::Block, p->body->loc);
    prologue->body.push_back(assign(var(kKeyLocal, loc), [&] {
      auto c = std::make_unique<Expr>(ExprKind::Call, loc);
      c->text = kKeyFunction;
      return c;
    }()));
    // Whether this call's entry was seen: the values themselves may be
    // saved only where their targets exist.
    std::string seen = prefix + "seen";
    auto add_global = [&](const std::string &name, const Location &at) {
      auto g = std::make_unique<GlobalDecl>();
      g->name = name;
      g->loc = at;
      g->wrap = true;
      g->wrap_loc = at;
      g->is_array = true;
      g->index = static_cast<int>(s.globals.size());
      s.globals.push_back(std::move(g));
    };
    add_global(seen, loc);
    {
      auto one = std::make_unique<Expr>(ExprKind::Number, loc);
      one->number = 1;
      save_body->body.push_back(
          assign(keyed(ExprKind::Index, seen, var(kKeyLocal, loc)), std::move(one)));
      auto unseen = std::make_unique<Stmt>(StmtKind::If, loc);
      auto in = keyed(ExprKind::In, seen, var(kKeyLocal, loc));
      auto no = std::make_unique<Expr>(ExprKind::Unary, loc);
      no->op = Op::Not;
      no->args.push_back(std::move(in));
      unseen->expr = std::move(no);
      unseen->body.push_back(std::make_unique<Stmt>(StmtKind::Next, loc));
      prologue->body.push_back(std::move(unseen));
      auto del = std::make_unique<Stmt>(StmtKind::Delete, loc);
      del->expr = keyed(ExprKind::Index, seen, var(kKeyLocal, loc));
      prologue->body.push_back(std::move(del));
    }
    for (size_t i = 0; i < collect.saved.size(); ++i) {
      std::string array = prefix + std::to_string(i);
      Location at = collect.locs[i];
      add_global(array, at);
      const ExprPtr &guard = collect.guards[i];
      save_body->body.push_back(guarded(
          guard,
          assign(keyed(ExprKind::Index, array, var(kKeyLocal, at)), std::move(collect.saved[i]))));
      auto take = std::make_unique<Stmt>(StmtKind::Block, at);
      take->body.push_back(assign(var("__xtap_entry_" + std::to_string(i), at),
                                  keyed(ExprKind::Index, array, var(kKeyLocal, at))));
      auto del = std::make_unique<Stmt>(StmtKind::Delete, at);
      del->expr = keyed(ExprKind::Index, array, var(kKeyLocal, at));
      take->body.push_back(std::move(del));
      prologue->body.push_back(collect.same_targets ? guarded(guard, std::move(take))
                                                    : std::move(take));
    }
    saver->body = std::move(save_body);
    prologue->body.push_back(std::move(p->body));
    p->body = std::move(prologue);
    p->entry_group = group;
    added.push_back(std::move(saver));
  }
  // The savers go first, so that on the same event they run before the
  // returns that read them.
  for (auto &a : added) s.probes.insert(s.probes.begin(), std::move(a));
}

}  // namespace xtap
