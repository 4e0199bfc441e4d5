#include <optional>

#include "passes/passes.h"

namespace xtap {

bool elaborate(Script &s, const ProbeEnv &env, Elaborated &out, Diagnostics &diags,
               const ElaborateOptions &opts) {
  link_overloads(s);
  generate_tapsets(s, env, diags);
  if (diags.has_errors()) return false;
  extract_budgets(s, diags);
  if (diags.has_errors()) return false;
  expand_aliases(s, diags);
  if (diags.has_errors()) return false;
  prune_tapset_probes(s);
  std::optional<Location> first_probe;
  if (!s.probes.empty())
    first_probe = s.probes.front()->points.empty() ? s.probes.front()->loc
                                                   : s.probes.front()->points.front().loc;
  expand_point_globs(s);
  if (!opts.keep_unused) elide_pure_code(s, diags);
  expand_entry(s, diags);
  if (diags.has_errors()) return false;
  resolve_probes(s, env, out, diags);
  if (diags.has_errors()) return false;
  require_probes(s, out, first_probe ? &*first_probe : nullptr, diags);
  if (diags.has_errors()) return false;
  resolve_targets(s, out, env, diags, opts.skip_badvars);
  if (diags.has_errors()) return false;
  elide_dead_code(s);
  if (!opts.keep_unused) elide_unread_assignments(s);
  prune_tapsets(s);
  check_autocasts(s, diags, opts.keep_unused);
  if (diags.has_errors()) return false;
  resolve_names(s, diags);
  if (diags.has_errors()) return false;
  collect_lock_sets(s);
  check_dropped_code(s, diags);
  if (diags.has_errors()) return false;
  check_foreach_writes(s, diags);
  if (diags.has_errors()) return false;
  infer_types(s, diags);
  // Also after type errors, so that a bad pattern is reported with them.
  collect_tables(s, diags);
  return !diags.has_errors();
}

}  // namespace xtap
