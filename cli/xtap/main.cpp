// xtap: the driver. Picks what the command line asks for: passes 1-5 for
// one kernel (compile.h; pass 5 in run_module.h), a bundle for several
// (bundle.h), remote hosts (remote.h), a preflight over kernels
// (preflight.h), the dumps, or the cache's upkeep.
#include <sys/utsname.h>
#include <unistd.h>

#include <cstring>
#include <iostream>

#include "common/install_paths.h"
#include "flamegraph/session.h"
#include "kbuild/module_cache.h"
#include "parse/parser.h"
#include "parse/tapsets.h"
#include "vm/vm.h"
#include "xtap/bundle.h"
#include "xtap/compile.h"
#include "xtap/dumps.h"
#include "xtap/merge_cmd.h"
#include "xtap/options.h"
#include "xtap/preflight.h"
#include "xtap/progress.h"
#include "xtap/remote.h"
#include "xtap/run_module.h"
#include "xtap/signing.h"

using namespace xtap;

namespace {

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
  std::vector<std::string> tapset_dirs = {install::datadir() + "/tapsets"};
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
  if (!o.from_stacks.empty()) return flamegraph::convert_stacks(cli::flame_files(o));
  if (!o.sign_key.empty()) {
    std::string err;
    if (!cli::check_signing_files(o.sign_key, o.sign_cert, &err)) {
      std::cerr << "xtap: " << err << "\n";
      return 1;
    }
  }
  if (o.check) return cli::run_preflight(o);
  if (o.merge && o.remotes.empty()) return cli::run_merge(o);
  if (!o.kernels.empty()) return cli::build_bundle(o, cli::compile_and_run);
  // Before the progress line: its ticker thread would not survive the
  // fork of each host's build.
  if (!o.remotes.empty()) return cli::run_remote(o, cli::runner_args(o), cli::compile_and_run);
  cli::TerminalProgress progress(!o.quiet && !o.json && !o.verbose);
  cli::set_run_progress(&progress);
  return cli::compile_and_run(o);
}
