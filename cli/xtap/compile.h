// Passes 1-4 of one run for one kernel (parse, elaborate, translate,
// build), then pass 5 (run_module.h); each stops the run where -p says.
// The pieces of passes 1 and 2 that --check (preflight.h) runs on its own
// are declared here too.
#pragma once

#include <memory>
#include <string>

#include "diag/diagnostics.h"
#include "kbuild/kbuild.h"
#include "parse/ast.h"
#include "parse/preprocess.h"
#include "probes/provider.h"
#include "xtap/kernel_data.h"
#include "xtap/options.h"

namespace xtap::cli {

// The exit status of the run.
int compile_and_run(const Options &o);

// The script of -e/-E or the file (standard input for "-"); false after
// saying why it cannot be read.
bool read_script(const Options &o, SourceFile *f);
// The build caches and the progress callback of a run.
kbuild::Env build_env(const Options &o);
// The preprocessor's view of the run: arguments, guru mode, --compatible,
// and the target kernel's release and configuration.
void set_up_preprocessor(const Options &o, const TargetKernel &kernel, PreprocessContext *pctx);
// Pass 1 without printing: the script, the tapsets' macros and scripts, -G.
// Null with *err set when the tapsets or -G fail; parse errors are in diags.
std::unique_ptr<Script> parse_with_tapsets(const Options &o, SourceFile &file,
                                           PreprocessContext *pctx, Diagnostics &diags,
                                           std::string *err);
// Where process probes look: --sysroot, and the program of -c CMD or of
// the -x process (when it runs on this machine) for probes without a path
// (process.plt).
void set_up_programs(const Options &o, ProbeEnv *env);

}  // namespace xtap::cli
