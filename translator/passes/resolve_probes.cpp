// Pass 2, resolve_probes: expands every probe point into derived probes through the
// provider of its family. A probe whose body reads context variables ($x,
// @defined($x)) and that has several locations is split into one copy per
// location, so that each copy is resolved, typed and compiled against the
// variables of its own location (stap does the same).
#include "passes/passes.h"

namespace xtap {
namespace {

bool uses_context(const Expr &e) {
  // An autocast alone (task_current()->pid) reads no context variable.
  if ((e.kind == ExprKind::Target && e.target->name != "@autocast") || e.kind == ExprKind::Defined)
    return true;
  for (const auto &a : e.args)
    if (uses_context(*a)) return true;
  return false;
}

bool uses_context(const Stmt &s) {
  for (const auto *e : s.operands())
    if (e && uses_context(*e)) return true;
  for (const auto &b : s.body)
    if (uses_context(*b)) return true;
  return false;
}

std::unique_ptr<ProbeDecl> copy_probe(const ProbeDecl &p) {
  auto c = std::make_unique<ProbeDecl>();
  c->body = clone(*p.body);
  c->loc = p.loc;
  c->points = p.points;
  c->alias = p.alias;
  c->entry_group = p.entry_group;
  c->entry_half = p.entry_half;
  if (p.condition) c->condition = clone(*p.condition);
  return c;
}

void report_unknown(const Script &s, const ProbePoint &pp, Diagnostics &diags) {
  std::vector<std::string> known;
  for (const auto *p : probe_providers())
    for (auto &sp : p->spellings()) known.push_back(sp);
  // Probe aliases too (syscall.openat for syscall.opnat).
  for (const auto &a : s.aliases) known.push_back(a->name.str());
  auto &d = diags.error("XTP2100", pp.loc, "unknown probe point '" + pp.str() + "'");
  std::string guess = closest_match(pp.str(), known);
  if (guess.empty()) guess = closest_match(component_names(pp), known);
  d.hint = guess.empty() ? "known probe points: begin, end, timer.ms(N), timer.s(N), "
                           "kprobe.function(\"name\"), kprobe.function(\"name\").return, "
                           "kernel.trace(\"name\")"
                         : "did you mean '" + guess + "'?";
}

}  // namespace

void resolve_probes(Script &s, const ProbeEnv &script_env, Elaborated &out, Diagnostics &diags) {
  ProbeEnv env = script_env;
  env.guru = s.guru;
  std::vector<std::unique_ptr<ProbeDecl>> probes;
  for (auto &probe : s.probes) {
    DerivedProbes derived;
    for (auto &pp : probe->points) {
      const ProbeProvider *provider = nullptr;
      for (const auto *p : probe_providers())
        if (p->matches(pp)) provider = p;
      if (!provider) {
        if (!pp.optional) report_unknown(s, pp, diags);
        continue;
      }
      size_t first = derived.size();
      int errors = diags.error_count();
      provider->derive(pp, *probe, env, derived, diags);
      if (diags.error_count() != errors) continue;
      for (size_t i = first; i < derived.size(); ++i) {
        derived[i]->decl = probe.get();
        derived[i]->point = &pp;
        derived[i]->provider = provider;
        derived[i]->optional = derived[i]->optional || pp.optional;  // a provider may say so
      }
      // pp!: sufficient once it resolved; the alternatives after it are not needed.
      if (pp.sufficient && derived.size() > first) break;
    }
    // A probe left without locations (all optional, none matched) has
    // nothing to run: drop it rather than emit an unused handler.
    if (derived.empty()) continue;
    bool split = derived.size() > 1 && (uses_context(*probe->body) ||
                                        (probe->condition && uses_context(*probe->condition)));
    if (split) {
      for (auto &dp : derived) {
        auto copy = copy_probe(*probe);
        // The copy's points are its own; the derived probe keeps pointing at
        // the original point, which the original declaration keeps alive.
        dp->decl = copy.get();
        probes.push_back(std::move(copy));
        out.probes.push_back(std::move(dp));
      }
      out.split_originals.push_back(std::move(probe));
    } else {
      for (auto &dp : derived) out.probes.push_back(std::move(dp));
      probes.push_back(std::move(probe));
    }
  }
  s.probes = std::move(probes);
  for (const auto *provider : probe_providers()) {
    std::vector<const DerivedProbe *> mine;
    for (const auto &dp : out.probes)
      if (dp->provider == provider) mine.push_back(dp.get());
    if (!mine.empty()) provider->check_family(mine, diags);
  }
}

// The one location of a probe declaration's context variables: its only
// derived probe (resolve_probes split the others), or null when it has several.
const DerivedProbe *single_location(const Elaborated &e, const ProbeDecl &decl) {
  const DerivedProbe *found = nullptr;
  for (const auto &dp : e.probes)
    if (dp->decl == &decl) {
      if (found) return nullptr;
      found = dp.get();
    }
  return found;
}

}  // namespace xtap
