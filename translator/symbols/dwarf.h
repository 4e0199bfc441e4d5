// What pass 2 learns from a kernel's or a module's DWARF debuginfo (Debian's
// linux-image-KVER-dbg package, a build tree's vmlinux, a module built with
// -g), read with elfutils' libdw: every function that has code, with its
// source file and line, its entry address and the symbol the runtime
// finds it by at load time; the line table rows of a function (statement
// probes); a function's parameters with their C types, converted on demand
// into the catalog's type model (symbols/catalog.h) so that target
// expressions ($file->f_path) walk them as they walk BTF types.
//
// The function index takes a few seconds to build from a 600 MB vmlinux;
// it is written once per debuginfo build-id under the cache directory and
// read back in milliseconds on the next run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbols/catalog.h"

namespace xtap {

class InlineIndex;
struct InlineRow;

struct DwarfFunction {
  std::string name;
  std::string file;    // declaring source file as DWARF names it ("fs/read_write.c")
  int line = 0;        // declaring line
  uint64_t entry = 0;  // low_pc, as linked (before KASLR or module relocation)
  uint64_t die = 0;    // offset of its DW_TAG_subprogram
  // The ELF function symbol at `entry` ("f", or a clone's "f.isra.0") when
  // no other function symbol has that name; "" otherwise.
  std::string symbol;
  // A GCC clone's ELF name ("f.isra.0", "f.constprop.1", "f.part.0"): an
  // out-of-line subprogram whose DIE takes its name from f's
  // (DW_AT_abstract_origin) and whose entry has a symbol with a '.' suffix,
  // unique or not. "" for f's own code. Its calling convention is not f's
  // prototype's (probes/dwarf_function.cpp reads its parameters by DWARF).
  std::string clone;
  bool exported = false;  // EXPORT_SYMBOL'd: a __ksymtab_NAME symbol exists
  // An inlined instance (DW_TAG_inlined_subroutine at `die`, its entry pc
  // at `entry`): `outer` is the offset of the function it was inlined
  // into, whose frame base and kprobe symbol it uses.
  bool inlined = false;
  uint64_t outer = 0;
};

// One is_stmt row of the line table: the first address of `line` in a function.
struct DwarfLine {
  int line = 0;
  uint64_t addr = 0;
};

// One operation of a location expression that is not one of DwarfVar's
// simple forms, as pass 2 leaves it for the provider to turn into C
// (probes/dwarf_location.cpp): a stack machine like DWARF's, with what is
// known at translation time resolved: the frame base and the CFA are a
// register plus an offset, DW_OP_addr a symbol relocated at load time, and
// DW_OP_entry_value(DW_OP_regN) the argument register the function's
// entry saved (or the register itself at the entry).
struct DwarfExprOp {
  enum class Kind {
    Const,     // push `number`
    Reg,       // push register `reg` + `number` (DW_OP_breg, DW_OP_fbreg, DW_OP_call_frame_cfa)
    Symbol,    // push the address of `symbol` + `number`
    EntryReg,  // push the value register `reg` had at the function's entry
    Deref,     // pop an address, push the `size`-byte value there
    Unary,     // `atom` (DW_OP_neg, DW_OP_not, DW_OP_abs, DW_OP_plus_uconst `number`)
    Binary,    // `atom` (DW_OP_plus, DW_OP_and, DW_OP_shl, DW_OP_lt, ...)
    Pick,      // push a copy of the entry `number` deep (DW_OP_dup is 0, DW_OP_over 1)
    Drop,
    Swap,
    Rot,
  } kind = Kind::Const;
  int reg = -1;
  int atom = 0;
  uint32_t size = 8;
  int64_t number = 0;
  std::string symbol;
};

// A part of a variable (DW_OP_piece) or, without pieces, all of it: where
// its bytes are.
struct DwarfPiece {
  enum class Kind {
    Memory,    // at the address `ops` compute
    Register,  // in register `reg`
    Value,     // `ops` compute the value itself (DW_OP_stack_value, DW_OP_implicit_value)
    Missing,   // optimised out (an empty piece)
  } kind = Kind::Missing;
  std::vector<DwarfExprOp> ops;
  int reg = -1;
  uint32_t size = 0;  // bytes; 0: the whole variable (no DW_OP_piece)
};

// A parameter or local variable at one address, and where its value is
// there, from its DWARF location expression.
struct DwarfVar {
  enum class Where {
    Register,     // in DWARF register `reg` (x86-64 numbering)
    Memory,       // in memory at (register `reg`) + `offset`
    Constant,     // DW_AT_const_value: `offset` is the value
    Address,      // DW_OP_addr A, DW_OP_stack_value: the value is the address
                  // `symbol` + `offset`, relocated at load time (a pointer
                  // a clone's constant propagation fixed, as in f.constprop.0)
    EntryValue,   // DW_OP_entry_value(DW_OP_reg `reg`): the register as the
                  // function's call entered it, plus `offset`; the value
                  // itself (DW_OP_stack_value) or, with `in_memory`, memory
                  // there. The call is told apart from others by its CFA,
                  // register `cfa_reg` + `cfa_offset` at this address.
    Computed,     // any other expression GCC emits: `pieces` (EntryReg
                  // operations use `cfa_reg` and `cfa_offset` as EntryValue)
    Unavailable,  // `why`
  } where = Where::Unavailable;
  std::string name;
  int type = -1;  // in KernelDwarf::types()
  bool parameter = false;
  int reg = -1;
  int64_t offset = 0;
  std::string symbol;      // Address: the symbol it is relocated by (as DwarfGlobal::symbol)
  bool in_memory = false;  // Address: the variable is stored there (DW_OP_addr alone, a static);
                           // EntryValue: at the address the entry value gives
  int cfa_reg = -1;        // EntryValue
  int64_t cfa_offset = 0;
  std::vector<DwarfPiece> pieces;  // Computed
  std::string why;
};

// A call a function makes (DW_TAG_call_site, DW_TAG_GNU_call_site): the
// function called and the address the call returns to.
struct DwarfCallSite {
  std::string callee;       // its name, as DWARF's DW_AT_call_origin names it
  uint64_t callee_die = 0;  // that DIE (a definition or a declaration)
  uint64_t return_pc = 0;   // as linked, like DwarfFunction::entry
  bool tail = false;        // a tail call (a jump): nothing returns to the caller
};

// A global or file-static variable at a fixed address (DW_OP_addr), and
// the symbol the runtime relocates it by at load time: its own name when
// that is unique, else a symbol every relocation moves with it (vmlinux:
// _stext; a module: a uniquely named symbol of the same section). Module
// symbols are "module:name", as kallsyms spells them.
struct DwarfGlobal {
  std::string name;
  std::string file;  // the compilation unit that defines it
  int type = -1;     // in KernelDwarf::types()
  std::string symbol;
  int64_t offset = 0;
  std::string why;  // non-empty: it exists but xtap cannot place it (why)
};

class KernelDwarf {
 public:
  ~KernelDwarf();
  // `module`: "" for vmlinux, else the module's name as the kernel knows it
  // ("ext4"). With a non-empty `cache_dir`, the function index is read from
  // and written to it. On failure returns null with *error set.
  static std::unique_ptr<KernelDwarf> open(const std::string &path, const std::string &module,
                                           const std::string &cache_dir, std::string *error);

