// Pass 2, link_overloads: run-time overloading, as in stap. Functions of one name and
// arity form a chain: ordered by priority (`function f():N`; script
// functions 0, tapset functions 1), then by declaration. Calls go to the
// head; `next` in a function (STAP_NEXT in embedded C) hands the call's
// arguments to the next one, and past the last raises "all functions
// exhausted" (codegen/emit_body.cpp).
#include <algorithm>
#include <map>

#include "passes/passes.h"

namespace xtap {

void link_overloads(Script &s) {
  std::map<std::pair<std::string, size_t>, std::vector<FunctionDecl *>> chains;
  for (const auto &f : s.functions) {
    f->next_overload = nullptr;
    f->overload_tail = false;
    chains[{f->name, f->params.size()}].push_back(f.get());
  }
  for (auto &[key, chain] : chains) {
    std::stable_sort(chain.begin(), chain.end(), [](const FunctionDecl *a, const FunctionDecl *b) {
      return a->priority < b->priority;
    });
    for (size_t i = 0; i < chain.size(); ++i) {
      chain[i]->overload_tail = i > 0;
      chain[i]->next_overload = i + 1 < chain.size() ? chain[i + 1] : nullptr;
    }
  }
}

}  // namespace xtap
