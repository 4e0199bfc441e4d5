// Probe families as derived probes. Pass 2 asks each family's provider to
// expand a probe point into derived probes, one per concrete location (a
// tracepoint, a kernel function, a timer); the derived probe answers the
// context variables ($prev, $$parms) of its location. Pass 3 asks the
// provider to emit its family's registration table. The runtime has one
// file per family with the matching operations (runtime-kmod/probes/).
//
// A new family is one provider file here (registered in provider.cpp) and one
// runtime file; docs/architecture.md walks through the tracepoint family.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/c_writer.h"
#include "diag/diagnostics.h"
#include "parse/ast.h"

namespace xtap {

class KernelBtf;
class KernelDwarf;
class KernelCatalog;
class TypeTable;
class ProbeProvider;

// A context variable of one probe location ($name): its C type and how a
// handler of that location gets its value.
struct ContextVar {
  std::string name{};     // without the '$'
  int type = -1;          // in the location's type table
  std::string c_value{};  // C expression of type u64 in a handler (context `c`)
  bool parameter = true;  // in $$parms (else only in $$vars/$$locals)
  // Non-empty: the variable exists at this location but xtap cannot read
  // it; why (a struct passed by value, a seventh argument). Using it is an
  // error that says so; pretty-prints show it as '?'.
  std::string unavailable{};
  // Non-empty: the variable lives in memory at this address (a u64 C
  // expression); it is read (and, in guru mode, written) there, so that
  // structs and arrays in memory are places like @cast's.
  std::string address_c{};
  // >= 0: the DWARF register that holds it (guru-mode writes).
  int reg = -1;
  // c_value can raise a run-time error (the generated code checks after it).
  bool can_fail = false;
  // Non-empty: the value is one the function had at its entry
  // (DW_OP_entry_value), which the provider keeps for the location by
  // hooking that entry; a key the provider understands. `used` is set by
  // resolve_targets when a target expression reads the variable, so that only the
  // entries whose values are read are hooked.
  std::string entry_frame{};
  mutable bool used = false;
  // Non-empty: a file-scope C declaration c_value needs (the module emits
  // each one once, before the handlers, for the variables that are used).
  std::string c_decl{};
};

class DerivedProbe {
 public:
  virtual ~DerivedProbe() = default;

  ProbeDecl *decl = nullptr;          // the probe whose body runs here
  const ProbePoint *point = nullptr;  // the point as written
  const ProbeProvider *provider = nullptr;
  bool optional = false;  // pp?: failing to register is not an error

  // The location as pp() shows it, e.g. kernel.trace("sched:sched_switch").
  virtual std::string name() const { return point->str(); }
  // The context variables of this location, in order; empty for families
  // that have none.
  virtual const std::vector<ContextVar> &context_vars() const;
  const ContextVar *context_var(const std::string &name) const;
  // Where their types live (null when there are no context variables).
  virtual const TypeTable *types() const { return nullptr; }
  // A global or file static `name` (of `file`, "" for the location's own
  // compilation unit) as this location sees it, for $name and @var; its
  // type in *types. False when the location knows no such variable.
  virtual bool global_var(const std::string &name, const std::string &file, ContextVar *out,
                          const TypeTable **types) const {
    (void)name, (void)file, (void)out, (void)types;
    return false;
  }

  // Non-empty: why this location cannot read the kernel's globals as
  // `$name` (no DWARF debuginfo), for the error about an unknown `$name`.
  virtual std::string globals_unavailable() const { return ""; }

  // A context variable this location knows as a string at translation
  // time ($$name of a PLT probe: the function the entry calls); false when
  // it has no such variable.
  virtual bool string_constant(const std::string &name, std::string *value) const {
    (void)name, (void)value;
    return false;
  }

  // The user-space program or library this location is in, as probed on
  // the target ("" for kernel locations): its symbols go into the module
  // when the script symbolizes user addresses (codegen/user_symbols.h).
  virtual std::string user_file() const { return ""; }
  // The program that loads user_file() when that is a library
  // (process("PROG").library("LIB")), as the target sees it; "" otherwise.
  // `xtap --vm` carries both into the guest (cli/vm/carry.h).
  virtual std::string user_program() const { return ""; }
  // True where the context variables are the probed program's (process
  // probes): pointers in them point into user memory, so target
  // expressions through them read with the user nofault reader.
  virtual bool user_memory() const { return false; }
  // Non-empty: why this location has no variables from debuginfo ($name
  // is unknown because the program has none), for the error about $name.
  virtual std::string missing_debuginfo() const { return ""; }

