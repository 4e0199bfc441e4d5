// stap's options that xtap takes for scripts and #! lines written for stap:
// those that map onto xtap (-W, --compatible, --skip-badvars, -E, --vp ...),
// those accepted because xtap already behaves so, and those refused with
// the reason. docs/cli.md, "Options from stap", is the reference.
#include "xtap/options_stap.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <sstream>

namespace xtap::cli {

namespace {
// Not in --help, which stays short: its footer names them, docs/cli.md
// describes each.
const char *const kStap = "";

// "4.8" from "4.8", "1.0", "2.3.1": false for what is not a dotted number.
bool parse_version(const std::string &v, std::vector<int> *parts) {
  if (v.empty()) return false;
  std::stringstream in(v);
  std::string part;
  while (std::getline(in, part, '.')) {
    if (part.empty() || part.size() > 6 || !std::all_of(part.begin(), part.end(), ::isdigit))
      return false;
    parts->push_back(std::stoi(part));
  }
  return !v.ends_with(".");
}
}  // namespace

void add_stap_options(CLI::App &app, Options *o, StapOptions *s) {
  app.add_flag("-W", o->warnings_as_errors,
               "turn warnings into errors (-w, which drops them, wins)")
      ->group(kStap);
  app.add_option(
         "--compatible", o->compat_version,
         "follow stap VERSION (at most 4.8): systemtap_v in %( %) and STAP_COMPAT_VERSION in C")
      ->type_name("VERSION")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->group(kStap);
  app.add_flag("--skip-badvars", o->skip_badvars,
               "a $var the probe point does not have reads as 0 (warning XTP2249)")
      ->group(kStap);
  app.add_flag("--semantic-keep-going", s->accepted,
               "report every error of pass 2 (xtap always does)")
      ->group(kStap);
  app.add_option("-E", o->extra_scripts, "run SCRIPT too, after the main script or -e")
      ->type_name("SCRIPT")
      ->allow_extra_args(false)
      ->group(kStap);
  app.add_option("--vp", s->per_pass_verbosity,
                 "per-pass verbosity: -v as many times as the largest digit")
      ->type_name("NNNNN")
      ->group(kStap);
  app.add_option("--runtime", s->runtime, "kernel: the only runtime xtap has")
      ->type_name("kernel")
      ->group(kStap);
  app.add_flag("--bpf", s->bpf, "refused: xtap builds kernel modules")->group(kStap);
  app.add_option("--privilege", s->privilege, "stapdev (the only level: xtap runs as root)")
      ->type_name("stapdev")
      ->group(kStap);
  app.add_flag("--unprivileged", s->unprivileged, "refused: xtap has no unprivileged mode")
      ->group(kStap);
  app.add_option("-a", s->arch, "x86_64: the only architecture xtap builds for")
      ->type_name("ARCH")
      ->group(kStap);
  app.add_flag("-P", s->accepted,
               "prologue searching (accepted: parameters are read at function entry)")
      ->group(kStap);
  app.add_option("--prologue-searching", s->prologue, "as -P")
      ->expected(0, 1)
      ->type_name("WHEN")
      ->group(kStap);
  app.add_flag("--disable-cache,--poison-cache", s->accepted,
               "accepted: the module cache is keyed by the generated C and the kernel, so a hit is "
               "what a build "
               "would make (--clean-cache empties it)")
      ->group(kStap);
  app.add_option("--color,--colour", s->color, "accepted: xtap's messages are plain text")
      ->expected(0, 1)
      ->type_name("WHEN")
      ->group(kStap);
  app.add_flag("--check-version", s->accepted,
               "accepted: xtap follows one stap version (--compatible)")
      ->group(kStap);
  app.add_flag("--save-uprobes", s->accepted, "accepted: xtap uses the kernel's own uprobes")
      ->group(kStap);
  app.add_option("--tmpdir", s->tmpdir, "accepted: xtap's build directories are under its cache")
      ->type_name("DIR")
      ->group(kStap);
  app.add_flag("--suppress-handler-errors", s->suppress_handler_errors,
               "refused: run-time errors are reported")
      ->group(kStap);
  app.add_option("-B", s->kbuild_options, "refused: xtap runs kbuild itself")
      ->type_name("NAME=VALUE")
      ->group(kStap);
  app.add_option("-R", s->runtime_dir, "refused: xtap's runtime is its own")
      ->type_name("DIR")
      ->group(kStap);
  app.add_option("--modinfo", s->modinfo, "refused")->type_name("NAME=VALUE")->group(kStap);
  app.add_option("-U,--use-server", s->server,
                 "refused: xtap builds here, or for a host with --remote")
      ->expected(0, 1)
      ->type_name("SERVER")
      ->group(kStap);
  app.add_option("--list-servers,--trust-servers,--use-server-on-error", s->server,
                 "refused: no compile servers")
      ->expected(0, 1)
      ->group(kStap);
  app.add_option("--download-debuginfo", s->download_debuginfo, "refused: install the -dbg package")
      ->expected(0, 1)
      ->group(kStap);
  app.add_option("--sysenv", s->sysenv, "refused")->type_name("VAR=VALUE")->group(kStap);
  app.add_option("--target-namespace", s->target_namespace, "refused")
      ->type_name("PID")
      ->group(kStap);
}

std::string apply_stap_options(const CLI::App &app, Options *o, const StapOptions &s) {
  auto given = [&](const char *name) { return app.get_option(name)->count() > 0; };
  std::vector<int> v;
  if (!parse_version(o->compat_version, &v))
    return "--compatible=" + o->compat_version + ": give a stap version, as in --compatible=4.0";
  if (v > std::vector<int>{4, 8})
    return "--compatible=" + o->compat_version +
           ": xtap follows stap 4.8 and cannot be compatible with a later version";
  for (const auto &d : s.per_pass_verbosity)
    for (char ch : d) {
      if (!isdigit(static_cast<unsigned char>(ch)))
        return "--vp takes digits, one a pass, as in --vp 00200";
      o->verbose = std::max(o->verbose, ch - '0');
    }
  if (!s.runtime.empty() && s.runtime != "kernel")
    return "--runtime=" + s.runtime +
           ": xtap has only the kernel-module runtime (--runtime=kernel)";
  if (s.bpf) return "--bpf: xtap has only the kernel-module runtime; bpftrace runs eBPF";
  if (s.unprivileged || (!s.privilege.empty() && s.privilege != "stapdev"))
    return (s.unprivileged ? std::string("--unprivileged") : "--privilege=" + s.privilege) +
           ": xtap has no unprivileged mode (its modules are loaded by root, as stapdev's are)";
  if (!s.arch.empty() && s.arch != "x86_64" && s.arch != "x86")
    return "-a " + s.arch + ": xtap builds for x86_64 only";
  if (!s.prologue.empty() && s.prologue != "yes" && s.prologue != "no" && s.prologue != "never" &&
      s.prologue != "always" && s.prologue != "auto")
    return "--prologue-searching=" + s.prologue + ": give yes, no, auto, always or never";
  if (s.suppress_handler_errors)
    return "--suppress-handler-errors: not supported; xtap reports each run-time error (catch them "
           "with "
           "try { } catch { } in the script)";
  if (!s.kbuild_options.empty())
    return "-B " + s.kbuild_options.front() +
           ": xtap runs kbuild itself; set C macros with -D NAME=VALUE";
  if (!s.runtime_dir.empty()) return "-R: xtap's kernel runtime is its own, not stap's";
  if (!s.modinfo.empty()) return "--modinfo: not supported";
  for (const char *opt :
       {"--use-server", "--list-servers", "--trust-servers", "--use-server-on-error"})
    if (given(opt))
      return std::string(opt) +
             ": xtap has no compile servers; it builds for another kernel with -r RELEASE, or "
             "builds here and "
             "runs on a host with --remote ssh://HOST";
  if (given("--download-debuginfo"))
    return "--download-debuginfo: install the kernel's -dbg package instead";
  if (!s.sysenv.empty()) return "--sysenv: not supported";
  if (!s.target_namespace.empty()) return "--target-namespace: not supported";
  return "";
}

std::string several_options_in_one(int argc, char **argv) {
  // The kernel passes everything after the interpreter of a #! line as
  // argv[1]: "#!/usr/bin/xtap -p2 -g" gives "-p2 -g".
  if (argc < 2) return "";
  std::string a = argv[1];
  if (a.size() > 1 && a[0] == '-' && a[1] != '-' && a.find(" -") != std::string::npos) return a;
  return "";
}

}  // namespace xtap::cli
