// Pass 2, expand_point_globs: wildcards in the names of a probe point's family, as stap
// allows them: `kerne*.funct*("vfs_read").*` is kernel.function("vfs_read")
// with each of .call and .return, `ti**es(1)` is timer.jiffies(1). A point
// that no probe family recognises as written and whose component names hold
// `*`, `?` or `[` is matched against the spellings of every family (the
// ones -p2 lists): `*` within one component, `**` across several; the
// arguments stay with the component they were written on (with the last
// one of a `**` run). Points that match probe aliases were expanded before
// (expand_aliases); a point that matches nothing is left for
// resolve_probes to report.
#include <fnmatch.h>

#include <algorithm>
#include <cctype>

#include "passes/passes.h"

namespace xtap {
namespace {

bool has_glob(const std::string &s) { return s.find_first_of("*?[") != std::string::npos; }

// The component names of a spelling: `kernel.function("name").return` ->
// kernel, function, return. Placeholder words (NAME, N) are not names.
// `takes_arg` gets, per name, whether the spelling gives it an argument.
std::vector<std::string> spelling_names(const std::string &spelling, std::vector<bool> *takes_arg) {
  std::vector<std::string> out(1);
  takes_arg->assign(1, false);
  int depth = 0;
  bool quoted = false;
  for (char c : spelling) {
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == '(' && depth == 0) takes_arg->back() = true;
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (depth == 0 && c == '.') out.emplace_back(), takes_arg->push_back(false);
    else if (depth == 0) out.back() += c;
  }
  for (const auto &n : out)
    if (n.empty() || std::all_of(n.begin(), n.end(), [](char c) {
          return std::isupper(static_cast<unsigned char>(c)) || c == '_';
        }))
      return {};
  return out;
}

// Matches the user's components from `u` against the spelling's names from
// `s`; on success fills `out` with the concrete components.
// A component whose spelling takes an argument ("name", N) matches only a
// component written with one: `netfilter.**` is no netfilter.hook(...).
// (Some spellings leave a number out, timer.jiffies: an argument written
// where the spelling shows none is for the family to judge.)
bool match(const std::vector<ProbePointComponent> &user, size_t u,
           const std::vector<std::string> &names, const std::vector<bool> &takes_arg, size_t s,
           std::vector<ProbePointComponent> &out) {
  if (u == user.size()) return s == names.size();
  const ProbePointComponent &c = user[u];
  const bool spans = c.name.find("**") != std::string::npos;
  for (size_t n = 1; s + n <= names.size() && (n == 1 || spans); ++n) {
    std::string joined = names[s];
    for (size_t k = 1; k < n; ++k) joined += "." + names[s + k];
    // fnmatch's `*` crosses dots (no FNM_PATHNAME): one component at a time
    // unless the user wrote `**`.
    if (fnmatch(c.name.c_str(), joined.c_str(), 0) != 0) continue;
    bool args_fit = c.has_arg || !takes_arg[s + n - 1];
    for (size_t k = 0; k + 1 < n; ++k) args_fit = args_fit && !takes_arg[s + k];
    if (!args_fit) continue;
    size_t mark = out.size();
    for (size_t k = 0; k < n; ++k) {
      ProbePointComponent concrete;
      concrete.name = names[s + k];
      concrete.loc = c.loc;
      if (k + 1 == n) {
        concrete.has_arg = c.has_arg;
        concrete.arg_is_string = c.arg_is_string;
        concrete.str_arg = c.str_arg;
        concrete.num_arg = c.num_arg;
      }
      out.push_back(concrete);
    }
    if (match(user, u + 1, names, takes_arg, s + n, out)) return true;
    out.resize(mark);
  }
  return false;
}

std::vector<ProbePoint> expand(const ProbePoint &pp) {
  std::vector<ProbePoint> out;
  for (const auto *provider : probe_providers())
    for (const auto &spelling : provider->spellings()) {
      std::vector<bool> takes_arg;
      std::vector<std::string> names = spelling_names(spelling, &takes_arg);
      std::vector<ProbePointComponent> comps;
      if (names.empty() || !match(pp.components, 0, names, takes_arg, 0, comps)) continue;
      ProbePoint concrete = pp;
      concrete.components = std::move(comps);
      if (!provider->matches(concrete)) continue;
      bool seen = std::any_of(out.begin(), out.end(),
                              [&](const ProbePoint &o) { return o.str() == concrete.str(); });
      if (!seen) out.push_back(std::move(concrete));
    }
  return out;
}

}  // namespace

void expand_point_globs(Script &s) {
  for (auto &probe : s.probes) {
    std::vector<ProbePoint> points;
    for (auto &pp : probe->points) {
      bool known = std::any_of(probe_providers().begin(), probe_providers().end(),
                               [&](const ProbeProvider *p) { return p->matches(pp); });
      bool glob = std::any_of(pp.components.begin(), pp.components.end(),
                              [](const ProbePointComponent &c) { return has_glob(c.name); });
      std::vector<ProbePoint> concrete = known || !glob ? std::vector<ProbePoint>{} : expand(pp);
      if (concrete.empty()) {
        points.push_back(std::move(pp));
        continue;
      }
      for (auto &c : concrete) points.push_back(std::move(c));
    }
    probe->points = std::move(points);
  }
}

}  // namespace xtap
