// Passes 1-4 and the run (compile.h): each pass is a step over the state
// the run accumulates (Run), and either ends the run with an exit status
// or hands on to the next.
#include "xtap/compile.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <xtap/limits.h>

#include "codegen/module.h"
#include "codegen/user_symbols.h"
#include "common/install_paths.h"
#include "kbuild/kbuild.h"
#include "parse/parser.h"
#include "parse/printer.h"
#include "parse/tapsets.h"
#include "passes/passes.h"
#include "xtap/json_records.h"
#include "xtap/kernel_data.h"
#include "xtap/listing.h"
#include "xtap/pass_timer.h"
#include "xtap/progress.h"
#include "xtap/run_module.h"
#include "xtap/signing.h"
#include "xtap/vm_files.h"

namespace fs = std::filesystem;

namespace xtap::cli {
namespace {

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

}  // namespace

kbuild::Env build_env(const Options &o) {
  kbuild::Env env;
  env.datadir = install::datadir();
  env.cache_dir = kbuild::default_cache_dir();
  env.version = XTAP_VERSION;
  env.verbose = o.verbose > 1;
  env.explain = o.verbose > 0;
  if (run_progress()) env.progress = run_progress()->callback();
  return env;
}

bool read_script(const Options &o, SourceFile *f) {
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

void set_up_preprocessor(const Options &o, const TargetKernel &kernel, PreprocessContext *pctx) {
  pctx->args = o.script_args;
  pctx->guru = o.guru;
  pctx->compat_version = o.compat_version;
  pctx->kernel_release = kernel.release;
  if (kernel.found) load_kconfig(kernel.target.build_dir + "/.config", pctx);
}

std::unique_ptr<Script> parse_with_tapsets(const Options &o, SourceFile &file,
                                           PreprocessContext *pctx, Diagnostics &diags,
                                           std::string *err) {
  ParseOptions popts;
  popts.guru = o.guru;
  std::vector<std::string> tapset_dirs = {install::datadir() + "/tapsets"};
  tapset_dirs.insert(tapset_dirs.end(), o.include_dirs.begin(), o.include_dirs.end());
  std::vector<std::unique_ptr<SourceFile>> macro_files;  // the tapsets' .stpm macros
  if (!load_macro_files(tapset_dirs, pctx, diags, &macro_files, err)) return nullptr;
  std::unique_ptr<Script> script = parse_script(file, diags, pctx, popts);
  for (auto &f : macro_files) script->tapset_files.push_back(std::move(f));
  if (!load_tapsets(*script, tapset_dirs, diags, pctx, err)) return nullptr;
  if (std::string e = apply_global_sets(*script, o.global_sets); !e.empty()) {
    *err = e;
    return nullptr;
  }
  return script;
}

void set_up_programs(const Options &o, ProbeEnv *env) {
  std::string &sysroot = env->sysroot;
  sysroot = o.sysroot;
  while (sysroot.size() > 1 && sysroot.back() == '/') sysroot.pop_back();
  if (sysroot == "/") sysroot.clear();
  if (!o.command.empty()) {
    env->target_program = command_program(o.command, sysroot);
  } else if (o.target_pid > 0) {
    std::error_code ec;
    auto exe = fs::read_symlink("/proc/" + std::to_string(o.target_pid) + "/exe", ec);
    if (!ec) env->target_program = exe.string();
  }
}

namespace {

// What the passes of one run share, filled as they go.
struct Run {
  explicit Run(const Options &opts) : o(opts), timer(opts.verbose > 0) {}
  const Options &o;
  PassTimer timer;
  SourceFile file;
  TargetKernel kernel;
  PreprocessContext pctx;
  Diagnostics diags;
  std::unique_ptr<Script> script;
  kbuild::Env env;
  std::unique_ptr<KernelData> kernel_data;
  ProbeEnv probe_env;
  Elaborated elab;
  std::string c;     // pass 3's module source
  std::string ko;    // pass 4's module
  VmFiles vm_files;  // --vm: the user's files that go into the guest
};

// A pass's outcome: an exit status ends the run there; nullopt goes on.
using Step = std::optional<int>;

// Pass 1: the script, then the tapsets' macros and scripts; -G; -p1 prints it.
Step parse(Run &r) {
  const Options &o = r.o;
  std::string err;
  r.script = parse_with_tapsets(o, r.file, &r.pctx, r.diags, &err);
  if (!r.script) {
    std::cerr << "xtap: " << err << "\n";
    return 1;
  }
  r.timer.done("1: parsed user script and " + std::to_string(r.script->tapset_files.size()) +
               " library scripts");
  if (r.diags.has_errors()) {
    if (o.json) {
      for (const auto &d : r.diags.all()) print_diagnostic_json(std::cout, d);
    } else {
      r.diags.print(std::cerr);
    }
    return 1;
  }
  if (o.last_pass == 1) {
    std::cout << print_script(*r.script);
    return 0;
  }
  return std::nullopt;
}

// Pass 2's diagnostics as the options want them: -w drops every warning;
// -u keeps unused code, so there is no elision to warn about (XTP2301,
// XTP2320); -l of an optional pattern that matches nothing lists nothing,
// as stap does, rather than "no probes found" (XTP2241). Returns the
// warnings shown; *ok becomes true for that empty listing.
int report_elaboration(Run &r, bool *ok) {
  const Options &o = r.o;
  bool empty_listing =
      !*ok && !o.list_pattern.empty() && r.diags.error_count() == 1 && r.elab.probes.empty();
  for (const auto &d : r.diags.all())
    if (d.severity == Severity::Error && d.code != "XTP2241") empty_listing = false;
  if (empty_listing) *ok = true;
  int shown_warnings = 0;
  for (const auto &d : r.diags.all()) {
    if (d.severity == Severity::Warning &&
        (o.no_warnings || (o.keep_unused && (d.code == "XTP2301" || d.code == "XTP2320"))))
      continue;
    if (empty_listing && d.code == "XTP2241") continue;
    if (d.severity == Severity::Warning) ++shown_warnings;
    if (o.json) print_diagnostic_json(std::cout, d);
    else Diagnostics::print_one(std::cerr, d);
  }
  return shown_warnings;
}

// Pass 2: elaborate against the target kernel's data; -W, -l/-L, -p2.
Step elaborate_script(Run &r) {
  const Options &o = r.o;
  r.env = build_env(o);
  r.kernel_data = std::make_unique<KernelData>(o, r.kernel, r.env);
  r.kernel_data->connect(&r.probe_env);
  set_up_programs(o, &r.probe_env);
  ElaborateOptions eopts;
  eopts.keep_unused = o.keep_unused || o.list_vars;
  eopts.skip_badvars = o.skip_badvars;
  bool ok = elaborate(*r.script, r.probe_env, r.elab, r.diags, eopts);
  int shown_warnings = report_elaboration(r, &ok);
  const Script &s = *r.script;
  r.timer.done("2: analyzed script: " + std::to_string(r.elab.probes.size()) + " probes, " +
               std::to_string(s.functions.size()) + " functions, " +
               std::to_string(s.embedded_c.size()) + " embeds, " +
               std::to_string(s.globals.size()) + " globals");
  if (!ok) return 1;
  if (o.warnings_as_errors && shown_warnings) {
    std::cerr << "xtap: " << shown_warnings << " warning" << (shown_warnings > 1 ? "s" : "")
              << " treated as errors (-W)\n";
    return 1;
  }
  if (!o.probe_list_file.empty()) {
    std::ofstream list(o.probe_list_file);
    for (const auto &dp : r.elab.probes) list << dp->name() << "\n";
  }
  if (!o.list_pattern.empty()) {
    if (o.json) print_probe_list_json(std::cout, r.elab, o.list_vars);
    else print_probe_list(std::cout, r.elab, o.list_vars);
    return 0;
  }
  if (o.last_pass == 2) {
    print_elaborated(std::cout, s, r.elab);
    return 0;
  }
  return std::nullopt;
}

// --vm: what goes into the guest besides the module, found before the
// build so that a file that cannot go ends the run at once.
Step plan_guest_files(Run &r) {
  if (!r.o.vm || r.o.last_pass < 5) return std::nullopt;
  if (!plan_vm_files(r.o, r.elab, r.probe_env.sysroot, &r.vm_files)) return 1;
  if (r.o.verbose) {
    for (const auto &[host, guest] : r.vm_files.plan.files)
      std::cerr << "xtap: --vm carries " << guest << "\n";
    for (const auto &[at, target] : r.vm_files.plan.symlinks)
      std::cerr << "xtap: --vm links " << at << " -> " << target << "\n";
    for (const auto &n : r.vm_files.plan.notes) std::cerr << "xtap: --vm: " << n << "\n";
  }
  return std::nullopt;
}

// The module's limits from --suppress-time-limits, -D NAME=VALUE and -s MB;
// "" or what is wrong.
std::string set_limits(const Options &o, Limits *limits) {
  // Before -D, so that an explicit -DMAXACTION=N still wins.
  if (o.suppress_time_limits) limits->lift_time_limits();
  for (const auto &d : o.defines) {
    auto eq = d.find('=');
    // -DSTP_NO_OVERLOAD is a switch in stap: no value needed.
    std::string err = eq == std::string::npos && d == "STP_NO_OVERLOAD" ? limits->set(d, "1")
                      : eq == std::string::npos ? "-D" + d + " needs a value, as in -D" + d + "=100"
                                                : limits->set(d.substr(0, eq), d.substr(eq + 1));
    if (!err.empty()) return err;
  }
  if (o.buffer_mb) {
    // -s MB, as stap's: the per-CPU total, in sub-buffers of the current size.
    unsigned long long n =
        (static_cast<unsigned long long>(o.buffer_mb) << 20) / limits->subbuf_size;
    if (std::string err = limits->set("STP_BUFFER_SUBBUFS", std::to_string(std::max(n, 2ull)));
        !err.empty())
      return "-s " + std::to_string(o.buffer_mb) + ": " + err;
  }
  return relay_buffers_error(*limits);
}

// Pass 3: the module's C source; -p3 prints it.
Step translate(Run &r) {
  const Options &o = r.o;
  ModuleOptions mo;
  mo.script_name = fs::path(r.file.name).filename().string();
  mo.version = XTAP_VERSION;
  mo.timing = o.timing;
  // --compatible (checked to be a dotted version): STAP_COMPAT_VERSION.
  size_t dot = o.compat_version.find('.');
  mo.compat_major = std::stoi(o.compat_version.substr(0, dot));
  mo.compat_minor = dot == std::string::npos ? 0 : std::stoi(o.compat_version.substr(dot + 1));
  if (std::string err = set_limits(o, &mo.limits); !err.empty()) {
    std::cerr << "xtap: " << err << "\n";
    return 1;
  }
  // usymname() and friends: the symbols of the programs the script names.
  std::vector<std::string> usym_notes;
  if (user_symbol_use(*r.script) != UserSymbolUse::None) {
    UserSymbolSources src;
    src.command = o.command;
    src.modules = o.symbol_modules;
    // a stack passes through the programs' libraries: their CFI is needed
    src.ldd = o.ldd || user_stack_use(*r.script);
    src.sysroot = r.probe_env.sysroot;
    mo.user_files = user_symbol_files(r.elab, src, &usym_notes);
    mo.sysroot = r.probe_env.sysroot;
    mo.notes = &usym_notes;
  }
  r.c = emit_module(*r.script, r.elab, mo);
  for (const auto &n : usym_notes)
    if (!o.no_warnings) std::cerr << "xtap: warning: " << n << "\n";
  if (o.verbose)
    for (const auto &f : mo.user_files) std::cerr << "xtap: user-space symbols of " << f << "\n";
  r.timer.done("3: translated to C (" + std::to_string(std::count(r.c.begin(), r.c.end(), '\n')) +
               " lines)");
  if (o.last_pass == 3) {
    std::cout << r.c;
    return 0;
  }
  return std::nullopt;
}

// -p4 with a name or a signed/stripped copy: the module in the current
// directory as NAME.ko.
std::string module_in_cwd(const std::string &name) {
  return (fs::current_path() / (name + ".ko")).string();
}

// --sign-key, --strip-debug: the cached module stays as built; the stripped
// or signed copy is the one written out (-p4) or run (pass 5).
Step prepare_copy(Run &r, const std::string &name) {
  const Options &o = r.o;
  if (o.sign_key.empty() && !o.strip_debug) return std::nullopt;
  std::string copy = o.last_pass == 4
                         ? module_in_cwd(name)
                         : (fs::temp_directory_path() /
                            ("xtap-signed-" + std::to_string(getpid())) / (name + ".ko"))
                               .string();
  std::string err;
  if (!prepare_module_copy(r.kernel.target, r.ko, copy, o.strip_debug, o.sign_key, o.sign_cert,
                           &err)) {
    std::cerr << "xtap: " << err << "\n";
    return 1;
  }
  r.timer.done(std::string("4: ") + (o.sign_key.empty() ? "stripped" : "signed") + " \"" + copy +
               "\"");
  r.ko = copy;
  return std::nullopt;
}

// -p4: the module's path on stdout (copied here first when -m names it).
int write_module(const Run &r, const std::string &name) {
  std::string out = r.ko;
  if (!r.o.module_name.empty() && r.ko != module_in_cwd(name)) {
    out = module_in_cwd(name);
    std::error_code ec;
    fs::copy_file(r.ko, out, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      std::cerr << "xtap: cannot write " << out << ": " << ec.message() << "\n";
      return 1;
    }
  }
  std::cout << out << "\n";
  return 0;
}

// Pass 4: the module built through Kbuild (or found in the cache).
Step build(Run &r) {
  const Options &o = r.o;
  std::string name =
      o.module_name.empty() ? "xtap_" + kbuild::hash_hex(r.c).substr(0, 12) : o.module_name;
  if (!valid_module_name(name)) {
    std::cerr << "xtap: invalid module name '" << name
              << "': use letters, digits and '_' (at most 55, not starting with a digit)\n";
    return 1;
  }
  if (!r.kernel.found) {
    std::cerr << "xtap: " << (o.vm ? "--vm: " : "") << r.kernel.error << "\n";
    if (o.kernel.empty() && !o.vm)
      std::cerr << "  hint: name a kernel with -r, or run in a VM with --vm\n";
    return 1;
  }
  kbuild::ModuleBuild mb;
  mb.name = name;
  mb.c_source = r.c;
  if (o.keep)
    mb.keep_dir =
        fs::temp_directory_path() / ("xtap-build-" + name + "-" + std::to_string(getpid()));
  std::string err;
  bool hit = false;
  if (!kbuild::build_module(r.kernel.target, r.env, mb, &r.ko, &err, &hit)) {
    std::cerr << "xtap: " << err << "\n";
    return 1;
  }
  if (o.keep && !o.quiet) std::cerr << "xtap: kept build directory " << mb.keep_dir << "\n";
  r.timer.done(std::string(hit ? "4: found " : "4: compiled C into ") + "\"" + r.ko + "\"" +
               (hit ? " in the cache" : ""));
  if (Step s = prepare_copy(r, name)) return s;
  if (o.last_pass == 4) return write_module(r, name);
  return std::nullopt;
}

}  // namespace

// The run's data (the kernel's BTF and DWARF indexes, the script's tree)
// is not freed when the run returns: the process ends with it, and freeing
// some hundred thousand objects took a tenth of pass 2's time. The last
// run stays reachable from a static, so leak checkers do not report it;
// an earlier one (--kernel bundles run several) is freed.
int compile_and_run(const Options &o) {
  static Run *kept = nullptr;
  delete kept;
  kept = new Run(o);
  Run &r = *kept;
  if (!read_script(o, &r.file)) return 1;
  r.kernel = TargetKernel::resolve(o);
  set_up_preprocessor(o, r.kernel, &r.pctx);
  for (Step (*pass)(Run &) : {parse, elaborate_script, plan_guest_files, translate, build})
    if (Step s = pass(r)) return *s;
  // Pass 5: run.
  return o.vm ? run_in_vm(o, *r.kernel.vm, r.ko, r.vm_files) : run_local(o, r.ko);
}

}  // namespace xtap::cli
