// The derived probe of the process family (probes/process.cpp) and what its
// derivations share: one uprobe or uretprobe at a file offset of a program
// or shared library. .function, .statement and .mark are derived in
// process.cpp, .plt in process_plt.cpp; the provider emits them all as one
// table (runtime-kmod/probes/uprobes.c).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "probes/provider.h"

namespace xtap {

class KernelDwarf;
class ElfSymbols;

class ProcessFunctionProbe : public DerivedProbe {
 public:
  std::string path;      // as probed on the target
  std::string function;  // the symbol
  uint64_t offset = 0;   // in the file
  bool is_return = false;
  bool is_call = false;
  mutable std::vector<ContextVar> vars;

  std::string program, library;  // .library("LIB") of process("PROGRAM"), as written
  std::string program_path;      // that PROGRAM as the target sees it

  uint64_t statement = 0;       // .statement(ADDR): the address as written
  std::string source_line;      // .statement("FUNC@FILE:LINE"): as pp() shows it ("f@f.c:12")
  std::string mark, provider;   // .mark("NAME"): the USDT site's name; .provider("P") as written
  uint64_t ref_ctr_offset = 0;  // USDT: file offset of its semaphore, or 0
  bool plt = false;             // .plt: `function` is the symbol the PLT entry calls ($$name)
  int pid = 0;                  // process(PID): fires only in that process

  // The file's GNU build-id (raw bytes, "" when it has none) and their
  // offset in the file, checked by the module before arming
  // (process_target.cpp).
  std::string build_id;
  uint64_t build_id_offset = 0;
  bool build_id_read = false;

  // $name from the program's DWARF (process_vars.cpp), read on first use:
  // the file on this machine, the function's link-time entry address and
  // the probed address (the same at a function's entry; a statement's
  // inside it). No host_file: the location has no DWARF variables (.plt,
  // .mark).
  std::string host_file;
  uint64_t function_address = 0, address = 0;

  std::string user_file() const override { return path; }
  std::string user_program() const override { return program_path; }
  std::string name() const override;
  const std::vector<ContextVar> &context_vars() const override {
    load_dwarf_vars();
    return vars;
  }
  const TypeTable *types() const override;
  bool string_constant(const std::string &name, std::string *value) const override;
  bool user_memory() const override { return true; }
  std::string missing_debuginfo() const override {
    load_dwarf_vars();
    return dwarf_missing;
  }
  // A .return probe reads a parameter, which the runtime then keeps from
  // the call's entry.
  bool reads_entry_args() const;

  // $return of a .return probe: the return register.
  void add_return_var();

 private:
  void load_dwarf_vars() const;
  mutable bool dwarf_loaded_ = false;
  mutable const KernelDwarf *dwarf_ = nullptr;
  mutable std::string dwarf_missing;
};

bool is_glob(const std::string &s);

// The type table of the process probes' context variables without DWARF:
// one signed 8-byte integer named `spelling` ("long" for the syscall
// values, as stap declares them; "long int" for the return register).
// Callers keep the table in a static: DerivedProbe::types() points at it.
TypeTable long_type_table(const char *spelling);

// Where `written` is on this machine: under the sysroot, and for a bare
// name searched in $PATH as stap does. Sets *target to the path the target
// sees. "" if it does not exist.
std::string host_path(const std::string &written, const std::string &sysroot, std::string *target);

// The program or library `pp` names (its first component), opened for its
// ELF symbols: *file on this machine, *target as probed. Null after
// reporting why not (silently for an optional point).
std::unique_ptr<ElfSymbols> open_program(const ProbePoint &pp, const ProbeEnv &env,
                                         std::string *file, std::string *target,
                                         Diagnostics &diags);

// The directories a library named without a '/' is searched in, in order.
const std::vector<std::string> &library_dirs();

// process(PID): `pp` with the PID replaced by the process's executable
// (/proc/PID/exe on this machine; under --sysroot DIR a path inside DIR is
// taken as the target sees it, any other with *env_out's sysroot cleared).
// False, with XTP2178 at the PID, when there is no such process.
bool process_pid_point(const ProbePoint &pp, const ProbeEnv &env, ProbePoint *by_path,
                       ProbeEnv *env_out, Diagnostics &diags);

// Records the build-id of the file of each ProcessFunctionProbe of
// out[from..] (read again under `sysroot`, once per file).
void note_build_ids(DerivedProbes &out, size_t from, const std::string &sysroot);

// The spec fields (", .pid = ..., .build_id = ...") of one probe.
std::string process_spec_fields(const ProcessFunctionProbe &p);

// The DWARF of the program or library at `host_file` (this machine's
// path), opened once per translation; null with *why when it has none
// (stripped, and no separate debuginfo found by build-id or debuglink).
const KernelDwarf *user_dwarf(const std::string &host_file, std::string *why);

// process("PATH").statement("FUNC@FILE:LINE") (also :N-M, :*, +REL): a
// uprobe at each line's address from the program's DWARF line table
// (process_vars.cpp).
void derive_process_source_statement(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                                     Diagnostics &diags);

// process[("PATH")][.library("LIB")].plt[("PATTERN")][.return]
// (process_plt.cpp).
void derive_process_plt(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                        Diagnostics &diags);

}  // namespace xtap
