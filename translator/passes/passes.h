// Pass 2 (elaborate): the checks and resolutions between parsing and code
// generation, run in this order by elaborate():
//   expand_aliases  probe alias uses -> the alias's points and bodies
//   elide_dead_code drop if-branches with constant conditions (@defined)
//   prune_tapsets   drop tapset functions and globals nothing uses
//   resolve_probes  probe points -> providers (probes/)
//   resolve_names   variables -> globals or probe locals, calls -> builtins
//   infer_types     types of every variable, array and expression
#pragma once

#include <vector>

#include "diag/diagnostics.h"
#include "parse/ast.h"
#include "probes/provider.h"

namespace xtap {

struct Elaborated {
  std::vector<ResolvedProbe> probes;  // one per probe point, in script order
};

void expand_aliases(Script &s, Diagnostics &diags);
void elide_dead_code(Script &s);
void prune_tapsets(Script &s);
void resolve_probes(Script &s, Elaborated &out, Diagnostics &diags);
void resolve_names(Script &s, Diagnostics &diags);
void infer_types(Script &s, Diagnostics &diags);

// Runs every pass 2 step; stops after the first step that reported errors.
bool elaborate(Script &s, Elaborated &out, Diagnostics &diags);

}  // namespace xtap