  // Pass 3: the file-scope declarations the used context variables'
  // c_values need (ContextVar::c_decl).
  virtual std::vector<std::string> c_declarations() const { return {}; }
  // Pass 3: the handler's C name and the struct xtap_probe initializer.
  std::string handler;
  std::string probe_init;
};

using DerivedProbes = std::vector<std::unique_ptr<DerivedProbe>>;

// What providers add to the script descriptor in pass 3.
struct ScriptTables {
  std::vector<std::string> groups;  // entries of the probe-group table (registered families)
  std::vector<std::string> fields;  // other struct xtap_script fields (begin/end phases)
};

// What providers may consult while deriving: the target kernel's catalog
// (loaded on first use; null with *error when it cannot be had).
struct ProbeEnv {
  std::function<const KernelCatalog *(std::string *error)> catalog;
  // The target kernel's BTF (functions, prototypes, types), loaded on first
  // use; null with *error when the kernel has none or it cannot be read.
  std::function<const KernelBtf *(std::string *error)> btf;
  // The DWARF debuginfo of the kernel (module "") or of the modules whose
  // name matches `module` (a name, a glob, or a path to a .ko), opened on
  // first use; empty with *error when there is none.
  std::function<std::vector<const KernelDwarf *>(const std::string &module, std::string *error)>
      dwarf;
  // --sysroot: where process("PATH") programs are read on this machine
  // (DIR/PATH); "" reads PATH itself.
  std::string sysroot;
  // The program of -c CMD or -x PID as the target sees it ("" without
  // them): what process probes without a path (process.plt) probe.
  std::string target_program;
  // -g: probe points that can crash the kernel (kernel.statement(ADDR).absolute) are allowed.
  bool guru = false;
};

class ProbeProvider {
 public:
  virtual ~ProbeProvider() = default;
  // The spellings this family accepts, for -p2 listings and suggestions.
  virtual std::vector<std::string> spellings() const = 0;
  // True if `pp` belongs to this family (by its first component).
  virtual bool matches(const ProbePoint &pp) const = 0;
  // Expands `pp` of `decl` into derived probes appended to `out`, or reports
  // why it cannot (a malformed point, an unknown location). An optional
  // point (pp?) that matches nothing derives nothing, silently.
  virtual void derive(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &env,
                      DerivedProbes &out, Diagnostics &diags) const = 0;
  // Checks what holds for the family's probes together (in script order),
  // once every point of the script is derived: a limit on their number.
  virtual void check_family(const std::vector<const DerivedProbe *> &mine,
                            Diagnostics &diags) const {
    (void)mine, (void)diags;
  }
  // Emits the family's tables for its probes (in script order) and adds
  // what points at them to the script descriptor.
  virtual void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
                    ScriptTables &out) const = 0;
  // False for a family whose probes never run (`never`): pass 2 checks
  // their bodies, pass 3 writes no handler for them.
  virtual bool runs() const { return true; }
};

// Every provider, in the order their tables are emitted.
const std::vector<const ProbeProvider *> &probe_providers();
const ProbeProvider *begin_end_provider();

// Helpers shared by providers.
std::string component_names(const ProbePoint &pp);  // "kprobe.function.return"
void emit_probe_array(CWriter &w, const std::string &name,
                      const std::vector<const DerivedProbe *> &probes);
// The kretprobe families' @entry halves (ProbeDecl::entry_half): for each
// probe of `mine`, the index in `mine` of the entry half that runs from its
// kretprobe's entry handler, or -1; halves pair with returns of the same
// entry group by location name (`location_of`), in order.
std::vector<int> pair_entry_halves(
    const std::vector<const DerivedProbe *> &mine,
    const std::function<std::string(const DerivedProbe &)> &location_of);
// "{ .ops = &OPS, .specs = SPECS, .nspecs = N }"
std::string probe_group(const std::string &ops, const std::string &specs, size_t n);

}  // namespace xtap
