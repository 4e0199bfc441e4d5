// Pass 2, generate_tapsets: tapsets generated from the target kernel. A script
// that names syscall.*, syscall_any or nd_syscall.* (in its probes or in its
// own aliases) gets the syscall tapset of its kernel's catalog
// (tapsets/syscalls.h), parsed like any tapset before aliases are expanded.
// Scripts that use none of them never load the catalog for it.
#include <set>
#include <string>

#include "parse/parser.h"
#include "passes/passes.h"
#include "symbols/catalog.h"
#include "tapsets/syscalls.h"

namespace xtap {
namespace {

// The first words of the probe points a script can reach: its probes',
// its own aliases', and those of the tapsets' aliases they name (so that a
// tapset alias built on syscall.* loads the syscall tapset only for the
// scripts that use it).
std::set<std::string> reachable_first_words(const Script &s) {
  std::set<std::string> words;
  bool any = false;  // a glob first word ("*.exec") may name any alias
  auto add = [&](const ProbePoint &pp) {
    if (pp.components.empty()) return false;
    const std::string &w = pp.components[0].name;
    if (w.find_first_of("*?[") != std::string::npos) any = true;
    return words.insert(w).second;
  };
  for (const auto &p : s.probes)
    for (const auto &pp : p->points) add(pp);
  for (const auto &a : s.aliases)
    if (!a->from_tapset)
      for (const auto &pp : a->points) add(pp);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &a : s.aliases) {
      if (!a->from_tapset || a->name.components.empty()) continue;
      if (!any && !words.count(a->name.components[0].name)) continue;
      for (const auto &pp : a->points) grew |= add(pp);
    }
  }
  return words;
}

const ProbePoint *first_syscall_point(const Script &s) {
  auto uses = [](const ProbePoint &pp) {
    return !pp.components.empty() && names_syscall_tapset(pp.components[0].name);
  };
  for (const auto &p : s.probes)
    for (const auto &pp : p->points)
      if (uses(pp)) return &pp;
  std::set<std::string> reachable = reachable_first_words(s);
  for (const auto &a : s.aliases)
    for (const auto &pp : a->points)
      if (uses(pp) && reachable.count(pp.components[0].name)) return &pp;
  return nullptr;
}

}  // namespace

void generate_tapsets(Script &s, const ProbeEnv &env, Diagnostics &diags) {
  const ProbePoint *use = first_syscall_point(s);
  if (!use) return;
  std::string error = "no kernel catalog";
  const KernelCatalog *cat = env.catalog ? env.catalog(&error) : nullptr;
  if (!cat) {
    diags.error("XTP2140", use->loc, "syscall probes need the kernel's syscall catalog: " + error)
        .hint =
        "install the target kernel's headers (linux-headers-KVER) or point -r at a build directory";
    return;
  }
  auto file = std::make_unique<SourceFile>();
  file->name = "<syscall tapset of " + cat->release() + ">";
  file->text = generate_syscall_tapset(*cat);
  ParseOptions opts;
  opts.tapset = true;
  parse_into(s, *file, diags, nullptr, opts);
  s.tapset_files.push_back(std::move(file));
}

}  // namespace xtap
