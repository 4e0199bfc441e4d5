// Pass 2, expand_aliases: replaces probe points that name a probe alias with the alias's
// own points, pasting the alias body before (=) or after (+=) the probe's
// body. A probe whose points use different aliases is split, since each
// alias brings its own prologue or epilogue. Aliases may use aliases.
// An alias defined as `= points { prologue }, { epilogue }` brings both;
// @probewrite(v) in its bodies becomes 1 or 0, whether the body of the
// probe using it writes v.
//
// As in stap, a point matches alias names component by component, each
// component a glob (`syscall.*`, `syscall.open*`, `syscall.*.return`), and
// a point longer than an alias's name that matches none in full may use
// the alias with a suffix (`my.alias.return`): the remaining components are
// appended to each of the alias's own points. A point's own `if (cond)`
// (in a probe or in an alias's points) becomes its probe's condition.
#include <fnmatch.h>

#include <algorithm>

#include "passes/passes.h"

namespace xtap {
namespace {

constexpr int kMaxAliasDepth = 16;

struct AliasUse {
  const AliasDecl *alias;
  size_t matched;  // components of the point matched by the alias name; the rest is a suffix
};

// True if the first `n` components of `pp` match the alias's name, which
// has exactly `n` components.
bool name_matches(const AliasDecl &a, const ProbePoint &pp, size_t n) {
  const auto &name = a.name.components;
  if (name.size() != n || n > pp.components.size()) return false;
  for (size_t i = 0; i < n; ++i) {
    const auto &c = pp.components[i];
    if (c.has_arg || name[i].has_arg) return false;
    if (fnmatch(c.name.c_str(), name[i].name.c_str(), 0) != 0) return false;
  }
  return true;
}

// `**` in a component matches across components (`netfilter.**` is each
// of netfilter.ipv4.pre_routing, netfilter.arp.in ...), as in stap: the
// point's components from `u` against the alias name's from `a`, whole.
bool spans_match(const std::vector<ProbePointComponent> &point, size_t u,
                 const std::vector<ProbePointComponent> &name, size_t a) {
  if (u == point.size()) return a == name.size();
  const auto &c = point[u];
  bool spans = c.name.find("**") != std::string::npos;
  std::string joined;
  for (size_t n = 1; a + n <= name.size() && (n == 1 || spans); ++n) {
    if (name[a + n - 1].has_arg) return false;
    joined += (n > 1 ? "." : "") + name[a + n - 1].name;
    if (fnmatch(c.name.c_str(), joined.c_str(), 0) == 0 && spans_match(point, u + 1, name, a + n))
      return true;
  }
  return false;
}

std::vector<AliasUse> aliases_named(const Script &s, const ProbePoint &pp) {
  std::vector<AliasUse> out;
  bool spans = std::any_of(pp.components.begin(), pp.components.end(), [](const auto &c) {
    return !c.has_arg && c.name.find("**") != std::string::npos;
  });
  if (spans) {
    for (const auto &a : s.aliases)
      if (spans_match(pp.components, 0, a->name.components, 0))
        out.push_back({a.get(), pp.components.size()});
    return out;
  }
  for (size_t n = pp.components.size(); n > 0 && out.empty(); --n)
    for (const auto &a : s.aliases)
      if (name_matches(*a, pp, n)) out.push_back({a.get(), n});
  return out;
}

bool is_probewrite(const Expr &e) { return e.kind == ExprKind::Call && e.text == "@probewrite"; }

// Whether `e` stores into the variable (or array, or target variable)
// that `var` names: =, op=, <<<, ++ and --, as stap's @probewrite counts.
bool writes(const Expr &e, const Expr &var) {
  if ((e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec) && !e.args.empty()) {
    const Expr &l = *e.args[0];
    if (var.kind == ExprKind::Target
            ? l.kind == ExprKind::Target && l.target &&
                  l.target->spelling() == var.target->spelling()
            : (l.kind == ExprKind::Var || l.kind == ExprKind::Index) && l.text == var.text)
      return true;
  }
  for (const auto &a : e.args)
    if (writes(*a, var)) return true;
  return false;
}

bool writes(const Stmt &s, const Expr &var) {
  for (const auto *e : s.operands())
    if (e && writes(*e, var)) return true;
  for (const auto &b : s.body)
    if (writes(*b, var)) return true;
  return false;
}

void settle_probewrites(Expr &e, const Stmt &handler) {
  if (is_probewrite(e)) {
    bool written = writes(handler, *e.args[0]);
    e.kind = ExprKind::Number;
    e.number = written;
    e.text.clear();
    e.args.clear();
    return;
  }
  for (auto &a : e.args) settle_probewrites(*a, handler);
}

// @probewrite(v) in an alias body: 1 if `handler`, the body of the probe
// using the alias, writes v, else 0.
void settle_probewrites(Stmt &s, const Stmt &handler) {
  for (auto *e : s.operands())
    if (e) settle_probewrites(*e, handler);
  for (auto &b : s.body) settle_probewrites(*b, handler);
}

void report_probewrites(const Expr &e, Diagnostics &diags) {
  if (is_probewrite(e))
    diags.error("XTP2233", e.loc, "@probewrite can only be used in a probe alias's body").hint =
        "it says whether the probe using the alias writes a variable: probe a = begin { }, { "
        "if (@probewrite(x)) println(x) }";
  for (const auto &a : e.args) report_probewrites(*a, diags);
}

void report_probewrites(const Stmt &s, Diagnostics &diags) {
  for (const auto *e : s.operands())
    if (e) report_probewrites(*e, diags);
  for (const auto &b : s.body) report_probewrites(*b, diags);
}

std::unique_ptr<ProbeDecl> expand(const ProbeDecl &p, const AliasUse &u, const ProbePoint &use,
                                  bool optional) {
  const AliasDecl &a = *u.alias;
  auto via = std::make_shared<Expansion>(Expansion{"probe alias '" + a.name.str() + "'", use.loc});
  auto n = std::make_unique<ProbeDecl>();
  n->loc = p.loc;
  n->from_tapset = p.from_tapset;
  n->alias = p.alias;
  if (n->alias.empty()) {
    ProbePoint named = a.name;
    named.components.insert(named.components.end(), use.components.begin() + u.matched,
                            use.components.end());
    n->alias = named.str();
  }
  for (const auto &pp : a.points) {
    n->points.push_back(pp);
    auto &added = n->points.back();
    added.components.insert(added.components.end(), use.components.begin() + u.matched,
                            use.components.end());
    if (optional) added.optional = true;
    if (use.budget_ns) added.budget_ns = use.budget_ns;  // the use's .budget(NS)
  }
  auto body = std::make_unique<Stmt>(StmtKind::Block, p.body->loc);
  auto alias_part = [&](const Stmt &part) {
    StmtPtr c = clone(part, via);
    settle_probewrites(*c, *p.body);
    return c;
  };
  if (a.epilogue) body->body.push_back(clone(*p.body));
  body->body.push_back(alias_part(*a.body));
  if (!a.epilogue) body->body.push_back(clone(*p.body));
  if (a.epilogue_body) body->body.push_back(alias_part(*a.epilogue_body));
  n->body = std::move(body);
  if (p.condition) n->condition = clone(*p.condition);
  return n;
}

bool has_point_conditions(const ProbeDecl &p) {
  for (const auto &pp : p.points)
    if (pp.condition) return true;
  return false;
}

// `probe a if (x), b if (y) { }` and an alias's `= c if (z)`: each point's
// own condition joins the probe's (with &&), in a copy of the probe per
// condition, as stap's derived probes each carry their point's condition.
std::vector<std::unique_ptr<ProbeDecl>> split_point_conditions(const ProbeDecl &p) {
  std::vector<const Expr *> conds;
  for (const auto &pp : p.points)
    if (std::find(conds.begin(), conds.end(), pp.condition.get()) == conds.end())
      conds.push_back(pp.condition.get());
  std::vector<std::unique_ptr<ProbeDecl>> out;
  for (const Expr *cond : conds) {
    auto n = std::make_unique<ProbeDecl>();
    n->loc = p.loc;
    n->from_tapset = p.from_tapset;
    n->alias = p.alias;
    n->body = clone(*p.body);
    for (const auto &pp : p.points)
      if (pp.condition.get() == cond) {
        n->points.push_back(pp);
        n->points.back().condition = nullptr;
      }
    if (p.condition && cond) {
      auto both = std::make_unique<Expr>(ExprKind::Logical, cond->loc);
      both->op = Op::And;
      both->args.push_back(clone(*p.condition));
      both->args.push_back(clone(*cond));
      n->condition = std::move(both);
    } else if (p.condition || cond) {
      n->condition = clone(p.condition ? *p.condition : *cond);
    }
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace

void expand_aliases(Script &s, Diagnostics &diags) {
  std::vector<std::pair<std::unique_ptr<ProbeDecl>, int>> work;
  for (auto &p : s.probes) work.emplace_back(std::move(p), 0);
  s.probes.clear();
  while (!work.empty()) {
    auto [p, depth] = std::move(work.back());
    work.pop_back();
    if (has_point_conditions(*p)) {
      auto parts = split_point_conditions(*p);
      // The work list runs backwards and is reversed at the end: push in order.
      for (auto &part : parts) work.emplace_back(std::move(part), depth);
      continue;
    }
    std::vector<ProbePoint> plain;
    std::vector<std::unique_ptr<ProbeDecl>> split;
    for (const auto &pp : p->points) {
      auto as = aliases_named(s, pp);
      if (as.empty()) {
        plain.push_back(pp);
        continue;
      }
      if (depth >= kMaxAliasDepth) {
        diags.error("XTP2120", pp.loc,
                    "probe alias '" + pp.str() + "' expands too deeply (recursive alias?)");
        continue;
      }
      for (const auto &u : as) split.push_back(expand(*p, u, pp, pp.optional));
    }
    for (auto &n : split) work.emplace_back(std::move(n), depth + 1);
    if (!plain.empty()) {
      p->points = std::move(plain);
      s.probes.push_back(std::move(p));
    }
  }
  // The work list ran backwards; keep script order for begin/end probes.
  std::reverse(s.probes.begin(), s.probes.end());
  for (const auto &p : s.probes) report_probewrites(*p->body, diags);
  for (const auto &f : s.functions) report_probewrites(*f->body, diags);
}

}  // namespace xtap
