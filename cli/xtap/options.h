// Command-line options of the xtap driver.
#pragma once

#include <string>
#include <vector>

namespace xtap::cli {

struct Options {
  std::string script_file;               // first positional, unless -e
  std::vector<std::string> script_args;  // the rest: $1 @1 ...
  std::string script_text;               // -e
  int last_pass = 5;                     // -p N
  std::string module_name;               // -m
  std::string kernel;                    // -r release or build dir
  std::vector<std::string> kernels;  // several -r, or --kernels A,B: build a bundle (docs/fleet.md)
  std::string sign_key, sign_cert;   // --sign-key/--sign-cert: sign the module(s)
  bool strip_debug = false;          // internal (bundle builds): write the module without DWARF
  std::string
      probe_list_file;  // internal (bundle builds): write the probe points here after pass 2
  bool keep = false;    // -k
  int verbose = 0;      // -v
  std::vector<std::string> defines;        // -D NAME=VALUE
  std::string command;                     // -c CMD
  long target_pid = 0;                     // -x PID
  std::string output_file;                 // -o FILE
  std::string switch_spec;                 // -S SIZE[,N]: with -o, FILE.0, FILE.1 ... (xtap-run -S)
  bool bulk = false;                       // -b: xtap-run writes a file per CPU (FILE_cpuN)
  bool flight = false;                     // -F: flight-recorder mode (xtap-run -F; -A attaches)
  int buffer_mb = 0;                       // -s MB: relay buffer per CPU
  int timeout_s = 0;                       // -T SECONDS
  bool timing = false;                     // -t: per-probe hits and cycles at the end
  bool guru = false;                       // -g: embedded C in the script
  bool keep_unused = false;                // -u: no elision of unused code
  bool no_warnings = false;                // -w
  bool warnings_as_errors = false;         // -W: a warning fails the pass (-w wins)
  std::string compat_version = "4.8";      // --compatible=VERSION: systemtap_v, STAP_COMPAT_VERSION
  bool skip_badvars = false;               // --skip-badvars: unknown $vars read as 0
  std::vector<std::string> extra_scripts;  // -E SCRIPT: run with the main script
  std::vector<std::string> global_sets;    // -G NAME=VALUE
  std::vector<std::string> include_dirs;   // -I DIR: more tapsets
  std::vector<std::string>
      debuginfo;             // --debuginfo PATH: a vmlinux/.ko with DWARF, or a directory of them
  std::string sysroot;       // --sysroot DIR: process("PATH") read as DIR/PATH
  std::string list_pattern;  // -l / -L PROBE: list matching probe points
  bool list_vars = false;    // -L: with their context variables
  bool suppress_time_limits = false;  // --suppress-time-limits: no MAXACTION/MAXTRYLOCK (guru)
  std::vector<std::string> symbol_modules;  // -d FILE (user-space symbols) or MODULE (accepted)
  bool all_modules = false,
       ldd = false;          // --all-modules: accepted; --ldd: shared libraries' symbols
  bool cleanup = false;      // --cleanup: xtap-run --cleanup
  bool clean_cache = false;  // --clean-cache: empty the module cache (docs/architecture.md)
  bool json = false;         // --format json: JSON lines (docs/cli.md)
  bool check = false;        // --check: preflight over the kernels (preflight.h)
  std::string kernels_from;  // --kernels-from BUNDLE|FILE: --check's kernels
  bool quiet = false;        // -q: no progress or informational notes
  // --dump-probe-types / --dump-probe-aliases / --dump-functions: what xtap
  // knows, in stap's listing formats; "" when not asked.
  std::string dump;
  bool vm = false;  // --vm
  // --monitor[=SECONDS]: xtap-run's live view (0: off; -1: a bad value);
  // with --vm drawn here from the guest's snapshots (vm_monitor.h).
  double monitor_s = 0;
  // --prometheus ADDR:PORT: xtap-run serves /metrics (with --vm: the
  // guest's port PORT forwarded from 127.0.0.1:PORT here).
  std::string prometheus;
  // Flame graphs (docs/cli.md): the stacks of the output as folded
  // stacks and as an SVG; --from-stacks reads a saved output instead of
  // running a script.
  std::string folded_file;      // --folded FILE ("-": standard output)
  std::string flamegraph_file;  // --flamegraph FILE.svg
  std::string flame_title;      // --flame-title TEXT
  std::string from_stacks;      // --from-stacks FILE ("-": standard input)
  int vm_cpus = 2;
  int vm_memory_mb = 1024;
  std::vector<std::string>
      remotes;  // --remote ssh://[USER@]HOST[:PORT] or USER@HOST (docs/fleet.md)
  std::vector<std::string> ssh_options;  // --ssh-option OPT: ssh -o OPT for --remote
  // --merge: the fleet view of the globals (docs/fleet.md, "Merged results").
  // With --remote, of the hosts' runs; without, of the aggregates files
  // (xtap-run --aggregates) named by the positional arguments or found
  // under them when directories.
  bool merge = false;
  bool per_host = false;  // --per-host: each host's share under each merged value
};

// Parses argv; on --help or an error prints and returns false with *exit_code set.
bool parse_options(int argc, char **argv, Options *o, int *exit_code);

// The first argument of argv that names no option of `known` ("--name" or
// "-x" forms; "-xVALUE" and "--name=VALUE" count as known), or "".
// Short flags written together (-wW) are checked one by one, up to the
// first that is not in `short_flags` (it takes the rest as its value).
std::string unknown_option(int argc, char **argv, const std::vector<std::string> &known,
                           const std::vector<std::string> &short_flags = {});
// "did you mean --version?" for a misspelt option, or "" when nothing is
// close enough (a single unknown letter has no useful neighbour).
std::string option_suggestion(const std::string &arg, const std::vector<std::string> &known);

}  // namespace xtap::cli
