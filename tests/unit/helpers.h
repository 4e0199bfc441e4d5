// Shared helpers of the translator unit tests: run passes on inline scripts.
#pragma once

#include <memory>
#include <sstream>
#include <string>

#include "diag/diagnostics.h"
#include "parse/parser.h"
#include "parse/tapsets.h"
#include "passes/passes.h"
#include "test_catalog.h"

namespace xtap::test {

struct Run {
  SourceFile file;
  Diagnostics diags;
  std::unique_ptr<Script> script;
  ProbeEnv env = test_probe_env();
  Elaborated elab;
  bool ok = false;

  std::string printed() const {
    std::ostringstream ss;
    diags.print(ss);
    return ss.str();
  }
  // The first error's code, or "" when there is none.
  std::string first_error() const {
    for (const auto &d : diags.all())
      if (d.severity == Severity::Error) return d.code;
    return "";
  }
};

// Parses (and, with elaborate, runs pass 2 on) `text`.
inline std::unique_ptr<Run> run(const std::string &text, bool elaborate_too = true) {
  auto r = std::make_unique<Run>();
  r->file.name = "t.stp";
  r->file.text = text;
  r->script = parse_script(r->file, r->diags);
  std::string err;
  load_tapsets(*r->script, {std::string(XTAP_SOURCE_DIR) + "/tapsets"}, r->diags, nullptr, &err);
  if (r->diags.has_errors()) return r;
  if (!elaborate_too) {
    r->ok = true;
    return r;
  }
  r->ok = elaborate(*r->script, r->env, r->elab, r->diags);
  return r;
}

}  // namespace xtap::test
