// Pass 2 (elaborate): the checks and resolutions between parsing and code
// generation, run in this order by elaborate(); each step's file is named
// after it and calls itself "Pass 2, NAME":
//   link_overloads    functions of one name and arity -> a chain for `next`
//   generate_tapsets  tapsets made from the kernel catalog (syscall.*), if used
//   extract_budgets   a point's .budget(NS) option -> ProbePoint::budget_ns
//   expand_aliases    probe alias uses -> the alias's points and bodies;
//                     point conditions -> probe conditions
//   prune_tapset_probes  tapset probes of files the script uses nothing of
//                     (in prune_tapsets.cpp)
//   expand_point_globs  wildcards in a family's names (kerne*.funct*("f").*)
//                     -> the family's points
//   elide_pure_code   uncalled functions, dead stores, statements without
//                     effect ($dentry;): dropped before they are checked, as
//                     stap does (not with -u)
//   expand_entry      @entry(e) in .return probes -> values saved by a
//                     companion entry probe
//   resolve_probes    probe points -> derived probes of their providers
//                     (probes/); probes reading context variables split per
//                     location
//   require_probes    at least one derived probe, else "no probes found"
//   resolve_targets   $vars, @cast, @defined -> typed reads (symbols/target_access)
//   elide_dead_code   drop if-branches with constant conditions (@defined)
//   elide_unread_assignments  drop what aliases compute and probes never read
//   prune_tapsets     drop tapset functions and globals nothing uses
//   check_autocasts   autocasts left untyped: dropped as statements, else errors
//   resolve_names     variables -> globals or probe locals, calls -> builtins
//   collect_lock_sets  the globals each probe and function reads, writes
//                     and adds to, with those of the functions it calls
//   check_dropped_code  globals in the code elide_pure_code dropped: used
//                     as arrays or scalars as the rest of the script uses them
//   check_foreach_writes  no writes to an array inside a foreach over it
//   infer_types       types of every variable, array and expression
//   collect_tables    =~ patterns (checked) and printf formats -> the
//                     module's tables (Script::regexes, Script::formats)
#pragma once

#include <set>
#include <string>

#include <vector>

#include "diag/diagnostics.h"
#include "parse/ast.h"
#include "probes/provider.h"

namespace xtap {

struct Elaborated {
  DerivedProbes probes;  // one per probe location, in script order
  // Declarations that were split into one copy per location: kept because
  // derived probes point at their probe points.
  std::vector<std::unique_ptr<ProbeDecl>> split_originals;
};

void generate_tapsets(Script &s, const ProbeEnv &env, Diagnostics &diags);
// Chains the functions of one name and arity (run-time overloading).
void link_overloads(Script &s);
void extract_budgets(Script &s, Diagnostics &diags);
void expand_aliases(Script &s, Diagnostics &diags);
void expand_point_globs(Script &s);
void expand_entry(Script &s, Diagnostics &diags);
void resolve_probes(Script &s, const ProbeEnv &env, Elaborated &out, Diagnostics &diags);
// first_probe: where the script's first probe was (resolve_probes drops the
// declarations whose points all went away), or null when it had none.
void require_probes(const Script &s, const Elaborated &e, const Location *first_probe,
                    Diagnostics &diags);
// skip_badvars (--skip-badvars): a $var the probe point does not have reads
// as 0, with warning XTP2249, instead of error XTP2225.
void resolve_targets(Script &s, const Elaborated &e, const ProbeEnv &env, Diagnostics &diags,
                     bool skip_badvars = false);
void elide_dead_code(Script &s);
// Drops if-branches with constant conditions in one body.
void elide_dead_branches(StmtPtr &body);
// stap's optimizer ahead of checking: uncalled functions, stores into
// locals nothing reads, statements without side effects (unless -u).
void elide_pure_code(Script &s, Diagnostics &diags);
void elide_unread_assignments(Script &s);
void prune_tapsets(Script &s);
// Autocasts left untyped: dropped where they are a whole statement (not
// with keep_unused, -u), reported elsewhere (runs after prune_tapsets).
void check_autocasts(Script &s, Diagnostics &diags, bool keep_unused = false);
// The tapset functions the probes and the script's own functions call,
// directly or through other tapset functions (what prune_tapsets keeps).
std::set<const FunctionDecl *> reachable_tapset_functions(const Script &s);
// Drops the probes of tapset files the script uses nothing of (runs after
// expand_aliases, before the probes are resolved).
void prune_tapset_probes(Script &s);
void resolve_names(Script &s, Diagnostics &diags);
// Body::globals_read, globals_written, globals_aggregated and calls, the
// callees' sets included (runs after resolve_names).
void collect_lock_sets(Script &s);
// The globals used in code elide_pure_code dropped: used as the kept code
// uses them (runs after resolve_names).
void check_dropped_code(Script &s, Diagnostics &diags);
// An array a foreach walks must not change in its body (XTP2323).
void check_foreach_writes(const Script &s, Diagnostics &diags);
void infer_types(Script &s, Diagnostics &diags);
// =~ patterns checked and numbered, printf formats for binary records numbered.
void collect_tables(Script &s, Diagnostics &diags);

// The only derived probe of `decl`, or null when it has several (then its
// body reads no context variables).
const DerivedProbe *single_location(const Elaborated &e, const ProbeDecl &decl);

struct ElaborateOptions {
  bool keep_unused = false;   // -u, -L: keep what aliases compute for nobody
  bool skip_badvars = false;  // --skip-badvars: unknown $vars read as 0 (resolve_targets)
};

// Runs every pass 2 step; stops after the first step that reported errors.
bool elaborate(Script &s, const ProbeEnv &env, Elaborated &out, Diagnostics &diags,
               const ElaborateOptions &opts = {});

}  // namespace xtap