  const std::string &path() const { return path_; }
  const std::string &module() const { return module_; }
  bool index_from_cache() const { return from_cache_; }
  // Sorted by name, then file.
  const std::vector<DwarfFunction> &functions() const { return functions_; }
  // Functions whose name matches `name_glob` and, when `file_glob` is not
  // empty, whose file matches it (fnmatch, '*' crossing '/'; "fs/open.c"
  // also matches any directory prefix, as a relative source path).
  std::vector<const DwarfFunction *> match(const std::string &name_glob,
                                           const std::string &file_glob) const;
  static bool file_matches(const std::string &file_glob, const std::string &file);
  // The inlined instances of functions matching the globs (as match()),
  // from an index of them cached per build-id beside the function index
  // (symbols/dwarf_inlines.cpp, symbols/inline_index.h), built on first
  // use by a walk of every function's DIE tree. kprobe_site and
  // variables_at take them like functions.
  std::vector<const DwarfFunction *> match_inlined(const std::string &name_glob,
                                                   const std::string &file_glob) const;

  // The out-of-line function whose code holds `addr` (as linked), or null.
  const DwarfFunction *function_at(uint64_t addr) const;

  // The calls `f` makes to named functions, in address order, from its
  // DIE tree (symbols/dwarf_call_sites.cpp). Indirect calls have no callee
  // and are left out.
  std::vector<DwarfCallSite> call_sites(const DwarfFunction &f) const;

