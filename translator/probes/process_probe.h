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
  int pid = 0;                 // process(PID): fires only in that process

  // The file's GNU build-id (raw bytes, "" when it has none) and their
  // offset in the file, checked by the module before arming
  // (process_target.cpp).
  std::string build_id;
  uint64_t build_id_offset = 0;
  bool build_id_read = false;

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

// process(PID): `pp` with the PID replaced by the process's executable
// (/proc/PID/exe on this machine; under --sysroot DIR a path inside DIR is
// taken as the target sees it, any other with *env_out's sysroot cleared).
// False, with XTP2178 at the PID, when there is no such process.
bool process_pid_point(const ProbePoint &pp, const ProbeEnv &env, ProbePoint *by_path, ProbeEnv *env_out,
                       Diagnostics &diags);

// Records the build-id of the file of each ProcessFunctionProbe of
// out[from..] (read again under `sysroot`, once per file).
void note_build_ids(DerivedProbes &out, size_t from, const std::string &sysroot);

// The spec fields (", .pid = ..., .build_id = ...") of one probe.
std::string process_spec_fields(const ProcessFunctionProbe &p);

// process[("PATH")][.library("LIB")].plt[("PATTERN")][.return]
// (process_plt.cpp).
void derive_process_plt(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out, Diagnostics &diags);

}  // namespace xtap
