// Pass 2a: replaces probe points that name a probe alias with the alias's
// own points, pasting the alias body before (=) or after (+=) the probe's
// body. A probe whose points use different aliases is split, since each
// alias brings its own prologue or epilogue. Aliases may use aliases.
#include <algorithm>

#include "passes/passes.h"

namespace xtap {
namespace {

constexpr int kMaxAliasDepth = 16;

std::vector<const AliasDecl *> aliases_named(const Script &s, const ProbePoint &pp) {
  std::vector<const AliasDecl *> out;
  for (const auto &c : pp.components)
    if (c.has_arg) return out;
  std::string name = pp.str();
  for (const auto &a : s.aliases)
    if (a->name.str() == name) out.push_back(a.get());
  return out;
}

std::unique_ptr<ProbeDecl> expand(const ProbeDecl &p, const AliasDecl &a, const ProbePoint &use,
                                  bool optional) {
  auto via = std::make_shared<Expansion>(Expansion{"probe alias '" + a.name.str() + "'", use.loc});
  auto n = std::make_unique<ProbeDecl>();
  n->loc = p.loc;
  for (const auto &pp : a.points) {
    n->points.push_back(pp);
    if (optional) n->points.back().optional = true;
  }
  auto body = std::make_unique<Stmt>(StmtKind::Block, p.body->loc);
  if (a.epilogue) body->body.push_back(clone(*p.body));
  body->body.push_back(clone(*a.body, via));
  if (!a.epilogue) body->body.push_back(clone(*p.body));
  n->body = std::move(body);
  if (p.condition) n->condition = clone(*p.condition);
  return n;
}

}  // namespace

void expand_aliases(Script &s, Diagnostics &diags) {
  if (s.aliases.empty()) return;
  std::vector<std::pair<std::unique_ptr<ProbeDecl>, int>> work;
  for (auto &p : s.probes) work.emplace_back(std::move(p), 0);
  s.probes.clear();
  while (!work.empty()) {
    auto [p, depth] = std::move(work.back());
    work.pop_back();
    std::vector<ProbePoint> plain;
    std::vector<std::unique_ptr<ProbeDecl>> split;
    for (const auto &pp : p->points) {
      auto as = aliases_named(s, pp);
      if (as.empty()) {
        plain.push_back(pp);
        continue;
      }
      if (depth >= kMaxAliasDepth) {
        diags.error("XTP2120", pp.loc, "probe alias '" + pp.str() + "' expands too deeply (recursive alias?)");
        continue;
      }
      for (const auto *a : as) split.push_back(expand(*p, *a, pp, pp.optional));
    }
    for (auto &n : split) work.emplace_back(std::move(n), depth + 1);
    if (!plain.empty()) {
      p->points = std::move(plain);
      s.probes.push_back(std::move(p));
    }
  }
  // The work list ran backwards; keep script order for begin/end probes.
  std::reverse(s.probes.begin(), s.probes.end());
}

}  // namespace xtap
