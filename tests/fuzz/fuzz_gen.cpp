// The generative fuzzer's driver: scripts from script_gen.h through
// passes 1-3 in process, with three oracles:
//   - no crash, sanitizer report or hang (the process dies: the seed is
//     printed first, `crash seed N`);
//   - pass 1's printer is a fixed point: print(parse(print(parse(s)))) ==
//     print(parse(s)) (`finding roundtrip seed N`);
//   - what pass 2 accepts, pass 3 turns into C (and, with --emit, batches
//     of accepted scripts are written for pass 4: scripts/fuzz_p4.py).
//
//   xtap_fuzz_gen --seed S --count N [--tapsets-every K] [--emit DIR --batch B]
//   xtap_fuzz_gen --print SEED [--tapsets]      # the script of one seed
//   xtap_fuzz_gen --file F                      # one script through the oracles
//
// Last line: `fuzz-gen: N scripts, N parsed, N accepted, N findings`; exit
// status 1 on a finding.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/module.h"
#include "diag/diagnostics.h"
#include "parse/parser.h"
#include "parse/preprocess.h"
#include "parse/printer.h"
#include "parse/tapsets.h"
#include "passes/passes.h"
#include "script_gen.h"
#include "test_catalog.h"

namespace xtap::fuzz {
namespace {

std::string tapset_dir() { return std::string(XTAP_SOURCE_DIR) + "/tapsets"; }

// The target, as the libFuzzer target's (frontend_entry.cpp), with the
// host's files for process("/bin/sh").
const PreprocessContext &context() {
  static std::vector<std::unique_ptr<SourceFile>> files;
  static PreprocessContext ctx = [] {
    PreprocessContext c;
    c.kernel_release = "6.1.0-56-cloud-amd64";
    c.arch = "x86_64";
    c.kconfig = {{"CONFIG_KPROBES", "y"},
                 {"CONFIG_KRETPROBES", "y"},
                 {"CONFIG_SMP", "y"},
                 {"CONFIG_HZ", "250"},
                 {"CONFIG_MODULES", "y"}};
    c.args = {"1", "two"};
    Diagnostics diags;
    std::string err;
    load_macro_files({tapset_dir()}, &c, diags, &files, &err);
    return c;
  }();
  return ctx;
}

struct Outcome {
  bool parsed = false, accepted = false, roundtrip_ok = true;
  std::string first_error, roundtrip_diff;
};

bool verbose_errors = false;

std::string first_error(const Diagnostics &d) {
  for (const auto &x : d.all())
    if (x.severity == Severity::Error)
      return x.code + (verbose_errors ? " " + std::to_string(x.loc.line) + ":" + x.message : "");
  return "";
}

// Pass 1 again over what the printer wrote: it must parse and print the same.
bool check_roundtrip(const std::string &printed, std::string *diff) {
  PreprocessContext ctx = context();
  Diagnostics diags;
  SourceFile file{"printed.stp", printed};
  auto again = parse_script(file, diags, &ctx, ParseOptions{});
  if (diags.has_errors()) {
    *diff = "the printed script does not parse: " + first_error(diags) + "\n" + printed;
    return false;
  }
  std::string second = print_script(*again);
  if (second != printed) {
    *diff = "--- first print\n" + printed + "--- second print\n" + second;
    return false;
  }
  return true;
}

Outcome run_one(const std::string &text, bool tapsets) {
  Outcome r;
  PreprocessContext ctx = context();
  Diagnostics diags;
  std::string err;
  SourceFile file{"gen.stp", text};
  auto script = parse_script(file, diags, &ctx, ParseOptions{});
  r.parsed = !diags.has_errors();
  if (!r.parsed) {
    r.first_error = first_error(diags);
    return r;
  }
  r.roundtrip_ok = check_roundtrip(print_script(*script), &r.roundtrip_diff);
  static ProbeEnv env = test::test_probe_env();
  if (tapsets && !load_tapsets(*script, {tapset_dir()}, diags, &ctx, &err)) return r;
  Elaborated elab;
  if (diags.has_errors() || !elaborate(*script, env, elab, diags)) {
    r.first_error = first_error(diags);
    return r;
  }
  r.accepted = true;
  ModuleOptions mo;
  mo.script_name = "gen.stp";
  std::string c = emit_module(*script, elab, mo);
  if (c.empty()) r.first_error = "empty C";
  return r;
}

// The seed being run, for the crash report.
volatile uint64_t g_seed = 0;
volatile bool g_seed_set = false;

void print_seed() {
  if (!g_seed_set) return;
  char buf[64];
  int n = snprintf(buf, sizeof buf, "\ncrash seed %llu\n", (unsigned long long)g_seed);
  if (write(2, buf, n) < 0) {
  }
}

void on_signal(int sig) {
  print_seed();
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace
}  // namespace xtap::fuzz

extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

int main(int argc, char **argv) {
  using namespace xtap::fuzz;
  uint64_t seed = 1, count = 1000;
  unsigned tapsets_every = 16, batch = 50;
  std::string emit_dir, file, print_seed_arg;
  bool print_tapsets = false, verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--seed") seed = std::stoull(val());
    else if (a == "--count") count = std::stoull(val());
    else if (a == "--tapsets-every") tapsets_every = std::stoul(val());
    else if (a == "--emit") emit_dir = val();
    else if (a == "--batch") batch = std::stoul(val());
    else if (a == "--print") print_seed_arg = val();
    else if (a == "--tapsets") print_tapsets = true;
    else if (a == "--file") file = val();
    else if (a == "-v") verbose = true;
    else {
      std::cerr << "usage: xtap_fuzz_gen --seed S --count N [--tapsets-every K] [--emit DIR "
                   "--batch B] | --print SEED [--tapsets] | --file F\n";
      return 2;
    }
  }
  if (!print_seed_arg.empty()) {
    GenOptions o;
    o.tapsets = print_tapsets;
    std::cout << generate_script(std::stoull(print_seed_arg), o);
    return 0;
  }
  if (&__sanitizer_set_death_callback) __sanitizer_set_death_callback(print_seed);
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) signal(sig, on_signal);
  if (!file.empty()) {
    verbose_errors = true;
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    Outcome r = run_one(ss.str(), true);
    std::cout << "parsed " << r.parsed << " accepted " << r.accepted << " error " << r.first_error
              << "\n";
    if (!r.roundtrip_ok) std::cout << "finding roundtrip\n" << r.roundtrip_diff;
    return r.roundtrip_ok ? 0 : 1;
  }
  uint64_t parsed = 0, accepted = 0, findings = 0, batch_n = 0, in_batch = 0;
  std::map<std::string, uint64_t> errors;
  std::ofstream batch_out;
  auto start = std::chrono::steady_clock::now();
  for (uint64_t s = seed; s < seed + count; ++s) {
    GenOptions o;
    o.tapsets = tapsets_every && s % tapsets_every == 0;
    if (!emit_dir.empty()) o.prefix = "z" + std::to_string(s) + "_";
    std::string text = generate_script(s, o);
    g_seed = s;
    g_seed_set = true;
    Outcome r = run_one(text, o.tapsets);
    parsed += r.parsed;
    accepted += r.accepted;
    if (!r.accepted && ++errors[r.first_error.empty() ? "?" : r.first_error] == 1 && verbose)
      std::cout << "first " << r.first_error << ": seed " << s << "\n";
    if (!r.roundtrip_ok) {
      ++findings;
      std::cout << "finding roundtrip seed " << s << (o.tapsets ? " tapsets" : "") << "\n";
      if (verbose) std::cout << r.roundtrip_diff << "\n";
    }
    if (r.accepted && !emit_dir.empty()) {
      if (in_batch == 0) batch_out.open(emit_dir + "/batch" + std::to_string(batch_n++) + ".stp");
      batch_out << "# seed " << s << (o.tapsets ? " tapsets" : "") << "\n" << text;
      if (++in_batch == batch) {
        batch_out.close();
        in_batch = 0;
      }
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (verbose)
    for (const auto &[code, n] : errors) std::cout << "  rejected " << code << ": " << n << "\n";
  std::cout << "fuzz-gen: " << count << " scripts, " << parsed << " parsed, " << accepted
            << " accepted, " << findings << " findings, "
            << static_cast<uint64_t>(count / (secs > 0 ? secs : 1)) << " scripts/s\n";
  return findings ? 1 : 0;
}
