#include "xtap/json_records.h"

#include <map>

#include "common/json.h"
#include "symbols/catalog.h"

namespace xtap::cli {

void print_diagnostic_json(std::ostream &os, const Diagnostic &d) {
  os << "{\"type\":" << json::quote(d.severity == Severity::Error ? "error" : "warning")
     << ",\"code\":" << json::quote(d.code) << ",\"text\":" << json::quote(d.message);
  if (!d.hint.empty()) os << ",\"hint\":" << json::quote(d.hint);
  if (d.loc.valid())
    os << ",\"file\":" << json::quote(d.loc.file->name) << ",\"line\":" << d.loc.line
       << ",\"column\":" << d.loc.column;
  os << "}\n";
}

void print_probe_list_json(std::ostream &os, const Elaborated &elab, bool vars) {
  // As the text listing (listing.cpp): aliases by name with the variables
  // they set, family points by location with their target variables.
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> probes;
  for (const auto &dp : elab.probes) {
    if (dp->decl->entry_half) continue;
    std::vector<std::pair<std::string, std::string>> vs;
    std::string name = dp->decl->alias.empty() ? dp->name() : dp->decl->alias;
    if (!dp->decl->alias.empty()) {
      for (const auto &l : dp->decl->locals) vs.emplace_back(l->name, type_name(l->type));
    } else {
      for (const auto &v : dp->context_vars())
        vs.emplace_back("$" + v.name, dp->types() ? dp->types()->spelling(v.type) : "long");
    }
    probes.emplace(name, std::move(vs));
  }
  for (const auto &[name, vs] : probes) {
    os << "{\"type\":\"probe\",\"name\":" << json::quote(name);
    if (vars) {
      os << ",\"vars\":[";
      for (size_t i = 0; i < vs.size(); ++i)
        os << (i ? "," : "") << "{\"name\":" << json::quote(vs[i].first)
           << ",\"type\":" << json::quote(vs[i].second) << "}";
      os << "]";
    }
    os << "}\n";
  }
}

}  // namespace xtap::cli
