#include "xtap/options.h"

#include <CLI/CLI.hpp>

#include <algorithm>

namespace xtap::cli {

bool parse_options(int argc, char **argv, Options *o, int *exit_code) {
  CLI::App app{"xtap: compile a probe script into a kernel module and run it"};
  app.set_version_flag("-V,--version", XTAP_VERSION);
  std::vector<std::string> positionals;
  app.add_option("script", positionals, "script file ('-' for standard input), then its arguments");
  app.add_option("-e", o->script_text, "script given on the command line");
  app.add_option("-p", o->last_pass,
                 "stop after pass N: 1 parse, 2 elaborate, 3 translate (print C), 4 build, 5 run")
      ->check(CLI::Range(1, 5))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // stap: the last -p wins
  app.add_option("-m", o->module_name, "module name (a C identifier)");
  std::vector<std::string> releases, kernel_list;
  app.add_option("-r", releases,
                 "target kernel release or build directory (default: running kernel); "
                 "several -r build a bundle")
      ->allow_extra_args(false);
  app.add_option("--kernels", kernel_list,
                 "build a bundle of modules for these kernel releases (comma-separated), with -p4 -o DIR")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--sign-key", o->sign_key, "sign the module(s) with this private key (PEM)");
  app.add_option("--sign-cert", o->sign_cert, "the X.509 certificate that goes with --sign-key");
  app.add_flag("-k", o->keep, "keep the module build directory");
  app.add_flag("-v", o->verbose, "verbose: show pass timings and build commands");
  app.add_option("-D", o->defines, "set a limit, as in -D MAXACTION=10000")->allow_extra_args(false);
  app.add_option("-c", o->command, "run CMD during the session; end when it exits");
  app.add_option("-x", o->target_pid, "target process id for target()");
  app.add_option("-o", o->output_file, "write the script's output to FILE");
  app.add_option("-s", o->buffer_mb, "output buffer of MB megabytes per CPU (default 16, cut to fit free memory)")
      ->check(CLI::Range(1, 256));
  app.add_option("-T", o->timeout_s, "end the session after N seconds")->check(CLI::NonNegativeNumber);
  app.add_flag("-g", o->guru, "guru mode: allow embedded C (%{ %}) in the script");
  app.add_flag("-u", o->keep_unused, "keep unused code (no elision, no unused warnings)");
  app.add_flag("-w", o->no_warnings, "suppress warnings");
  // One value per flag, as -D: `-I DIR script.stp` must not take the script.
  app.add_option("-G", o->global_sets, "set a global's initial value, as in -G limit=10")->allow_extra_args(false);
  app.add_option("-I", o->include_dirs, "also load tapsets from DIR")->allow_extra_args(false);
  app.add_option("--sysroot", o->sysroot,
                 "read process(\"PATH\") programs as DIR/PATH on this machine (probed as PATH)");
  app.add_option("--debuginfo", o->debuginfo,
                 "DWARF debuginfo: a vmlinux or module .ko file, or a directory searched first")
      ->allow_extra_args(false);
  std::string list_l, list_L;
  app.add_option("-l", list_l, "list the probe points matching PROBE, as in -l 'kernel.trace(\"sched:*\")'");
  app.add_option("-L", list_L, "as -l, with each point's context variables and their types");
  app.add_flag("--suppress-time-limits", o->suppress_time_limits,
               "lift MAXACTION and MAXTRYLOCK to their maxima (needs -g, as in stap)");
  // stap's symbol-table options. xtap symbolises kernel addresses from
  // /proc/kallsyms at run time, which covers every loaded module, so these
  // are accepted for stap's command lines and change nothing.
  app.add_option("-d", o->symbol_modules, "symbol data for MODULE (kallsyms covers every module)")
      ->allow_extra_args(false);
  app.add_flag("--all-modules", o->all_modules, "symbol data for all loaded modules (kallsyms covers them)");
  app.add_flag("--ldd", o->ldd, "symbol data for a process's shared libraries (accepted; process probes read each probed file's own symbols)");
  app.add_flag("--cleanup", o->cleanup,
               "stop and remove xtap modules left behind by a collector that died (xtap-run --cleanup)");
  app.add_flag("--vm", o->vm, "run in a throwaway QEMU VM of an installed Debian kernel");
  app.add_option("--vm-cpus", o->vm_cpus, "CPUs of the --vm guest")->check(CLI::Range(1, 16));
  app.add_option("--vm-memory", o->vm_memory_mb, "memory of the --vm guest, MiB")->check(CLI::Range(256, 16384));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    *exit_code = app.exit(e);
    return false;
  }
  // Options after the script belong to the script: xtap s.stp -x 1 is fine,
  // but its arguments are positionals.
  if (o->script_text.empty() && !positionals.empty()) {
    o->script_file = positionals.front();
    positionals.erase(positionals.begin());
  }
  o->script_args = positionals;
  for (const auto &r : releases)
    if (std::find(o->kernels.begin(), o->kernels.end(), r) == o->kernels.end()) o->kernels.push_back(r);
  for (const auto &r : kernel_list)
    if (!r.empty() && std::find(o->kernels.begin(), o->kernels.end(), r) == o->kernels.end())
      o->kernels.push_back(r);
  if (o->kernels.size() == 1 && kernel_list.empty()) {
    o->kernel = o->kernels.front();  // one -r: an ordinary build for that kernel
    o->kernels.clear();
  }
  if (!list_l.empty() || !list_L.empty()) {
    o->list_pattern = list_L.empty() ? list_l : list_L;
    o->list_vars = !list_L.empty();
    o->script_text = "probe " + o->list_pattern + " {}";
    o->last_pass = 2;
    return true;
  }
  if (o->suppress_time_limits && !o->guru) {
    std::cerr << "xtap: --suppress-time-limits lets a probe run without bound, so it needs -g (guru mode), as in stap\n";
    *exit_code = 1;
    return false;
  }
  if (o->cleanup) return true;  // needs no script
  if (o->sign_key.empty() != o->sign_cert.empty()) {
    std::cerr << "xtap: signing needs both --sign-key KEY and --sign-cert CERT\n";
    *exit_code = 1;
    return false;
  }
  if (!o->kernels.empty()) {
    std::string why;
    if (o->last_pass != 4) why = "a bundle is built here and run elsewhere with xtap-run: add -p4";
    else if (o->output_file.empty()) why = "name the bundle's directory with -o DIR";
    else if (o->vm) why = "--vm runs one kernel; run a bundle's module with xtap-run";
    if (!why.empty()) {
      std::cerr << "xtap: building for " << o->kernels.size() << " kernels makes a bundle: " << why << "\n";
      *exit_code = 1;
      return false;
    }
  }
  if (o->script_file.empty() == o->script_text.empty()) {
    std::cerr << "xtap: give exactly one of a script file or -e SCRIPT (see --help)\n";
    *exit_code = 1;
    return false;
  }
  return true;
}

}  // namespace xtap::cli
