// The kernel.function family's derived probe, shared by its two sources of
// functions: the kernel's BTF (kernel_function.cpp: names, prototypes) and
// DWARF debuginfo (dwarf_function.cpp: source files and lines, statements,
// modules). Both register kprobes/kretprobes through one runtime table
// (runtime-kmod/probes/kprobes.c).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "probes/provider.h"
#include "symbols/btf.h"
#include "symbols/dwarf.h"

namespace xtap {

class KernelFunctionProbe : public DerivedProbe {
 public:
  std::string function;
  bool is_return = false;
  bool is_call = false;       // written .call: pp() keeps it, as in stap
  bool from_pattern = false;  // one of several functions a glob matched
  std::string pattern;        // the point as pass 2 matched it, for runtime messages
  mutable std::vector<ContextVar> vars;
  const TypeTable *table = nullptr;
  // DWARF: pp() as stap spells it (kernel.function("f@fs/x.c:12"),
  // kernel.statement(...), module("m").function(...)); the kprobe's symbol
  // and offset ("m:f", _stext+N). Empty: the BTF defaults (function, +0).
  std::string display;
  std::string symbol;
  uint64_t offset = 0;
  uint32_t maxactive = 0;  // .return.maxactive(N); 0: the kernel's default
  // .callee: fire only for calls returning to this symbol + offset (the
  // caller's call site), as the return address on the stack at entry says.
  std::string return_symbol;
  uint64_t return_offset = 0;
  // kernel.statement(ADDR).absolute: a kprobe at this address, as it is.
  uint64_t address = 0;
  // A GCC clone's ELF name (f.isra.0) when this probes one of f's clones.
  std::string clone;

  std::string name() const override {
    std::string max = maxactive ? ".maxactive(" + std::to_string(maxactive) + ")" : "";
    if (!display.empty()) return display + max;
    return "kernel.function(\"" + function + "\")" +
           (is_return ? ".return"
            : is_call ? ".call"
                      : "") +
           max;
  }
  // DWARF: the variables are worked out on first use (types and scopes are
  // read only for the probes whose bodies use them).
  mutable std::function<std::vector<ContextVar>()> lazy_vars;
  const std::vector<ContextVar> &context_vars() const override {
    if (lazy_vars) {
      vars = lazy_vars();
      lazy_vars = nullptr;
    }
    return vars;
  }
  const TypeTable *types() const override { return table; }
  std::vector<std::string> c_declarations() const override {
    std::vector<std::string> decls;
    if (!lazy_vars)  // else no variable was looked up
      for (const ContextVar &v : vars)
        if (v.used && !v.c_decl.empty()) decls.push_back(v.c_decl);
    return decls;
  }
  // DWARF: globals as the probed function's compilation unit sees them.
  // A probe found in BTF reads them from the kernel's DWARF too, whose
  // types are not the probe's (global_table); when there is none,
  // globals_error says why.
  std::function<bool(const std::string &name, const std::string &file, ContextVar *out)>
      lazy_global;
  mutable const TypeTable *global_table = nullptr;
  mutable std::string globals_error;
  bool global_var(const std::string &name, const std::string &file, ContextVar *out,
                  const TypeTable **types) const override {
    if (!lazy_global || !lazy_global(name, file, out)) return false;
    *types = global_table ? global_table : table;
    return true;
  }
  std::string globals_unavailable() const override { return globals_error; }
};

bool kfunc_is_glob(const std::string &s);

// Entry values (DW_OP_entry_value) read at statements: the function whose
// calls keep their argument registers, as ContextVar::entry_frame names it
// (its kprobe symbol and offset, and its name for messages), and the C
// name of its struct xtap_entry_frames in the generated module.
std::string entry_frame_key(const std::string &symbol, uint64_t offset,
                            const std::string &function);
struct EntryFrameSite {
  std::string symbol;
  uint64_t offset = 0;
  std::string function;
};
EntryFrameSite entry_frame_site(const std::string &key);
std::string entry_frames_c_name(const std::string &key);

// `value` (a u64 register) as the u64 a script sees for C type `type`
// (narrow integers truncated or sign-extended); "" if it is not a scalar
// that fits a register.
std::string register_value(const TypeTable &types, int type, const std::string &value);

// A variable at a statement (or a local at a function's entry) as a
// context variable, read from where DWARF says it is at that address.
// `entry_frame`: the entry_frame_key() of the function the statement is
// in, whose calls keep their entry values for DW_OP_entry_value. `user`:
// the variable is a user program's (process probes), in its memory.
ContextVar dwarf_context_var(const TypeTable &types, const DwarfVar &v,
                             const std::string &entry_frame = "", bool user = false);

// The parameters of `f` as context variables read from the argument
// registers at entry (and $return in a return probe).
std::vector<ContextVar> parameter_vars(const TypeTable &types, const KFunction &f, bool is_return);

// @var("name@file"[, "module"]) where the location has no DWARF of its
// own (begin, timer, BTF probes): the variable from the debuginfo of the
// kernel (module "") or of `module`. False with *error when there is no
// debuginfo, no such variable, or several and no file to tell them apart.
bool dwarf_global_var(const ProbeEnv &env, const std::string &module, const std::string &name,
                      const std::string &file, ContextVar *out, const TypeTable **types,
                      std::string *error);

// $name of a kernel global at a probe found in BTF: looked up in the
// kernel's DWARF debuginfo when installed (as the probed function's
// compilation unit sees it); otherwise the probe's globals_error says why.
void add_dwarf_globals(KernelFunctionProbe &dp, const ProbeEnv &env);

// A DWARF location as probe points write it: "FUNC[@FILE[:LINE|:N-M|:*|+REL]]".
struct DwarfLocationSpec {
  std::string function;     // name glob
  std::string file;         // file glob, "" for any
  int first = 0, last = 0;  // lines (statements); 0: none given
  bool all_lines = false;   // :*
  int relative = -1;        // +N: N lines after the function's declaration
  std::string error;
  // The line table rows of `f` the spec names (a statement's addresses).
  std::vector<DwarfLine> lines_of(const KernelDwarf &d, const DwarfFunction &f) const;
};
// `statement`: a line is required. An empty FUNC is "*".
DwarfLocationSpec parse_dwarf_location(const std::string &text, bool statement);

// kernel.function("f@file"), kernel.statement(...), module(...).function
// and .statement from DWARF debuginfo (dwarf_function.cpp).
// `clones`: whether f's GCC clones (f.isra.0, symbols/dwarf.h) are
// probed with f: always (kernel.function("f")), never (.exact), or only
// they (the BTF provider, which probes f itself, adds them so).
enum class CloneChoice { Include, Exclude, Only };
void derive_from_dwarf(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                       Diagnostics &diags, CloneChoice clones = CloneChoice::Include);

}  // namespace xtap
