#include "frontend_entry.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "diag/diagnostics.h"
#include "parse/parser.h"
#include "parse/preprocess.h"
#include "parse/tapsets.h"
#include "passes/passes.h"
#include "test_catalog.h"

namespace xtap::fuzz {
namespace {

std::string tapset_dir() { return std::string(XTAP_SOURCE_DIR) + "/tapsets"; }

// The target a fuzzed script is checked against: the language suites'
// kernel (tests/unit/lang_suite_test.cpp), x86_64 with kprobes.
PreprocessContext base_context() {
  PreprocessContext ctx;
  ctx.kernel_release = "6.1.0-56-cloud-amd64";
  ctx.arch = "x86_64";
  ctx.kconfig = {{"CONFIG_KPROBES", "y"}, {"CONFIG_KRETPROBES", "y"}, {"CONFIG_SMP", "y"},
                 {"CONFIG_HZ", "250"},    {"CONFIG_MODULES", "y"},    {"CONFIG_EXT4_FS", "m"}};
  ctx.args = {"1", "two"};  // $1 and @2 resolve, as with `xtap script.stp 1 two`
  return ctx;
}

const ProbeEnv &probe_env() {
  static ProbeEnv env = [] {
    ProbeEnv e = test::test_probe_env();
    // process("PATH") probes read PATH: point them into a directory that
    // does not exist, so that fuzzed paths (/dev/zero, a FIFO) read nothing.
    e.sysroot = "/nonexistent/xtap-fuzz-sysroot";
    return e;
  }();
  return env;
}

// The tapsets' macros (.stpm), read once: their files must outlive the
// tokens that every script's context copies.
const PreprocessContext &context_with_macros() {
  static std::vector<std::unique_ptr<SourceFile>> files;
  static PreprocessContext ctx = [] {
    PreprocessContext c = base_context();
    Diagnostics diags;
    std::string err;
    load_macro_files({tapset_dir()}, &c, diags, &files, &err);
    return c;
  }();
  return ctx;
}

// Parsing the 40 tapset files is most of a run's cost (about 30 ms, ten
// times that under AddressSanitizer), so only one script in eight, chosen
// by its bytes (the same script always gets the same mode), is elaborated
// with them; the others go through pass 2 alone, where calls to tapset
// functions are unknown names. Both modes reach every pass.
bool with_tapsets(const std::string &text) { return std::hash<std::string>{}(text) % 8 == 0; }

}  // namespace

FrontendResult run_frontend(const std::string &text, TapsetMode mode) {
  FrontendResult r;
  PreprocessContext ctx = context_with_macros();
  Diagnostics diags;
  std::string err;
  SourceFile file{"fuzz.stp", text};
  auto script = parse_script(file, diags, &ctx, ParseOptions{});
  r.parsed = !diags.has_errors();
  // Pass 2 needs a whole script: one that did not parse stops here, as in xtap.
  bool tapsets = mode == TapsetMode::Always || (mode == TapsetMode::ByInput && with_tapsets(text));
  if (r.parsed && (!tapsets || load_tapsets(*script, {tapset_dir()}, diags, &ctx, &err)) &&
      !diags.has_errors()) {
    Elaborated elab;
    r.elaborated = elaborate(*script, probe_env(), elab, diags);
  }
  r.diagnostics = diags.all().size();
  for (const auto &d : diags.all())
    if (d.severity == Severity::Error) {
      r.first_error = d.code + " " + std::to_string(d.loc.line) + ":" +
                      std::to_string(d.loc.column) + " " + d.message;
      break;
    }
  return r;
}

}  // namespace xtap::fuzz
