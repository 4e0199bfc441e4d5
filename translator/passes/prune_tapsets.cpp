// Pass 2, prune_tapsets: drops tapset functions and globals that the script does not
// use, directly or through other tapset code, so that a module carries only
// what it runs. Runs on names, before they are bound.
//
// Probes declared in tapset files go earlier (prune_tapset_probes): as stap
// includes a tapset file only when the script refers to something it
// defines, a tapset file's probes run only when the script (or tapset code
// it reaches) uses one of the file's functions or globals.
#include <map>
#include <set>

#include "passes/passes.h"

namespace xtap {
namespace {

struct Uses {
  std::set<std::string> names;                      // variables and arrays
  std::set<std::string> functions;                  // calls
  std::map<std::string, std::set<size_t>> arities;  // calls: the numbers of arguments

  void expr(const Expr &e) {
    switch (e.kind) {
      case ExprKind::Call:
        functions.insert(e.text);
        arities[e.text].insert(e.args.size());
        break;
      case ExprKind::Var:
      case ExprKind::Index:
      case ExprKind::In: names.insert(e.text); break;
      default: break;
    }
    for (const auto &a : e.args) expr(*a);
  }

  void stmt(const Stmt &s) {
    for (const auto *e : s.operands())
      if (e) expr(*e);
    if (s.foreach && !s.foreach->array.empty()) names.insert(s.foreach->array);
    for (const auto &b : s.body) stmt(*b);
  }

  void probe(const ProbeDecl &p) {
    if (p.condition) expr(*p.condition);
    stmt(*p.body);
  }

  // Whether a call reaches f: as the function of its name and arity
  // (Script::call_targets), or through `next` from a function reached.
  // By declaration, not by name: an overload of another arity that nothing
  // calls would be C that nothing calls, which the compiler warns about.
  bool reaches(const Script &s, const FunctionDecl &f) const {
    if (auto it = arities.find(f.name); it != arities.end())
      for (size_t n : it->second)
        for (const FunctionDecl *t : s.call_targets(f.name, n))
          if (t == &f) return true;
    for (const auto &g : s.functions)
      if (g->next_overload == &f && g->passes_on() && (!g->from_tapset || walked.count(g.get())))
        return true;
    return false;
  }

  // Follows calls into tapset functions until nothing new is reached.
  // Returns whether it reached anything new.
  bool follow_calls(const Script &s) {
    bool any = false;
    for (bool more = true; more;) {
      more = false;
      for (const auto &f : s.functions) {
        if (!f->from_tapset || !functions.count(f->name) || walked.count(f.get()) ||
            !reaches(s, *f))
          continue;
        walked.insert(f.get());
        stmt(*f->body);
        more = any = true;
      }
    }
    return any;
  }

  std::set<const FunctionDecl *> walked;  // tapset functions reached
};

// What the script's own code uses, with the tapset functions it reaches.
Uses script_uses(const Script &s) {
  Uses uses;
  for (const auto &p : s.probes)
    if (!p->from_tapset) uses.probe(*p);
  for (const auto &f : s.functions)
    if (!f->from_tapset) uses.stmt(*f->body);
  uses.follow_calls(s);
  return uses;
}

}  // namespace

void prune_tapset_probes(Script &s) {
  Uses uses = script_uses(s);
  std::set<const ProbeDecl *> kept;
  for (bool more = true; more;) {
    // The tapset files the uses reach so far.
    std::set<const SourceFile *> used;
    for (const auto &f : s.functions)
      if (f->from_tapset && uses.functions.count(f->name)) used.insert(f->loc.file);
    for (const auto &g : s.globals)
      if (g->from_tapset && uses.names.count(g->name)) used.insert(g->loc.file);
    more = false;
    for (const auto &p : s.probes) {
      if (!p->from_tapset || kept.count(p.get()) || !used.count(p->loc.file)) continue;
      kept.insert(p.get());
      uses.probe(*p);
      more = true;
    }
    if (uses.follow_calls(s)) more = true;
  }
  std::erase_if(s.probes, [&](const std::unique_ptr<ProbeDecl> &p) {
    return p->from_tapset && !kept.count(p.get());
  });
}

std::set<const FunctionDecl *> reachable_tapset_functions(const Script &s) {
  Uses uses;
  for (const auto &p : s.probes) uses.probe(*p);
  for (const auto &f : s.functions)
    if (!f->from_tapset) uses.stmt(*f->body);
  uses.follow_calls(s);
  return uses.walked;
}

void prune_tapsets(Script &s) {
  Uses uses;
  for (const auto &p : s.probes) uses.probe(*p);
  for (const auto &f : s.functions)
    if (!f->from_tapset) uses.stmt(*f->body);
  uses.follow_calls(s);
  std::erase_if(s.functions, [&](const std::unique_ptr<FunctionDecl> &f) {
    bool drop = f->from_tapset && !uses.walked.count(f.get());
    if (drop) s.pruned_functions.push_back(f->name);
    return drop;
  });
  // A kept chain's last function may have pointed at one dropped.
  link_overloads(s);
  std::erase_if(s.globals, [&](const std::unique_ptr<GlobalDecl> &g) {
    return g->from_tapset && !uses.names.count(g->name);
  });
  for (size_t i = 0; i < s.globals.size(); ++i) s.globals[i]->index = static_cast<int>(i);
  for (size_t i = 0; i < s.functions.size(); ++i) s.functions[i]->index = static_cast<int>(i);
}

}  // namespace xtap
