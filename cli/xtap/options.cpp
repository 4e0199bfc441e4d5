#include "xtap/options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <regex>

#include "diag/diagnostics.h"
#include "monitor/view.h"
#include "xtap/options_stap.h"

namespace xtap::cli {

namespace {
// Short value names in --help ("-p N", not "-p INT:INT in [1 - 5]"); the
// checks still say what is wrong with a value.
CLI::Option *label(CLI::Option *opt, const std::string &name) { return opt->type_name(name); }

// stap reads its options with getopt: a single-valued option given twice
// takes the last value (-o a -o b writes b), as -p does.
CLI::Option *last_wins(CLI::Option *opt) {
  return opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

const char *const kScript = "Script";
const char *const kBuild = "Translating and building";
const char *const kRun = "Running";
const char *const kInfo = "Listing and information";
const char *const kFlame = "Flame graphs";
}  // namespace

std::string unknown_option(int argc, char **argv, const std::vector<std::string> &known,
                           const std::vector<std::string> &short_flags) {
  auto is_known = [&](const std::string &name) {
    return std::find(known.begin(), known.end(), name) != known.end();
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;  // the rest are the script's
    if (a.size() < 2 || a[0] != '-') continue;
    if (a.compare(0, 2, "--") == 0) {
      std::string name = a.substr(0, a.find('='));
      if (!is_known(name)) return name;
    } else if (!is_known(a.substr(0, 2))) {
      return a;
    } else {
      // -wW: flags together, as getopt takes them, up to one that takes a
      // value (-vp2: the rest is -p's value).
      for (size_t j = 1; j < a.size(); ++j) {
        std::string opt = std::string("-") + a[j];
        if (!is_known(opt)) return opt;
        if (std::find(short_flags.begin(), short_flags.end(), opt) == short_flags.end()) break;
      }
    }
  }
  return "";
}

std::string option_suggestion(const std::string &arg, const std::vector<std::string> &known) {
  // "-z" is one letter away from every short option: no suggestion helps.
  if (arg.size() <= 2) return "";
  // Compare spellings without their dashes, so that -help finds --help.
  std::string bare = arg.substr(arg.find_first_not_of('-'));
  std::vector<std::string> bare_known;
  bare_known.reserve(known.size());
  for (const auto &k : known) bare_known.push_back(k.substr(k.find_first_not_of('-')));
  std::string best = closest_match(bare, bare_known);
  if (best.empty()) return "";
  for (const auto &k : known)
    if (k.substr(k.find_first_not_of('-')) == best) return "did you mean " + k + "?";
  return "";
}

namespace {

// What the command line says that is not an Options field as it stands:
// read by CLI11, then interpreted (interpret()).
struct CommandLine {
  std::vector<std::string> positionals;  // the script file, then its arguments
  std::vector<std::string> releases, kernel_list;
  std::string format = "text";
  std::string list_l, list_L;
  bool dump_types = false, dump_aliases = false, dump_functions = false;
  std::string monitor;  // --monitor[=SECONDS]: "true" for the bare flag
  StapOptions stap;
};

// The script and what it may use: -e, -g, -u, -w, -G, -I, --sysroot, --debuginfo, -d, --ldd.
void add_script_options(CLI::App &app, Options *o, CommandLine *cl) {
  label(app.add_option("script", cl->positionals,
                       "script file ('-' for standard input), then its arguments"),
        "SCRIPT ARGS");
  label(
      app.add_option("-e", o->script_text, "the script, given on the command line")->group(kScript),
      "SCRIPT");
  app.add_flag("-g", o->guru, "guru mode: allow embedded C (%{ %}) in the script")->group(kScript);
  app.add_flag("-u", o->keep_unused, "keep unused code (no elision, no unused warnings)")
      ->group(kScript);
  app.add_flag("-w", o->no_warnings, "suppress warnings")->group(kScript);
  // One value per flag, as -D: `-I DIR script.stp` must not take the script.
  label(app.add_option("-G", o->global_sets, "set a global's initial value, as in -G limit=10")
            ->allow_extra_args(false)
            ->group(kScript),
        "NAME=VALUE");
  label(app.add_option("-I", o->include_dirs, "also load tapsets from DIR")
            ->allow_extra_args(false)
            ->group(kScript),
        "DIR");
  label(
      last_wins(app.add_option(
                    "--sysroot", o->sysroot,
                    "read process(\"PATH\") programs as DIR/PATH on this machine (probed as PATH)"))
          ->group(kScript),
      "DIR");
  label(
      app.add_option("--debuginfo", o->debuginfo,
                     "DWARF debuginfo: a vmlinux or module .ko file, or a directory searched first")
          ->allow_extra_args(false)
          ->group(kScript),
      "PATH");
  // stap's symbol-table options. xtap symbolises kernel addresses from
  // /proc/kallsyms at run time, which covers every loaded module, so kernel
  // module names and --all-modules change nothing; -d FILE and --ldd add
  // user-space symbol tables (codegen/user_symbols.h).
  label(app.add_option(
               "-d", o->symbol_modules,
               "user-space symbols of program or library FILE (a kernel MODULE: kallsyms has it)")
            ->allow_extra_args(false)
            ->group(kScript),
        "FILE");
  app.add_flag("--all-modules", o->all_modules, "symbol data for all loaded modules (accepted)")
      ->group(kScript);
  app.add_flag("--ldd", o->ldd,
               "user-space symbols of the shared libraries the named programs need")
      ->group(kScript);
}

// Passes 3-4: -p, -m, -r, --kernels, signing, -k, -v, -D, -s, -t, the caches.
void add_build_options(CLI::App &app, Options *o, CommandLine *cl) {
  label(app.add_option(
               "-p", o->last_pass,
               "stop after pass N: 1 parse, 2 elaborate, 3 translate (print C), 4 build, 5 run")
            ->check(CLI::Range(1, 5).description(""))
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)  // stap: the last -p wins
            ->group(kBuild),
        "N");
  label(last_wins(app.add_option("-m", o->module_name, "module name (a C identifier)"))
            ->group(kBuild),
        "NAME");
  label(app.add_option("-r", cl->releases,
                       "target kernel release or build directory (default: running kernel); "
                       "several -r build a bundle")
            ->allow_extra_args(false)
            ->group(kBuild),
        "KVER|DIR");
  label(app.add_option("--kernels", cl->kernel_list,
                       "build a bundle of modules for these kernel releases (comma-separated), "
                       "with -p4 -o DIR")
            ->delimiter(',')
            ->allow_extra_args(false)
            ->group(kBuild),
        "KVER,...");
  label(app.add_option("--sign-key", o->sign_key, "sign the module(s) with this private key (PEM)")
            ->group(kBuild),
        "KEY");
  label(
      app.add_option("--sign-cert", o->sign_cert, "the X.509 certificate that goes with --sign-key")
          ->group(kBuild),
      "CERT");
  app.add_flag("-k", o->keep, "keep the module build directory")->group(kBuild);
  app.add_flag("-v", o->verbose, "verbose: show pass timings and build commands (repeat for more)")
      ->group(kBuild);
  label(app.add_option("-D", o->defines, "set a limit, as in -D MAXACTION=10000")
            ->allow_extra_args(false)
            ->group(kBuild),
        "NAME=VALUE");
  label(last_wins(app.add_option(
                      "-s", o->buffer_mb,
                      "output buffer of MB megabytes per CPU (default 16, cut to fit free memory)"))
            ->check(CLI::Range(1, 256).description(""))
            ->group(kBuild),
        "MB");
  app.add_flag("-t", o->timing,
               "report each probe's hits and handler cycles at the end (stap's probe hit report)")
      ->group(kBuild);
  app.add_flag("--suppress-time-limits", o->suppress_time_limits,
               "lift MAXACTION and MAXTRYLOCK to their maxima (needs -g, as in stap)")
      ->group(kBuild);
  app.add_flag("--clean-cache", o->clean_cache,
               "remove the cached script modules and stale build directories, print what was freed "
               "(runtimes, catalogs, BTF stay); XTAP_CACHE_MAX_MB caps the modules (default 1024)")
      ->group(kBuild);
}

// Pass 5: -c, -x, -o, -S, -b, -F, -T, --format, -q, --cleanup, --vm, --remote.
void add_run_options(CLI::App &app, Options *o, CommandLine *cl) {
  label(last_wins(app.add_option("-c", o->command, "run CMD during the session; end when it exits"))
            ->group(kRun),
        "CMD");
  label(
      last_wins(app.add_option("-x", o->target_pid, "target process id for target()"))->group(kRun),
      "PID");
  label(last_wins(app.add_option("-o", o->output_file, "write the script's output to FILE"))
            ->group(kRun),
        "FILE");
  last_wins(app.add_option("-S", o->switch_spec,
                           "with -o FILE: write FILE.0, FILE.1 ..., the next every SIZE MB and at "
                           "switch_file(), keep N"))
      ->type_name("SIZE[,N]")
      ->check(CLI::Validator(
          [](std::string &v) {
            static const std::regex spec(R"(\d{1,7}(,[1-9]\d{0,5})?)");
            return std::regex_match(v, spec)
                       ? std::string()
                       : "use -S SIZE[,N]: megabytes per file (0: only at switch_file()), "
                         "and how many files to keep";
          },
          ""))
      ->group(kRun);
  app.add_flag("-b", o->bulk,
               "bulk mode: each CPU's output to its own file, FILE_cpuN (stpd_cpuN without -o)")
      ->group(kRun);
  app.add_flag(
         "-F", o->flight,
         "flight-recorder mode: without -o, leave the module running detached with its newest "
         "output "
         "in memory (xtap-run -A NAME prints it and stops it); with -o, collect in the background")
      ->group(kRun);
  label(last_wins(app.add_option("-T", o->timeout_s, "end the session after N seconds"))
            ->check(CLI::Validator(CLI::NonNegativeNumber).description(""))
            ->group(kRun),
        "SECS");
  label(last_wins(app.add_option("--format", cl->format,
                                 "text (default), or json: one JSON object a line for output, "
                                 "warnings, errors, the end "
                                 "summary, and -l/-L"))
            ->check(CLI::IsMember({"text", "json"}).description(""))
            ->group(kRun),
        "text|json");
  app.add_flag("-q", o->quiet,
               "quiet: no progress or informational notes (warnings still show; -w drops them)")
      ->group(kRun);
  app.add_flag(
         "--cleanup", o->cleanup,
         "stop and remove xtap modules left behind by a collector that died (xtap-run --cleanup)")
      ->group(kRun);
  app.add_flag("--vm", o->vm, "run in a throwaway QEMU VM of an installed Debian kernel")
      ->group(kRun);
  label(last_wins(app.add_option("--prometheus", o->prometheus,
                                 "serve the script's globals and the probe counters as Prometheus "
                                 "metrics on http://ADDR:PORT/metrics while it runs"))
            ->group(kRun),
        "ADDR:PORT");
  // A flag with an optional =VALUE: `--monitor s.stp` must not take the script.
  label(app.add_flag("--monitor", cl->monitor,
                     "a live view on the terminal, refreshed every SECONDS (1): probe hits and "
                     "times, globals, the output; keys s, p, r, q (implies -t)")
            ->group(kRun),
        "[=SECONDS]");
  label(last_wins(app.add_option("--vm-cpus", o->vm_cpus, "CPUs of the --vm guest"))
            ->check(CLI::Range(1, 16).description(""))
            ->group(kRun),
        "N");
  label(last_wins(app.add_option("--vm-memory", o->vm_memory_mb, "memory of the --vm guest, MiB"))
            ->check(CLI::Range(256, 16384).description(""))
            ->group(kRun),
        "MIB");
  label(app.add_option(
               "--remote", o->remotes,
               "build for HOST's kernel here, run it there over ssh and stream the output back; "
               "repeat for several hosts at once")
            ->allow_extra_args(false)
            ->group(kRun),
        "ssh://[USER@]HOST[:PORT]");
  label(app.add_option("--ssh-option", o->ssh_options,
                       "pass -o OPT to ssh for --remote (as in IdentityFile=KEY)")
            ->allow_extra_args(false)
            ->group(kRun),
        "OPT");
  app.add_flag("--merge", o->merge,
               "the fleet view: the globals of every --remote host merged into one (counts, "
               "histograms, percentiles add; --per-host adds each host's share); without "
               "--remote, of the aggregates files (xtap-run --aggregates) given as FILE|DIR...")
      ->group(kRun);
  // Described under --merge: the help stays within a screen.
  app.add_flag("--per-host", o->per_host, "with --merge: each host's share under each value")
      ->group("");
}

// -l, -L and the dumps.
void add_info_options(CLI::App &app, Options *o, CommandLine *cl) {
  label(last_wins(app.add_option(
                      "-l", cl->list_l,
                      "list the probe points matching PROBE, as in -l 'kernel.trace(\"sched:*\")'"))
            ->group(kInfo),
        "PROBE");
  label(last_wins(app.add_option("-L", cl->list_L,
                                 "as -l, with each point's context variables and their types"))
            ->group(kInfo),
        "PROBE");
  app.add_flag("--check", o->check,
               "preflight: passes 1-2 on each kernel of -r/--kernels, a table of which probe "
               "points resolve where (docs/cli.md)")
      ->group(kInfo);
  label(app.add_option("--kernels-from", o->kernels_from,
                       "with --check: the kernels of a bundle (its directory or manifest.json) or "
                       "of a file with one release a line")
            ->group(kInfo),
        "BUNDLE|FILE");
  app.add_flag("--dump-probe-types", cl->dump_types, "list the probe point families xtap supports")
      ->group(kInfo);
  app.add_flag("--dump-probe-aliases", cl->dump_aliases, "list the probe aliases of the tapsets")
      ->group(kInfo);
  app.add_flag("--dump-functions", cl->dump_functions,
               "list the tapset functions with their signatures")
      ->group(kInfo);
}

// --folded, --flamegraph and their companions.
void add_flame_options(CLI::App &app, Options *o, CommandLine *cl) {
  label(last_wins(app.add_option("--folded", o->folded_file,
                                 "write the stacks the script prints (folded lines or "
                                 "print_stack() blocks with counts) "
                                 "as folded stacks to FILE ('-': standard output)"))
            ->group(kFlame),
        "FILE");
  label(last_wins(app.add_option("--flamegraph", o->flamegraph_file,
                                 "draw those stacks as an interactive SVG flame graph in FILE"))
            ->group(kFlame),
        "FILE.svg");
  label(last_wins(app.add_option("--flame-title", o->flame_title, "the flame graph's title"))
            ->group(kFlame),
        "TEXT");
  label(last_wins(app.add_option("--from-stacks", o->from_stacks,
                                 "run no script: read the stacks from FILE (a saved output or "
                                 "folded file; '-': standard input)"))
            ->group(kFlame),
        "FILE");
}

// Every spelling the app knows, and the short ones that take no value.
void known_options(const CLI::App &app, std::vector<std::string> *known,
                   std::vector<std::string> *short_flags) {
  for (const CLI::Option *opt : app.get_options()) {
    for (const auto &n : opt->get_lnames()) known->push_back("--" + n);
    for (const auto &n : opt->get_snames()) {
      known->push_back("-" + n);
      if (opt->get_expected_max() == 0 || opt->get_type_size_max() == 0)
        short_flags->push_back("-" + n);
    }
  }
}

// What CLI11 would word badly, said before it parses: several options in
// one argument (a #! line's) and unknown options; "" when neither.
std::string refuse_before_parsing(const CLI::App &app, int argc, char **argv) {
  if (std::string several = several_options_in_one(argc, argv); !several.empty())
    return "'" + several +
           "' is several options in one argument, as a #! line passes them\n"
           "  hint: the kernel gives everything after a #! line's interpreter as one argument: "
           "keep one option there (#!/usr/bin/xtap -g), or split them with #!/usr/bin/env -S "
           "xtap -p2 -g";
  std::vector<std::string> known, short_flags;
  known_options(app, &known, &short_flags);
  if (std::string bad = unknown_option(argc, argv, known, short_flags); !bad.empty()) {
    std::string hint = option_suggestion(bad, known);
    return "unknown option '" + bad +
           "'\n  hint: " + (hint.empty() ? "see xtap --help for the options" : hint);
  }
  return "";
}

// The script and its arguments, and the kernels: one -r is an ordinary
// build for that kernel, more (or --kernels) a bundle.
void interpret(CommandLine &cl, Options *o) {
  o->json = cl.format == "json";
  if (!cl.monitor.empty()) {
    // A bad value is refused by option_conflict (monitor_s stays -1).
    auto every = monitor::parse_interval(cl.monitor == "true" ? "" : cl.monitor);
    o->monitor_s = every ? *every : -1;
    o->timing = true;  // per-probe hits and handler times, as stap --monitor
  }
  // Options after the script belong to the script: xtap s.stp -x 1 is fine,
  // but its arguments are positionals.
  if (o->script_text.empty() && !cl.positionals.empty()) {
    o->script_file = cl.positionals.front();
    cl.positionals.erase(cl.positionals.begin());
  }
  o->script_args = cl.positionals;
  for (const auto &r : cl.releases)
    if (std::find(o->kernels.begin(), o->kernels.end(), r) == o->kernels.end())
      o->kernels.push_back(r);
  for (const auto &r : cl.kernel_list)
    if (!r.empty() && std::find(o->kernels.begin(), o->kernels.end(), r) == o->kernels.end())
      o->kernels.push_back(r);
  if (o->kernels.size() == 1 && cl.kernel_list.empty()) {
    o->kernel = o->kernels.front();
    o->kernels.clear();
  }
}

// --folded/--flamegraph/--from-stacks against the rest; "" when they fit.
std::string flame_conflict(const Options &o) {
  bool flame = !o.folded_file.empty() || !o.flamegraph_file.empty();
  if (!o.from_stacks.empty() && !flame)
    return "--from-stacks needs --folded FILE or --flamegraph FILE";
  if (!o.from_stacks.empty() && (!o.script_file.empty() || !o.script_text.empty()))
    return "--from-stacks reads stacks instead of running a script: give one or the other";
  if (flame && !o.switch_spec.empty())
    return "--folded and --flamegraph read one output stream: drop -S";
  if (flame && o.json) return "--folded and --flamegraph read text output: drop --format json";
  if (flame && o.from_stacks.empty() && o.last_pass != 5)
    return "--folded and --flamegraph need the session's output: drop -p " +
           std::to_string(o.last_pass);
  if (flame && !o.kernels.empty())
    return "--folded and --flamegraph need a run, not a bundle build";
  if (flame && !o.remotes.empty())
    return "--folded and --flamegraph do not read --remote output yet: save it with -o FILE, "
           "then xtap --from-stacks FILE --flamegraph OUT.svg";
  if (o.folded_file == "-" && o.flamegraph_file == "-")
    return "--folded - and --flamegraph - would both write to standard output";
  return "";
}

// --remote (or --ssh-option without it) against the rest.
std::string remote_conflict(const Options &o) {
  if (o.remotes.empty())
    return o.ssh_options.empty() ? ""
                                 : "--ssh-option applies to --remote hosts; add --remote "
                                   "ssh://[USER@]HOST[:PORT]";
  std::string why;
  if (o.vm) why = "--vm runs in a local VM; give either --vm or --remote";
  else if (!o.kernels.empty() || !o.kernel.empty())
    why = "the hosts' kernels are asked for: drop -r/--kernels";
  else if (o.last_pass != 5)
    why = "it runs the script on the hosts: drop -p" + std::to_string(o.last_pass) +
          " (to build for a host's kernel here, use -p4 -r ITS_RELEASE)";
  else if (!o.switch_spec.empty())
    why = "-S switches files on this machine; the hosts' output comes back as a stream";
  else if (o.monitor_s)
    why = "--monitor is not drawn from remote hosts yet: run xtap-run --monitor there (ssh -t)";
  return why.empty() ? "" : "--remote: " + why;
}

// --merge against the rest; "" when they fit.
std::string merge_conflict(const Options &o) {
  if (!o.merge)
    return o.per_host ? "--per-host shows each host's share of --merge: add --merge" : "";
  std::string why;
  if (!o.remotes.empty()) {
    if (o.flight) why = "-F leaves the modules running: nothing to merge at the end";
    return why.empty() ? "" : "--merge: " + why;
  }
  if (!o.script_text.empty()) why = "without --remote it reads aggregates files: drop -e";
  else if (o.script_file.empty())
    why = "name the aggregates files or the directories holding them (xtap-run --aggregates)";
  else if (o.last_pass != 5 || o.vm || o.check || !o.kernels.empty())
    why = "without --remote it reads aggregates files and runs nothing";
  return why.empty() ? "" : "--merge: " + why;
}

// --check against the rest: it runs passes 1-2 only, here.
std::string check_conflict(const Options &o) {
  if (!o.check)
    return o.kernels_from.empty() ? "" : "--kernels-from names the kernels of --check: add --check";
  std::string why;
  if (o.last_pass != 5) why = "it runs passes 1-2 itself: drop -p" + std::to_string(o.last_pass);
  else if (o.vm) why = "it runs no module: drop --vm";
  else if (!o.remotes.empty()) why = "it runs here, against kernels' headers: drop --remote";
  else if (!o.list_pattern.empty()) why = "it checks a script: drop -l/-L";
  return why.empty() ? "" : "--check: " + why;
}

// Several kernels (a bundle) against the rest.
std::string bundle_conflict(const Options &o) {
  if (o.kernels.empty() || o.check) return "";
  std::string why;
  if (o.last_pass != 4) why = "a bundle is built here and run elsewhere with xtap-run: add -p4";
  else if (o.output_file.empty()) why = "name the bundle's directory with -o DIR";
  else if (o.vm) why = "--vm runs one kernel; run a bundle's module with xtap-run";
  return why.empty() ? ""
                     : "building for " + std::to_string(o.kernels.size()) +
                           " kernels makes a bundle: " + why;
}

// Options that do not fit together, or a missing script; "" when all is
// well. The modes that need no script (--cleanup, --clean-cache,
// --from-stacks) end the checks early.
std::string option_conflict(const Options &o) {
  if (o.suppress_time_limits && !o.guru)
    return "--suppress-time-limits lets a probe run without bound, so it needs -g (guru mode), "
           "as in stap";
  if (o.cleanup || o.clean_cache) return "";
  if (std::string why = flame_conflict(o); !why.empty()) return why;
  if (!o.from_stacks.empty()) return "";
  if (!o.switch_spec.empty() && (o.output_file.empty() || o.vm))
    return std::string("-S switches output files: it needs -o FILE") +
           (o.vm ? ", and a local run (the --vm guest's output comes back as one stream)" : "");
  if (o.sign_key.empty() != o.sign_cert.empty())
    return "signing needs both --sign-key KEY and --sign-cert CERT";
  if (std::string why = merge_conflict(o); !why.empty()) return why;
  if (o.merge && o.remotes.empty()) return "";
  if (std::string why = check_conflict(o); !why.empty()) return why;
  if (std::string why = remote_conflict(o); !why.empty()) return why;
  if (o.monitor_s < 0) return "--monitor=SECONDS: a number of seconds from 0.1 to 3600";
  if (o.monitor_s > 0 &&
      (o.json || o.flight || !o.folded_file.empty() || !o.flamegraph_file.empty()))
    return "--monitor shows the session on the terminal: not with --format json, -F, "
           "--folded or --flamegraph";
  // QEMU forwards a port of 127.0.0.1 only (cli/vm).
  if (o.vm && !o.prometheus.empty() && o.prometheus.rfind("127.0.0.1:", 0) != 0)
    return "--prometheus " + o.prometheus +
           ": with --vm, the port is forwarded from 127.0.0.1 only: use --prometheus "
           "127.0.0.1:PORT";
  if (std::string why = bundle_conflict(o); !why.empty()) return why;
  if (!o.extra_scripts.empty() && o.script_file.empty() && o.script_text.empty())
    return "-E SCRIPT runs with a main script: give a script file or -e SCRIPT too";
  if (o.script_file.empty() == o.script_text.empty())
    return "give exactly one of a script file or -e SCRIPT (see --help)";
  return "";
}

// Says why the command line is refused; parse_options() returns this.
bool refuse(const std::string &why, int *exit_code) {
  std::cerr << "xtap: " << why << "\n";
  *exit_code = 1;
  return false;
}

}  // namespace

bool parse_options(int argc, char **argv, Options *o, int *exit_code) {
  CLI::App app{
      "xtap: compile a probe script into a kernel module and run it, as stap does.\n"
      "  xtap [OPTIONS] SCRIPT.stp|- [ARGS...]    xtap [OPTIONS] -e 'SCRIPT' [ARGS...]",
      "xtap"};
  app.set_help_flag("-h,--help", "print this help and exit")->group(kInfo);
  app.set_version_flag("-V,--version", XTAP_VERSION, "print the version and exit")->group(kInfo);
  app.get_formatter()->column_width(26);
  CommandLine cl;
  add_script_options(app, o, &cl);
  add_build_options(app, o, &cl);
  add_run_options(app, o, &cl);
  add_info_options(app, o, &cl);
  add_flame_options(app, o, &cl);
  add_stap_options(app, o, &cl.stap);
  app.footer(
      "Also stap's -W (warnings as errors), --compatible=VERSION, --skip-badvars, -E SCRIPT, --vp, "
      "-P ...;\n"
      "the rest of stap's options are accepted or refused with the reason: docs/cli.md, \"Options "
      "from stap\".");
  if (std::string why = refuse_before_parsing(app, argc, argv); !why.empty())
    return refuse(why, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    *exit_code = app.exit(e);
    return false;
  }
  if (std::string why = apply_stap_options(app, o, cl.stap); !why.empty())
    return refuse(why, exit_code);
  interpret(cl, o);
  if (cl.dump_types + cl.dump_aliases + cl.dump_functions > 1)
    return refuse("give one of --dump-probe-types, --dump-probe-aliases, --dump-functions",
                  exit_code);
  if (cl.dump_types || cl.dump_aliases || cl.dump_functions) {
    o->dump = cl.dump_types ? "probe-types" : cl.dump_aliases ? "probe-aliases" : "functions";
    return true;
  }
  if (!cl.list_l.empty() || !cl.list_L.empty()) {
    o->list_pattern = cl.list_L.empty() ? cl.list_l : cl.list_L;
    o->list_vars = !cl.list_L.empty();
    o->script_text = "probe " + o->list_pattern + " {}";
    o->last_pass = 2;
    return true;
  }
  if (std::string why = option_conflict(*o); !why.empty()) return refuse(why, exit_code);
  return true;
}

}  // namespace xtap::cli