  // The lines of `f` in [first, last] (in its own file) with their lowest
  // address, ascending by line. Empty when the line table has none.
  std::vector<DwarfLine> lines(const DwarfFunction &f, int first, int last) const;

  // The labels of `f` (C `name:`) matching `glob` that have an address.
  std::vector<std::pair<std::string, DwarfLine>> labels(const DwarfFunction &f,
                                                        const std::string &glob) const;

  // The symbol and offset the runtime's kprobe finds `addr` (in `f`) by:
  // the function's own name when it is unique, else a symbol every
  // relocation moves with it (vmlinux: _stext). Module symbols are
  // "module:name", as kallsyms spells them.
  void kprobe_site(const DwarfFunction &f, uint64_t addr, std::string *symbol,
                   uint64_t *offset) const;

  // The parameters of `f` (names and C types in types()), and its return
  // type (a Void type for void). False when its DIE cannot be read.
  bool prototype(const DwarfFunction &f, std::vector<KParam> *params, int *return_type) const;
  const TypeTable &types() const { return types_; }

  // The parameters and local variables in scope at `addr` in `f`
  // (innermost first where names repeat), each with where its value is
  // at that address (symbols/dwarf_vars.cpp).
  std::vector<DwarfVar> variables_at(const DwarfFunction &f, uint64_t addr) const;

  // The definitions of globals and file statics named `name` in the
  // compilation units whose name matches `file_glob` ("" any), as
  // @var("name@file") finds them (symbols/dwarf_globals.cpp).
  std::vector<DwarfGlobal> globals(const std::string &name, const std::string &file_glob) const;
  // `name` as a global seen from inside `f`: a variable of f's compilation
  // unit (a definition, or an extern declaration whose definition is
  // elsewhere). False when f's unit does not know the name.
  bool global_seen_from(const DwarfFunction &f, const std::string &name, DwarfGlobal *out) const;
  // A complete struct or union named `name` ("timeval", "struct timeval",
  // "union u") or by a typedef, in types(); -1 if there is none
  // (symbols/dwarf_named_types.cpp).
  int find_named_record(const std::string &name) const;

 private:
  struct Impl;
  KernelDwarf() = default;
  bool build_index(std::string *error);
  void add_aliases(const std::multimap<uint64_t, std::string> &symbols_at,
                   const std::unordered_map<std::string, int> &symbol_count,
                   const std::unordered_map<std::string, bool> &exported);
  bool read_index(const std::string &file);
  void write_index(const std::string &file) const;
  int convert_type(const void *die) const;
  bool global_of_die(const void *die, const std::string &file, DwarfGlobal *out) const;
  void place_global(uint64_t addr, DwarfGlobal *g) const;

  std::string path_, module_;
  bool from_cache_ = false;
  uint64_t stext_ = 0;
  std::vector<DwarfFunction> functions_;
  std::vector<InlineRow> walk_inlined() const;
  const InlineIndex &inline_index() const;
  std::string inline_index_file_;  // "" without a cache directory
  mutable std::unique_ptr<InlineIndex> inline_index_;
  mutable std::unordered_map<uint32_t, DwarfFunction> inlined_;  // by index row, made on demand
  std::unique_ptr<Impl> impl_;
  mutable TypeTable types_;
  mutable std::unordered_map<uint64_t, int> type_of_die_;
};

// Where the debuginfo of the kernel `release` or of one of its modules is:
// `extra` (--debuginfo: a file, or directories searched first), then
// Debian's /usr/lib/debug layout and /lib/modules/RELEASE/build/vmlinux.
// `module` is "" for vmlinux, a module name or glob ("dccp*"), or a path to
// a .ko file. Returns (module name, path) pairs; empty with *error saying
// where it looked when there is none.
std::vector<std::pair<std::string, std::string>> find_debuginfo(
    const std::string &release, const std::vector<std::string> &extra, const std::string &module,
    std::string *error);

}  // namespace xtap
