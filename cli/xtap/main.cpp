// xtap: the driver. Runs passes 1-5 (parse, elaborate, translate, build,
// run) and stops where -p says; pass 5 runs the module here through the
// xtap-run runner, or in a throwaway VM with --vm.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <xtap/limits.h>

#include "codegen/module.h"
#include "codegen/user_symbols.h"
#include "common/install_paths.h"
#include "flamegraph/session.h"
#include "kbuild/kbuild.h"
#include "kbuild/module_cache.h"
#include "parse/parser.h"
#include "parse/printer.h"
#include "parse/tapsets.h"
#include "passes/passes.h"
#include "symbols/btf.h"
#include "symbols/catalog.h"
#include "symbols/dwarf.h"
#include "vm/vm.h"
#include "xtap/bundle.h"
#include "xtap/dumps.h"
#include "xtap/json_records.h"
#include "xtap/listing.h"
#include "xtap/options.h"
#include "xtap/progress.h"
#include "xtap/remote.h"
#include "xtap/signing.h"
#include "xtap/vm_output.h"

namespace fs = std::filesystem;
using namespace xtap;

namespace {

// The terminal progress line of a single-kernel run (bundles draw their own).
cli::TerminalProgress *g_progress = nullptr;

// -v: stap-style pass lines with memory and user/system/real time, e.g.
// "Pass 1: parsed user script and 3 library scripts using 11236virt/9800res kb, in
// 10usr/0sys/12real ms."
class PassTimer {
 public:
  explicit PassTimer(bool on) : on_(on) { mark(); }
  void done(const std::string &what) {
    if (on_) {
      struct rusage ru;
      getrusage(RUSAGE_SELF, &ru);
      auto ms = [](const timeval &t) { return t.tv_sec * 1000L + t.tv_usec / 1000; };
      long real = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start_)
                      .count();
      long virt_kb = 0, res_kb = 0;
      if (FILE *f = fopen("/proc/self/statm", "r")) {
        long pages_virt = 0, pages_res = 0;
        if (fscanf(f, "%ld %ld", &pages_virt, &pages_res) == 2) {
          virt_kb = pages_virt * (getpagesize() / 1024);
          res_kb = pages_res * (getpagesize() / 1024);
        }
        fclose(f);
      }
      std::cerr << "Pass " << what << " using " << virt_kb << "virt/" << res_kb << "res kb, in "
                << ms(ru.ru_utime) - usr_ << "usr/" << ms(ru.ru_stime) - sys_ << "sys/" << real
                << "real ms.\n";
    }
    mark();
  }

 private:
  void mark() {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    usr_ = ru.ru_utime.tv_sec * 1000L + ru.ru_utime.tv_usec / 1000;
    sys_ = ru.ru_stime.tv_sec * 1000L + ru.ru_stime.tv_usec / 1000;
    start_ = std::chrono::steady_clock::now();
  }
  bool on_;
  long usr_ = 0, sys_ = 0;
  std::chrono::steady_clock::time_point start_;
};

