// The derived probe of the process family (probes/process.cpp) and what its
// derivations share: one uprobe or uretprobe at a file offset of a program
// or shared library. .function, .statement and .mark are derived in
// process.cpp, .plt in process_plt.cpp; the provider emits them all as one
// table (runtime-kmod/probes/uprobes.c).
#pragma once

#include <string>
#include <vector>

#include "probes/provider.h"

namespace xtap {

class ProcessFunctionProbe : public DerivedProbe {
 public:
  std::string path;      // as probed on the target
  std::string function;  // the symbol
  uint64_t offset = 0;   // in the file
  bool is_return = false;
  bool is_call = false;
  std::vector<ContextVar> vars;

  std::string program, library;  // .library("LIB") of process("PROGRAM"), as written

  uint64_t statement = 0;  // .statement(ADDR): the address as written
  std::string mark, provider;  // .mark("NAME"): the USDT site's name; .provider("P") as written
  uint64_t ref_ctr_offset = 0; // USDT: file offset of its semaphore, or 0
  bool plt = false;            // .plt: `function` is the symbol the PLT entry calls ($$name)

  std::string user_file() const override { return path; }
  std::string name() const override;
  const std::vector<ContextVar> &context_vars() const override { return vars; }
  const TypeTable *types() const override;
  bool string_constant(const std::string &name, std::string *value) const override;

  // $return of a .return probe: the return register.
  void add_return_var();
};

bool is_glob(const std::string &s);

// Where `written` is on this machine: under the sysroot, and for a bare
// name searched in $PATH as stap does. Sets *target to the path the target
// sees. "" if it does not exist.
std::string host_path(const std::string &written, const std::string &sysroot, std::string *target);

// The directories a library named without a '/' is searched in, in order.
const std::vector<std::string> &library_dirs();

// process[("PATH")][.library("LIB")].plt[("PATTERN")][.return]
// (process_plt.cpp).
void derive_process_plt(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out, Diagnostics &diags);

}  // namespace xtap