bool valid_module_name(const std::string &n) {
  if (n.empty() || n.size() > 55 || isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (char c : n)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Limits::set checks each -D on its own; the runtime also refuses relay
// buffers of more than XTAP_RELAY_MAX_BYTES_PER_CPU in all, at session start
// with only "invalid limits" in the kernel log. Say it before building.
std::string relay_buffers_error(const Limits &l) {
  unsigned long long per_cpu = l.subbuf_size * l.n_subbufs;  // each bounded: no overflow
  if (per_cpu <= XTAP_RELAY_MAX_BYTES_PER_CPU) return "";
  return "relay buffers of " + std::to_string(l.n_subbufs) + " x " + std::to_string(l.subbuf_size) +
         " bytes (" + std::to_string(per_cpu >> 20) + " MiB) per CPU are more than the runtime's " +
         std::to_string(XTAP_RELAY_MAX_BYTES_PER_CPU >> 20) +
         " MiB: lower -DSTP_BUFFER_SUBBUFS or -DSTP_BUFFER_SUBBUF_SIZE";
}

std::string datadir() { return install::datadir(); }

// -p2: what pass 2 resolved, in stap's layout: globals, functions (with
// their types) and probes (with their locals).
void print_elaborated(std::ostream &os, const Script &s, const Elaborated &elab) {
  auto locals = [&](const Body &b, size_t skip) {
    for (size_t i = skip; i < b.locals.size(); ++i)
      os << "  " << b.locals[i]->name << ":" << type_name(b.locals[i]->type) << "\n";
  };
  if (!s.globals.empty()) os << "# globals\n";
  for (const auto &g : s.globals) {
    os << g->name << ":" << type_name(g->type);
    if (g->is_array) {
      os << " [";
      for (size_t i = 0; i < g->key_types.size(); ++i)
        os << (i ? ", " : "") << type_name(g->key_types[i]);
      os << "]";
    }
    os << "\n";
  }
  if (!s.functions.empty()) os << "# functions\n";
  for (const auto &f : s.functions) {
    os << f->name << ":" << type_name(f->return_type) << " (";
    for (size_t i = 0; i < f->params.size(); ++i)
      os << (i ? ", " : "") << f->params[i]->name << ":" << type_name(f->params[i]->type);
    os << ")" << (f->embedded ? " %{ %}" : "") << "\n";
    locals(*f, f->params.size());
  }
  if (!elab.probes.empty()) os << "# probes\n";
  const ProbeDecl *last = nullptr;
  for (const auto &dp : elab.probes) {
    os << dp->name() << " /* <- " << dp->point->loc.str() << " */\n";
    if (dp->decl != last) locals(*dp->decl, 0);
    last = dp->decl;
  }
}

kbuild::Env build_env(const cli::Options &o) {
  kbuild::Env env;
  env.datadir = datadir();
  env.cache_dir = kbuild::default_cache_dir();
  env.version = XTAP_VERSION;
  env.verbose = o.verbose > 1;
  env.explain = o.verbose > 0;
  if (g_progress) env.progress = g_progress->callback();
  return env;
}

// -G NAME=VALUE: the initial value of a global, replacing its initializer.
std::string apply_global_sets(Script &s, const std::vector<std::string> &sets) {
  for (const auto &set : sets) {
    auto eq = set.find('=');
    if (eq == std::string::npos) return "-G " + set + ": use -G NAME=VALUE";
    std::string name = set.substr(0, eq), value = set.substr(eq + 1);
    GlobalDecl *g = s.find_global(name);
    if (!g || g->from_tapset) return "-G " + name + ": the script has no global '" + name + "'";
    if (g->max_entries) return "-G " + name + ": '" + name + "' is an array";
    Location loc = g->loc;
    char *end = nullptr;
    errno = 0;
    long long n = strtoll(value.c_str(), &end, 0);
    if (!value.empty() && *end == 0 && errno == 0) {
      g->init = std::make_unique<Expr>(ExprKind::Number, loc);
      g->init->number = n;
    } else {
      g->init = std::make_unique<Expr>(ExprKind::String, loc);
      g->init->text = value;
    }
  }
  return "";
}

bool read_script(const cli::Options &o, SourceFile *f) {
  if (!o.script_text.empty()) {
    f->name = "<input>";
    f->text = o.script_text;
    for (const auto &extra : o.extra_scripts) f->text += "\n" + extra + "\n";  // -E
    return true;
  }
  f->name = o.script_file;
  std::ostringstream ss;
  if (o.script_file == "-") {
    f->name = "<stdin>";
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(o.script_file, std::ios::binary);
    if (!in) {
      std::cerr << "xtap: cannot read script '" << o.script_file << "': " << strerror(errno)
                << "\n";
      return false;
    }
    ss << in.rdbuf();
  }
  f->text = ss.str();
  // -E SCRIPT: more of the script, after the main one (whose lines keep their numbers).
  for (const auto &extra : o.extra_scripts) f->text += "\n" + extra + "\n";
  return true;
}

bool wants_flame_output(const cli::Options &o) {
  return !o.folded_file.empty() || !o.flamegraph_file.empty();
}

// --folded, --flamegraph, --flame-title, -o, --from-stacks, -q.
flamegraph::OutputFiles flame_files(const cli::Options &o) {
  flamegraph::OutputFiles f;
  f.folded = o.folded_file;
  f.svg = o.flamegraph_file;
  f.rest = o.output_file;
  f.from_stacks = o.from_stacks;
  f.quiet = o.quiet;
  std::string from = !o.from_stacks.empty() ? o.from_stacks : o.script_file;
  f.title = !o.flame_title.empty()        ? o.flame_title
            : from.empty() || from == "-" ? "Flame Graph"
                                          : "Flame Graph: " + fs::path(from).filename().string();
  return f;
}

std::vector<std::string> runner_args(const cli::Options &o) {
  std::vector<std::string> a;
  if (!o.command.empty() && !o.vm) a.insert(a.end(), {"-c", o.command});
  if (o.target_pid) a.insert(a.end(), {"-x", std::to_string(o.target_pid)});
  if (o.timeout_s) a.insert(a.end(), {"-T", std::to_string(o.timeout_s)});
  // With --folded/--flamegraph or --remote the driver reads the output and writes -o itself.
  if (!o.output_file.empty() && !o.vm && !wants_flame_output(o) && o.remotes.empty())
    a.insert(a.end(), {"-o", o.output_file});
  if (!o.switch_spec.empty()) a.insert(a.end(), {"-S", o.switch_spec});
  if (o.bulk) a.push_back("-b");
  if (o.flight) a.push_back("-F");
  if (o.verbose) a.push_back("-v");
  if (o.json) a.insert(a.end(), {"--format", "json"});
  return a;
}

int run_local(const cli::Options &o, const std::string &ko) {
  if (!fs::exists("/proc/modules")) {
    std::cerr << "xtap: this kernel cannot load modules (built without module support)\n"
                 "  hint: run the script in a throwaway VM with --vm\n";
    return 1;
  }
  std::string runner = vm::sibling_program("xtap-run");
  if (runner.empty()) runner = "xtap-run";
  std::vector<std::string> args = {runner};
  for (auto &a : runner_args(o)) args.push_back(a);
  args.push_back(ko);
  if (wants_flame_output(o)) return flamegraph::run_collecting_stacks(flame_files(o), args);
  std::vector<char *> argv;
  for (auto &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();  // --format json diagnostics go before the run's records
  execvp(argv[0], argv.data());
  std::cerr << "xtap: cannot run " << runner << ": " << strerror(errno) << "\n";
  return 1;
}

int run_in_vm(const cli::Options &o, const vm::Kernel &k, const std::string &ko) {
  vm::Job job;
  job.name = "script";
  job.module = ko;
  job.runner_args = runner_args(o);
  job.command = o.command;
  job.timeout_s = o.timeout_s ? o.timeout_s + 30 : 600;
  vm::BatchOptions bo;
  bo.xtap_run = vm::sibling_program("xtap-run");
  bo.cpus = o.vm_cpus;
  bo.memory_mb = o.vm_memory_mb;
  bo.verbose = o.verbose > 0;
  if (g_progress && !bo.verbose) bo.progress = g_progress->callback();
  if (bo.xtap_run.empty()) {
    std::cerr << "xtap: xtap-run not found next to xtap\n";
    return 1;
  }
  // The job's stdout reaches -o FILE or standard output as the guest sends
  // it; its stderr comes whole at its end and follows it, as before.
  flamegraph::StackCollector stacks;
  std::function<void()> clear_progress;
  if (o.output_file.empty() && g_progress) clear_progress = [] { g_progress->step(""); };
  cli::VmOutput out(o.output_file, wants_flame_output(o) ? &stacks : nullptr, clear_progress);
  if (!o.output_file.empty() && !out.open()) {
    std::cerr << "xtap: " << out.error() << "\n";
    return 1;
  }
  bo.keep_output = false;
  bo.on_output = [&out](const std::string &, const std::string &kind, const std::string &bytes) {
    return kind != "out" || out.write(bytes);
  };
  // A reader that has gone (xtap --vm ... | head) ends the run, through
  // on_output, instead of the signal.
  signal(SIGPIPE, SIG_IGN);
  vm::BatchResult r = vm::run_batch(k, {job}, bo);
  bool output_failed = !r.jobs.empty() && !out.finish();
  if (output_failed)
    std::cerr << "xtap: " << out.error() << (r.finished ? "" : "; the VM was stopped") << "\n";
  bool flame_failed = false;
  if (!r.jobs.empty()) {
    const auto &j = r.jobs[0];
    std::cerr << j.err;
    if (wants_flame_output(o) && !flamegraph::write_flame_files(flame_files(o), stacks) &&
        j.exit_status == 0)
      flame_failed = true;
    if (j.timed_out) std::cerr << "xtap: the session timed out in the VM\n";
  }
  for (const auto &p : r.kernel_problems)
    std::cerr << "xtap: kernel problem in the VM: " << p << "\n";
  if (output_failed) return 1;
  if (!r.finished) {
    std::cerr << "xtap: VM run did not finish: " << r.error << "\n";
    return 1;
  }
  if (!r.kernel_problems.empty()) return 1;
  return r.jobs.empty() || flame_failed ? 1 : r.jobs[0].exit_status;
}

// Passes 1-5 for one kernel (o.kernel), stopping where -p says.
int compile_and_run(const cli::Options &o) {
  PassTimer timer(o.verbose > 0);

  SourceFile file;
  if (!read_script(o, &file)) return 1;

  // The target kernel, needed from pass 1 on for %( kernel_v ... %). Only
  // pass 4 needs its build directory; before that the running kernel will do.
  kbuild::Target target;
  std::string target_err;
  std::optional<vm::Kernel> vmk;
  bool have_target = false;
  if (o.vm) {
    vmk = vm::find_vm_kernel(o.kernel, &target_err);
    if (vmk) {
      target = {vmk->release, vmk->build_dir};
      have_target = true;
    }
  } else {
    have_target = kbuild::resolve_target(o.kernel, &target, &target_err);
  }
  PreprocessContext pctx;
  pctx.args = o.script_args;
  pctx.guru = o.guru;
  pctx.compat_version = o.compat_version;
  if (have_target) {
    pctx.kernel_release = target.release;
    load_kconfig(target.build_dir + "/.config", &pctx);
  } else {
    struct utsname u;
    uname(&u);
    pctx.kernel_release =
        o.kernel.empty() || o.kernel.find('/') != std::string::npos ? u.release : o.kernel;
  }

  // Pass 1: parse the script, then the tapsets.
  Diagnostics diags;
  ParseOptions popts;
  popts.guru = o.guru;
  std::vector<std::string> tapset_dirs = {datadir() + "/tapsets"};
  tapset_dirs.insert(tapset_dirs.end(), o.include_dirs.begin(), o.include_dirs.end());
  std::string tapset_err;
  std::vector<std::unique_ptr<SourceFile>> macro_files;  // the tapsets' .stpm macros
  if (!load_macro_files(tapset_dirs, &pctx, diags, &macro_files, &tapset_err)) {
    std::cerr << "xtap: " << tapset_err << "\n";
    return 1;
  }
  auto script = parse_script(file, diags, &pctx, popts);
  for (auto &f : macro_files) script->tapset_files.push_back(std::move(f));
  if (!load_tapsets(*script, tapset_dirs, diags, &pctx, &tapset_err)) {
    std::cerr << "xtap: " << tapset_err << "\n";
    return 1;
  }
  if (std::string err = apply_global_sets(*script, o.global_sets); !err.empty()) {
    std::cerr << "xtap: " << err << "\n";
    return 1;
  }
  timer.done("1: parsed user script and " + std::to_string(script->tapset_files.size()) +
             " library scripts");
  if (diags.has_errors()) {
    if (o.json) {
      for (const auto &d : diags.all()) cli::print_diagnostic_json(std::cout, d);
    } else {
      diags.print(std::cerr);
    }
    return 1;
  }
  if (o.last_pass == 1) {
    std::cout << print_script(*script);
    return 0;
  }

  // Pass 2: elaborate.
  Elaborated elab;
  // The target kernel's catalog (tracepoints, syscalls, C types): built
  // from its headers on first use and cached; loaded only if a probe needs it.
  kbuild::Env env = build_env(o);
  std::unique_ptr<KernelCatalog> catalog;
  std::string catalog_err;
  bool catalog_tried = false;
  ProbeEnv probe_env;
  probe_env.catalog = [&](std::string *error) -> const KernelCatalog * {
    if (!catalog_tried) {
      catalog_tried = true;
      std::string path;
      if (!have_target) catalog_err = target_err;
      else if (kbuild::ensure_catalog(target, env, &path, &catalog_err))
        catalog = KernelCatalog::load(path, &catalog_err);
    }
    if (!catalog) *error = catalog_err;
    return catalog.get();
  };
  // The target kernel's BTF (kernel.function): the running kernel's own,
  // or extracted once from its image and cached.
  std::unique_ptr<KernelBtf> btf;
  std::string btf_err;
  bool btf_tried = false;
  probe_env.btf = [&](std::string *error) -> const KernelBtf * {
    if (!btf_tried) {
      btf_tried = true;
      std::string path, origin;
      // Without a build directory (no headers installed) the release is
      // enough: -L and -p2 still work from the running kernel's BTF.
      kbuild::Target btf_target = target;
      if (!have_target && !o.vm) btf_target.release = pctx.kernel_release;
      if (btf_target.release.empty()) btf_err = target_err;
      else if (kbuild::ensure_btf(btf_target, env, &path, &origin, &btf_err))
        btf = KernelBtf::load(path, &btf_err);
      if (btf && o.verbose)
        std::cerr << "xtap: kernel types and functions from the BTF of " << origin << "\n";
    }
    if (!btf) *error = btf_err;
    return btf.get();
  };
  // DWARF debuginfo (kernel.function("f@file"), statements, modules):
  // found by release (or --debuginfo), each file opened once; its
  // function index is cached per build-id.
  std::map<std::string, std::unique_ptr<KernelDwarf>> dwarfs;  // by path
  probe_env.dwarf = [&](const std::string &module, std::string *error) {
    std::vector<const KernelDwarf *> found;
    std::string release = have_target ? target.release : pctx.kernel_release;
    for (const auto &[name, path] : find_debuginfo(release, o.debuginfo, module, error)) {
      auto it = dwarfs.find(path);
      if (it == dwarfs.end()) {
        std::string open_err;
        auto d = KernelDwarf::open(path, name, env.cache_dir, &open_err);
        if (d && o.verbose)
          std::cerr << "xtap: " << (name.empty() ? "kernel" : name)
                    << " functions from the DWARF of " << path
                    << (d->index_from_cache() ? " (index cached)" : "") << "\n";
        if (!d) *error = open_err;
        it = dwarfs.emplace(path, std::move(d)).first;
      }
      if (it->second) found.push_back(it->second.get());
    }
    return found;
  };
  probe_env.sysroot = o.sysroot;
  while (probe_env.sysroot.size() > 1 && probe_env.sysroot.back() == '/')
    probe_env.sysroot.pop_back();
  if (probe_env.sysroot == "/") probe_env.sysroot.clear();
  // process.plt and other process probes without a path: the -c program,
  // or the -x process's executable when it runs on this machine.
  if (!o.command.empty()) {
    probe_env.target_program = command_program(o.command, probe_env.sysroot);
  } else if (o.target_pid > 0) {
    std::error_code ec;
    auto exe = fs::read_symlink("/proc/" + std::to_string(o.target_pid) + "/exe", ec);
    if (!ec) probe_env.target_program = exe.string();
  }
  ElaborateOptions eopts;
  eopts.keep_unused = o.keep_unused || o.list_vars;
  eopts.skip_badvars = o.skip_badvars;
  bool ok = elaborate(*script, probe_env, elab, diags, eopts);
  // -l of an optional pattern that matches nothing lists nothing, as stap
  // does, rather than "no probes found" (XTP2241).
  bool empty_listing =
      !ok && !o.list_pattern.empty() && diags.error_count() == 1 && elab.probes.empty();
  for (const auto &d : diags.all())
    if (d.severity == Severity::Error && d.code != "XTP2241") empty_listing = false;
  if (empty_listing) ok = true;
  // -w drops every warning; -u keeps unused code, so there is no elision
  // to warn about (XTP2301, XTP2320). -W makes a warning fail the pass.
  int shown_warnings = 0;
  for (const auto &d : diags.all()) {
    if (d.severity == Severity::Warning &&
        (o.no_warnings || (o.keep_unused && (d.code == "XTP2301" || d.code == "XTP2320"))))
      continue;
    if (empty_listing && d.code == "XTP2241") continue;
    if (d.severity == Severity::Warning) ++shown_warnings;
    if (o.json) cli::print_diagnostic_json(std::cout, d);
    else Diagnostics::print_one(std::cerr, d);
  }
  timer.done("2: analyzed script: " + std::to_string(elab.probes.size()) + " probes, " +
             std::to_string(script->functions.size()) + " functions, " +
             std::to_string(script->embedded_c.size()) + " embeds, " +
             std::to_string(script->globals.size()) + " globals");
  if (!ok) return 1;
  if (o.warnings_as_errors && shown_warnings) {
    std::cerr << "xtap: " << shown_warnings << " warning" << (shown_warnings > 1 ? "s" : "")
              << " treated as errors (-W)\n";
    return 1;
  }
  if (!o.probe_list_file.empty()) {
    std::ofstream list(o.probe_list_file);
    for (const auto &dp : elab.probes) list << dp->name() << "\n";
  }
  if (!o.list_pattern.empty()) {
    if (o.json) cli::print_probe_list_json(std::cout, elab, o.list_vars);
    else cli::print_probe_list(std::cout, elab, o.list_vars);
    return 0;
  }
  if (o.last_pass == 2) {
    print_elaborated(std::cout, *script, elab);
    return 0;
  }

  // Pass 3: translate.
  ModuleOptions mo;
  mo.script_name = fs::path(file.name).filename().string();
  mo.version = XTAP_VERSION;
  mo.timing = o.timing;
  // --compatible (checked to be a dotted version): STAP_COMPAT_VERSION.
  size_t dot = o.compat_version.find('.');
  mo.compat_major = std::stoi(o.compat_version.substr(0, dot));
  mo.compat_minor = dot == std::string::npos ? 0 : std::stoi(o.compat_version.substr(dot + 1));
  if (o.suppress_time_limits) {
    // Before -D, so that an explicit -DMAXACTION=N still wins.
    mo.limits.lift_time_limits();
  }
  for (const auto &d : o.defines) {
    auto eq = d.find('=');
    // -DSTP_NO_OVERLOAD is a switch in stap: no value needed.
    std::string err = eq == std::string::npos && d == "STP_NO_OVERLOAD" ? mo.limits.set(d, "1")
                      : eq == std::string::npos ? "-D" + d + " needs a value, as in -D" + d + "=100"
                                                : mo.limits.set(d.substr(0, eq), d.substr(eq + 1));
    if (!err.empty()) {
      std::cerr << "xtap: " << err << "\n";
      return 1;
    }
  }
  if (o.buffer_mb) {
    // -s MB, as stap's: the per-CPU total, in sub-buffers of the current size.
    unsigned long long n =
        (static_cast<unsigned long long>(o.buffer_mb) << 20) / mo.limits.subbuf_size;
    if (std::string err = mo.limits.set("STP_BUFFER_SUBBUFS", std::to_string(std::max(n, 2ull)));
        !err.empty()) {
      std::cerr << "xtap: -s " << o.buffer_mb << ": " << err << "\n";
      return 1;
    }
  }
  if (std::string err = relay_buffers_error(mo.limits); !err.empty()) {
    std::cerr << "xtap: " << err << "\n";
    return 1;
  }
  // usymname() and friends: the symbols of the programs the script names.
  std::vector<std::string> usym_notes;
  if (user_symbol_use(*script) != UserSymbolUse::None) {
    UserSymbolSources src;
    src.command = o.command;
    src.modules = o.symbol_modules;
    src.ldd = o.ldd;
    src.sysroot = probe_env.sysroot;
    mo.user_files = user_symbol_files(elab, src, &usym_notes);
    mo.sysroot = probe_env.sysroot;
    mo.notes = &usym_notes;
  }
  std::string c = emit_module(*script, elab, mo);
  for (const auto &n : usym_notes)
    if (!o.no_warnings) std::cerr << "xtap: warning: " << n << "\n";
  if (o.verbose)
    for (const auto &f : mo.user_files) std::cerr << "xtap: user-space symbols of " << f << "\n";
  timer.done("3: translated to C (" + std::to_string(std::count(c.begin(), c.end(), '\n')) +
             " lines)");
  if (o.last_pass == 3) {
    std::cout << c;
    return 0;
  }

  // Pass 4: build.
  std::string name =
      o.module_name.empty() ? "xtap_" + kbuild::hash_hex(c).substr(0, 12) : o.module_name;
  if (!valid_module_name(name)) {
    std::cerr << "xtap: invalid module name '" << name
              << "': use letters, digits and '_' (at most 55, not starting with a digit)\n";
    return 1;
  }
  std::string err;
  if (!have_target) {
    std::cerr << "xtap: " << (o.vm ? "--vm: " : "") << target_err << "\n";
    if (o.kernel.empty() && !o.vm)
      std::cerr << "  hint: name a kernel with -r, or run in a VM with --vm\n";
    return 1;
  }
  kbuild::ModuleBuild mb;
  mb.name = name;
  mb.c_source = c;
  if (o.keep)
    mb.keep_dir =
        fs::temp_directory_path() / ("xtap-build-" + name + "-" + std::to_string(getpid()));
  std::string ko;
  bool hit = false;
  if (!kbuild::build_module(target, env, mb, &ko, &err, &hit)) {
    std::cerr << "xtap: " << err << "\n";
    return 1;
  }
  if (o.keep && !o.quiet) std::cerr << "xtap: kept build directory " << mb.keep_dir << "\n";
  timer.done(std::string(hit ? "4: found " : "4: compiled C into ") + "\"" + ko + "\"" +
             (hit ? " in the cache" : ""));
  if (!o.sign_key.empty() || o.strip_debug) {
    // The cached module stays as built; the stripped or signed copy is the
    // one written out (-p4) or run (pass 5).
    std::string copy = o.last_pass == 4
                           ? (fs::current_path() / (name + ".ko")).string()
                           : (fs::temp_directory_path() /
                              ("xtap-signed-" + std::to_string(getpid())) / (name + ".ko"))
                                 .string();
    if (!cli::prepare_module_copy(target, ko, copy, o.strip_debug, o.sign_key, o.sign_cert, &err)) {
      std::cerr << "xtap: " << err << "\n";
      return 1;
    }
    timer.done(std::string("4: ") + (o.sign_key.empty() ? "stripped" : "signed") + " \"" + copy +
               "\"");
    ko = copy;
  }
  if (o.last_pass == 4) {
    std::string out = ko;
    if (!o.module_name.empty() && ko != (fs::current_path() / (name + ".ko")).string()) {
      out = (fs::current_path() / (name + ".ko")).string();
      std::error_code ec;
      fs::copy_file(ko, out, fs::copy_options::overwrite_existing, ec);
      if (ec) {
        std::cerr << "xtap: cannot write " << out << ": " << ec.message() << "\n";
        return 1;
      }
    }
    std::cout << out << "\n";
    return 0;
  }

  // Pass 5: run.
  return o.vm ? run_in_vm(o, *vmk, ko) : run_local(o, ko);
}

// --dump-probe-types, --dump-probe-aliases, --dump-functions: the
// tapsets parsed as for any script (for the running kernel's conditionals).
int run_dump(const cli::Options &o) {
  if (o.dump == "probe-types") {
    cli::print_probe_types(std::cout);
    return 0;
  }
  PreprocessContext pctx;
  struct utsname u;
  uname(&u);
  pctx.kernel_release =
      o.kernel.empty() || o.kernel.find('/') != std::string::npos ? u.release : o.kernel;
  pctx.guru = o.guru;
  Diagnostics diags;
  std::vector<std::string> tapset_dirs = {datadir() + "/tapsets"};
  tapset_dirs.insert(tapset_dirs.end(), o.include_dirs.begin(), o.include_dirs.end());
  std::string err;
  std::vector<std::unique_ptr<SourceFile>> macro_files;
  SourceFile empty;
  empty.name = "<dump>";
  std::unique_ptr<Script> script;
  if (load_macro_files(tapset_dirs, &pctx, diags, &macro_files, &err)) {
    script = parse_script(empty, diags, &pctx, ParseOptions{});
    if (!load_tapsets(*script, tapset_dirs, diags, &pctx, &err)) script.reset();
  }
  if (!script) {
    std::cerr << "xtap: " << err << "\n";
    return 1;
  }
  if (o.dump == "probe-aliases") cli::print_probe_aliases(std::cout, *script, o.verbose > 0);
  else cli::print_functions(std::cout, *script);
  return 0;
}

// --clean-cache: the module cache and stale build directories; what
// the cache holds per kernel (runtimes, recipes, catalogs, BTF, DWARF
// indexes) stays.
int run_clean_cache(const cli::Options &o) {
  std::string dir = kbuild::default_cache_dir();
  kbuild::CacheUpkeep freed = kbuild::clean_module_cache(dir);
  if (!o.quiet) std::cout << "xtap: " << kbuild::describe_upkeep(freed) << " from " << dir << "\n";
  if (freed.module_bytes_kept) {
    std::cerr << "xtap: " << kbuild::size_text(freed.module_bytes_kept) << " of cached modules in "
              << dir << "/modules could not be removed\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  cli::Options o;
  int code = 0;
  if (!cli::parse_options(argc, argv, &o, &code)) return code;
  if (o.clean_cache) {
    code = run_clean_cache(o);
    if (code || !o.cleanup) return code;
  }
  if (o.cleanup) {
    std::string runner = vm::sibling_program("xtap-run");
    std::vector<char *> args = {runner.empty() ? const_cast<char *>("xtap-run") : runner.data(),
                                const_cast<char *>("--cleanup")};
    if (o.verbose) args.push_back(const_cast<char *>("-v"));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::cerr << "xtap: cannot run xtap-run: " << strerror(errno) << "\n";
    return 1;
  }
  if (!o.dump.empty()) return run_dump(o);
  if (!o.from_stacks.empty()) return flamegraph::convert_stacks(flame_files(o));
  if (!o.sign_key.empty()) {
    std::string err;
    if (!cli::check_signing_files(o.sign_key, o.sign_cert, &err)) {
      std::cerr << "xtap: " << err << "\n";
      return 1;
    }
  }
  if (!o.kernels.empty()) return cli::build_bundle(o, compile_and_run);
  // Before the progress line: its ticker thread would not survive the
  // fork of each host's build.
  if (!o.remotes.empty()) return cli::run_remote(o, runner_args(o), compile_and_run);
  cli::TerminalProgress progress(!o.quiet && !o.json && !o.verbose);
  g_progress = &progress;
  return compile_and_run(o);
}
