// The kernel.function family from DWARF debuginfo (symbols/dwarf.h):
//
//   kernel.function("PATTERN@FILE")[.call|.return]   functions by name and source file
//   module("MOD").function("PATTERN[@FILE]")[...]     a module's functions
//   kernel.statement("FUNC@FILE:LINE")                a source line (also :N-M, :*, +REL)
//   module("MOD").statement("FUNC@FILE:LINE")
//   kernel.function("PATTERN").label("NAME")          a C label (NAME a glob)
//
// Each function or line is one derived probe: a kprobe (kretprobe for
// .return) at a symbol and offset the kernel resolves at load time, so a
// module built on one boot runs on another (KASLR) and module functions
// are found wherever the module was loaded ("mod:func"). Function probes
// fire at the first instruction, where the argument registers still hold
// the parameters; their context variables are the prototype from DWARF.
// At statements, parameters and locals are read from where their DWARF
// location expressions put them at that address (symbols/dwarf_vars.cpp).
#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "probes/dwarf_location.h"
#include "probes/kernel_function.h"
#include "symbols/dwarf.h"

namespace xtap {
namespace {

using Spec = DwarfLocationSpec;

Spec parse_location_text(const std::string &text);

}  // namespace

DwarfLocationSpec parse_dwarf_location(const std::string &text, bool statement) {
  Spec s = parse_location_text(text);
  if (s.error.empty() && statement && s.first == 0 && !s.all_lines && s.relative < 0)
    s.error = "a statement needs a line: FUNC@FILE:LINE, FUNC@FILE:N-M, FUNC@FILE:* or FUNC@FILE+N";
  if (s.error.empty() && s.function.empty()) s.function = "*";
  return s;
}

namespace {

Spec parse_location_text(const std::string &text) {
  Spec s;
  size_t at = text.find('@');
  s.function = text.substr(0, at);
  if (at == std::string::npos) return s;
  std::string rest = text.substr(at + 1);
  size_t colon = rest.rfind(':'), plus = rest.rfind('+');
  std::string lines;
  if (colon != std::string::npos) {
    s.file = rest.substr(0, colon);
    lines = rest.substr(colon + 1);
    if (lines == "*") {
      s.all_lines = true;
      return s;
    }
    char *end = nullptr;
    s.first = static_cast<int>(std::strtol(lines.c_str(), &end, 10));
    s.last = s.first;
    if (*end == '-') s.last = static_cast<int>(std::strtol(end + 1, &end, 10));
    if (*end || s.first <= 0 || s.last < s.first) s.error = "bad line number '" + lines + "'";
  } else if (plus != std::string::npos) {
    s.file = rest.substr(0, plus);
    char *end = nullptr;
    s.relative = static_cast<int>(std::strtol(rest.c_str() + plus + 1, &end, 10));
    if (*end || s.relative < 0) s.error = "bad relative line '" + rest.substr(plus) + "'";
  } else {
    s.file = rest;
  }
  return s;
}

}  // namespace

std::vector<DwarfLine> DwarfLocationSpec::lines_of(const KernelDwarf &d,
                                                   const DwarfFunction &f) const {
  if (all_lines) return d.lines(f, 1, 1 << 30);
  if (relative >= 0) return d.lines(f, f.line + relative, f.line + relative);
  return d.lines(f, first, last);
}

namespace {

std::string where(const DwarfFunction &f, int line) {
  return f.name + "@" + f.file + ":" + std::to_string(line);
}

std::string at_file(const std::string &spec) {
  size_t at = spec.find('@');
  return at == std::string::npos ? spec : spec.substr(at);
}

std::string family_prefix(const KernelDwarf &d) {
  return d.module().empty() ? "kernel" : "module(\"" + d.module() + "\")";
}

}  // namespace

// A variable at a statement (or a local at a function's entry) as a
// context variable, read from where DWARF says it is at that address.
// `entry_frame`: the entry_frame_key() of the function the statement is
// in, whose calls keep their entry values for DW_OP_entry_value; `user`:
// the probed program's memory rather than the kernel's.
ContextVar dwarf_context_var(const TypeTable &types, const DwarfVar &v,
                             const std::string &entry_frame, bool user) {
  ContextVar cv;
  cv.name = v.name;
  cv.type = v.type;
  cv.parameter = v.parameter;
  std::string reg = "xtap_dwarf_reg(c, " + std::to_string(v.reg) + ")";
  const KType &t = types.at(types.strip_typedefs(v.type));
  switch (v.where) {
    case DwarfVar::Where::Register:
      cv.reg = v.reg;
      cv.c_value = register_value(types, v.type, reg);
      if (cv.c_value.empty())
        cv.unavailable =
            "it is a " + types.spelling(v.type) + " in a register, which xtap cannot read";
      break;
    case DwarfVar::Where::Memory:
      in_memory_at(t, "(" + reg + " + (" + std::to_string(v.offset) + "LL))", &cv, user);
      break;
    case DwarfVar::Where::Constant: cv.c_value = "(u64)" + std::to_string(v.offset) + "LL"; break;
    case DwarfVar::Where::Address: {
      if (user) {
        // Relocated by a kernel symbol; a program's statics move with its
        // load address, which the probe does not know yet.
        cv.unavailable =
            "it is a static of the program at a fixed address, which xtap cannot place yet";
        break;
      }
      std::string addr =
          "((u64)xtap_data_symbol(\"" + v.symbol + "\") + (" + std::to_string(v.offset) + "LL))";
      if (!v.in_memory) {
        cv.c_value = addr;  // the address is the value
        break;
      }
      // A function-scope static: a place, read and written like a global.
      cv.address_c = addr;
      cv.c_value = addr;
      break;
    }
    case DwarfVar::Where::EntryValue: {
      int slot = argument_slot(v.reg);
      if (slot < 0 || entry_frame.empty()) {
        cv.unavailable = "it is only known as the value register " + std::to_string(v.reg) +
                         " had at the function's entry (DW_OP_entry_value), and xtap keeps only "
                         "the argument registers of a call";
        break;
      }
      // The register as this call's entry saved it: the call is the one
      // whose CFA is this statement's.
      std::string cfa = "(xtap_dwarf_reg(c, " + std::to_string(v.cfa_reg) + ") + (" +
                        std::to_string(v.cfa_offset) + "LL))";
      std::string value = "xtap_entry_arg(c, &" + entry_frames_c_name(entry_frame) + ", " +
                          std::to_string(slot) + ", " + cfa + ")";
      if (v.offset) value = "(" + value + " + " + std::to_string(v.offset) + "ULL)";
      cv.entry_frame = entry_frame;
      cv.c_decl = "static struct xtap_entry_frames " + entry_frames_c_name(entry_frame) + ";";
      cv.can_fail = true;
      if (!v.in_memory) {
        cv.c_value = register_value(types, v.type, value);
        if (cv.c_value.empty())
          cv.unavailable =
              "it is a " + types.spelling(v.type) + " in a register, which xtap cannot read";
        break;
      }
      in_memory_at(t, value, &cv, user);
      break;
    }
    case DwarfVar::Where::Computed: computed_context_var(types, v, entry_frame, user, &cv); break;
    case DwarfVar::Where::Unavailable: cv.unavailable = v.why; break;
  }
  return cv;
}

namespace {

// A global at a fixed address: relocated at load time by its symbol
// (codegen/data_symbols.cpp turns xtap_data_symbol("sym") into the
// address the module resolved when it was loaded).
ContextVar global_context_var(const DwarfGlobal &g) {
  ContextVar cv;
  cv.name = g.name;
  cv.type = g.type;
  cv.parameter = false;
  if (!g.why.empty()) {
    cv.unavailable = g.why;
    return cv;
  }
  cv.address_c =
      "((u64)xtap_data_symbol(\"" + g.symbol + "\") + (" + std::to_string(g.offset) + "LL))";
  cv.c_value = cv.address_c;
  return cv;
}

// The variables at entry of a GCC clone (f.isra.0, f.constprop.0, f.part.0),
// whose calling convention is not its source prototype's: parameters the
// compiler removed or fixed are not passed, so the argument registers hold
// the remaining ones in a different order. Where DWARF says each parameter
// is at the clone's entry is the truth: in an argument register (read as
// that argument, which a .return probe saved at entry), a constant, or an
// address the compiler fixed. The parameters come in `proto`'s (the
// source's) order; one the clone dropped is there, unavailable, so that
// $$parms shows it as '?' and $x says why.
ContextVar clone_entry_var(const TypeTable &types, const DwarfVar &v, const std::string &clone,
                           bool is_return) {
  ContextVar cv = dwarf_context_var(types, v);
  if (v.where == DwarfVar::Where::Register) {
    int slot = argument_slot(v.reg);
    if (slot >= 0) {
      cv.c_value = register_value(types, v.type, "xtap_kfunc_arg(c, " + std::to_string(slot) + ")");
      if (is_return) cv.reg = -1;  // a copy saved at entry
    } else if (is_return) {
      cv.c_value.clear();
      cv.reg = -1;
      cv.unavailable = "it is not in an argument register at entry, so a .return probe has no copy";
    }
  } else if ((v.where == DwarfVar::Where::Memory || v.where == DwarfVar::Where::Computed) &&
             is_return) {
    cv = ContextVar{};
    cv.name = v.name;
    cv.type = v.type;
    cv.parameter = v.parameter;
    cv.unavailable = "it is in memory at entry, which a .return probe does not keep";
  } else if (v.where == DwarfVar::Where::Unavailable && v.parameter) {
    cv.unavailable = "optimized out in clone " + clone;
  }
  return cv;
}

std::vector<ContextVar> clone_entry_vars(const TypeTable &types,
                                         const std::vector<DwarfVar> &at_entry,
                                         const KFunction &proto, const std::string &clone,
                                         bool is_return) {
  std::vector<ContextVar> vars;
  for (const KParam &p : proto.params) {
    auto it = std::find_if(at_entry.begin(), at_entry.end(),
                           [&](const DwarfVar &v) { return v.parameter && v.name == p.name; });
    if (it != at_entry.end()) {
      vars.push_back(clone_entry_var(types, *it, clone, is_return));
      continue;
    }
    ContextVar gone;
    gone.name = p.name;
    gone.type = p.type;
    gone.unavailable = "optimized out in clone " + clone;
    vars.push_back(std::move(gone));
  }
  for (const DwarfVar &v : at_entry) {
    bool listed = std::any_of(vars.begin(), vars.end(),
                              [&](const ContextVar &cv) { return cv.name == v.name; });
    if (listed || (!v.parameter && is_return)) continue;  // locals: not at a return
    vars.push_back(clone_entry_var(types, v, clone, is_return));
  }
  if (is_return) {
    // $return as for any function: the return register.
    KFunction returns;
    returns.return_type = proto.return_type;
    for (auto &r : parameter_vars(types, returns, true)) vars.push_back(std::move(r));
  }
  return vars;
}

// A call kernel.function("F").callee("G") probes: G's entry (or, for a
// copy of G inlined into F, the copy's), for calls from F only.
struct CalleeSite {
  const DwarfFunction *caller = nullptr;
  const DwarfFunction *callee = nullptr;
  uint64_t return_pc = 0;  // where the call returns into the caller; 0 for an inlined copy
};

// The calls `caller` makes to functions matching `callee`, from its DWARF
// call sites. A tail call (a jump) leaves no return address of the caller
// to tell it apart by, so it is not one, as in stap.
std::vector<CalleeSite> callees_of(const KernelDwarf &d, const DwarfFunction &caller,
                                   const Spec &callee) {
  std::vector<CalleeSite> out;
  if (caller.inlined) return out;
  for (const DwarfCallSite &s : d.call_sites(caller)) {
    if (s.tail || fnmatch(callee.function.c_str(), s.callee.c_str(), 0) != 0) continue;
    // The call site names the callee's DIE in the caller's unit: its
    // definition (a static function), else a declaration or an abstract
    // instance, and then the function of that name.
    const DwarfFunction *target = nullptr;
    for (const DwarfFunction *f : d.match(s.callee, callee.file)) {
      if (f->die == s.callee_die) {
        target = f;
        break;
      }
      if (!target) target = f;
    }
    if (target) out.push_back({&caller, target, s.return_pc});
  }
  for (const DwarfFunction *f : d.match_inlined(callee.function, callee.file))
    if (f->outer == caller.die) out.push_back({&caller, f, 0});
  return out;
}

// kernel.statement(ADDR): ADDR as linked in vmlinux, placed at load time
// like any statement (by the function's symbol, or _stext) with the
// variables DWARF has there; kernel.statement(ADDR).absolute (guru mode):
// a kprobe at ADDR as given, with no debuginfo and no variables, for the
// running kernel only (KASLR moves it on every boot).
void derive_statement_address(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                              Diagnostics &diags) {
  const auto &cs = pp.components;
  uint64_t addr = static_cast<uint64_t>(cs[1].num_arg);
  bool absolute = cs.size() == 3 && cs[2].name == "absolute" && !cs[2].has_arg;
  if (cs.size() > 2 && !absolute) {
    diags.error("XTP2151", cs[2].loc, "unknown probe point '" + pp.str() + "'").hint =
        "kernel.statement(ADDR) or, in guru mode, kernel.statement(ADDR).absolute";
    return;
  }
  auto dp = std::make_unique<KernelFunctionProbe>();
  if (absolute) {
    if (!env.guru) {
      diags.error("XTP2151", cs[2].loc, "kernel.statement(ADDR).absolute needs guru mode").hint =
          "run with -g: a kprobe at an address that is not an instruction boundary corrupts the "
          "kernel";
      return;
    }
    dp->address = addr;
    dp->display = "kernel.statement(" + hex_address(addr) + ").absolute";
    out.push_back(std::move(dp));
    return;
  }
  std::string error;
  std::vector<const KernelDwarf *> sources =
      env.dwarf ? env.dwarf("", &error) : std::vector<const KernelDwarf *>{};
  const DwarfFunction *f = sources.empty() ? nullptr : sources.front()->function_at(addr);
  if (!f) {
    if (pp.optional) return;
    auto &d = diags.error("XTP2153", cs[1].loc,
                          sources.empty()
                              ? "kernel.statement(ADDR) needs the kernel's DWARF debuginfo: " +
                                    (error.empty() ? "none found" : error)
                              : "no function of this kernel has code at " + hex_address(addr));
    d.hint = sources.empty()
                 ? "install Debian's package linux-image-KVER-dbg, or point at the debuginfo with "
                   "--debuginfo PATH"
                 : "ADDR is an address as linked (System.map, the -dbg package's vmlinux); "
                   "kernel.statement(ADDR).absolute (guru mode) takes a running kernel's";
    return;
  }
  const KernelDwarf *d = sources.front();
  d->kprobe_site(*f, addr, &dp->symbol, &dp->offset);
  dp->function = f->name;
  dp->table = &d->types();
  dp->display = "kernel.statement(" + hex_address(addr) + ")";
  dp->pattern = pp.str();
  dp->lazy_vars = [d, f, addr] {
    std::string sym;
    uint64_t off = 0;
    d->kprobe_site(*f, f->entry, &sym, &off);
    std::vector<ContextVar> vars;
    for (const DwarfVar &v : d->variables_at(*f, addr))
      vars.push_back(dwarf_context_var(d->types(), v, entry_frame_key(sym, off, f->name)));
    return vars;
  };
  out.push_back(std::move(dp));
}

std::string files_of(const std::vector<DwarfGlobal> &gs) {
  std::string s;
  for (size_t i = 0; i < gs.size() && i < 4; ++i) s += (i ? ", " : "") + gs[i].file;
  return gs.size() > 4 ? s + " and " + std::to_string(gs.size() - 4) + " more" : s;
}

bool unique_global(const KernelDwarf &d, const std::string &name, const std::string &file,
                   ContextVar *out, std::string *error) {
  std::vector<DwarfGlobal> gs = d.globals(name, file);
  if (gs.empty()) {
    *error = "no global or static variable '" + name + "'" +
             (file.empty() ? "" : " in a source file matching '" + file + "'") + " in " + d.path();
    return false;
  }
  if (gs.size() > 1) {
    *error = "'" + name + "' names " + std::to_string(gs.size()) + " variables (in " +
             files_of(gs) + "): say which with @var(\"" + name + "@FILE\")";
    return false;
  }
  *out = global_context_var(gs.front());
  return true;
}

}  // namespace

bool dwarf_global_var(const ProbeEnv &env, const std::string &module, const std::string &name,
                      const std::string &file, ContextVar *out, const TypeTable **types,
                      std::string *error) {
  std::vector<const KernelDwarf *> sources =
      env.dwarf ? env.dwarf(module, error) : std::vector<const KernelDwarf *>{};
  if (sources.empty()) {
    *error = "@var needs the DWARF debuginfo of " +
             (module.empty() ? "the kernel" : "module \"" + module + "\"") + ": " +
             (error->empty() ? "none found" : *error);
    return false;
  }
  if (sources.size() > 1) {
    *error =
        "@var needs one module, but '" + module + "' matches " + std::to_string(sources.size());
    return false;
  }
  if (!unique_global(*sources.front(), name, file, out, error)) return false;
  *types = &sources.front()->types();
  return true;
}

void add_dwarf_globals(KernelFunctionProbe &dp, const ProbeEnv &env) {
  if (!env.dwarf) return;
  KernelFunctionProbe *probe = &dp;
  dp.lazy_global = [probe, dwarf = env.dwarf](const std::string &name, const std::string &file,
                                              ContextVar *cv) {
    if (!file.empty()) return false;  // @var("name@file"): dwarf_global_var
    std::string error;
    std::vector<const KernelDwarf *> sources = dwarf("", &error);
    if (sources.empty()) {
      probe->globals_error =
          "it is read from the kernel's DWARF debuginfo (the BTF types only "
          "per-CPU variables), and there is " +
          (error.empty() ? std::string("none") : "none: " + error);
      return false;
    }
    const KernelDwarf &d = *sources.front();
    // As the function's compilation unit sees the name, as stap looks it
    // up; else the one global of that name.
    DwarfGlobal g;
    bool found = false;
    for (const DwarfFunction *f : d.match(probe->function, ""))
      if (!f->inlined && (found = d.global_seen_from(*f, name, &g))) break;
    if (!found) {
      std::string ignored;
      if (!unique_global(d, name, "", cv, &ignored)) return false;
    } else {
      *cv = global_context_var(g);
    }
    probe->global_table = &d.types();
    return true;
  };
}

namespace {
void derive_dwarf(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out, Diagnostics &diags,
                  bool exported_only, CloneChoice clones);
}  // namespace

void derive_from_dwarf(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                       Diagnostics &diags, CloneChoice clones) {
  // .exported: only the functions the kernel exports to modules; .exact:
  // only the symbol named, not its clones. Either may follow function(...).
  ProbePoint rest = pp;
  bool exported_only = false;
  auto &cs = rest.components;
  while (cs.size() >= 3 && cs[1].name == "function" && !cs[2].has_arg &&
         (cs[2].name == "exported" || cs[2].name == "exact")) {
    if (cs[2].name == "exported") exported_only = true;
    if (cs[2].name == "exact") clones = CloneChoice::Exclude;
    cs.erase(cs.begin() + 2);
  }
  derive_dwarf(rest, env, out, diags, exported_only, clones);
}

namespace {

// What a DWARF probe point asks for, read from its components once and
// handed to each step of derive_dwarf.
struct DwarfRequest {
  const ProbePoint *pp = nullptr;
  bool is_module = false, is_statement = false, exported_only = false;
  CloneChoice clones = CloneChoice::Include;
  std::string kind;  // "function" or "statement"
  bool is_return = false, is_call = false, inline_only = false;
  std::string label;  // .label("NAME"): a glob over the function's labels
  Spec callee;        // .callee("NAME[@FILE]"): calls of NAME the function makes
  Spec spec;          // the location: PATTERN[@FILE[:LINES]]
};

// The module name and the quoted location; false (reported) when either is missing.
bool check_module_name(const DwarfRequest &r, Diagnostics &diags) {
  const auto &cs = r.pp->components;
  if (r.is_module && (!cs[0].has_arg || !cs[0].arg_is_string || cs[0].str_arg.empty())) {
    diags.error("XTP2151", cs[0].loc, "module needs a module name in quotes").hint =
        "as in module(\"ext4\").function(\"ext4_file_open\")";
    return false;
  }
  return true;
}

bool check_location_text(const DwarfRequest &r, Diagnostics &diags) {
  const auto &cs = r.pp->components;
  if (cs[1].has_arg && cs[1].arg_is_string && !cs[1].str_arg.empty()) return true;
  auto &d = diags.error("XTP2151", cs[1].loc,
                        cs[1].has_arg && !cs[1].arg_is_string
                            ? "a " + r.kind + " probe at an address is not supported"
                            : r.kind + " needs a location in quotes");
  d.hint = r.is_statement
               ? "as in kernel.statement(\"vfs_read@fs/read_write.c:460\")"
               : "as in kernel.function(\"vfs_read\") or kernel.function(\"*@fs/open.c\")";
  return false;
}

// The DWARF of the kernel or the module; none (reported unless optional)
// when there is no debuginfo.
std::vector<const KernelDwarf *> dwarf_sources(const DwarfRequest &r, const ProbeEnv &env,
                                               Diagnostics &diags) {
  const ProbePoint &pp = *r.pp;
  const auto &cs = pp.components;
  std::string error;
  std::vector<const KernelDwarf *> sources =
      env.dwarf ? env.dwarf(r.is_module ? cs[0].str_arg : "", &error)
                : std::vector<const KernelDwarf *>{};
  if (!sources.empty() || pp.optional) return sources;
  auto &d = diags.error("XTP2150", pp.loc,
                        (r.is_module      ? "module(\"" + cs[0].str_arg + "\")." + r.kind
                         : r.is_statement ? std::string("kernel.statement")
                         : cs.size() >= 3 ? "kernel.function(...)." + cs[2].name
                                          : "a source location (" + at_file(cs[1].str_arg) + ")") +
                            (r.is_module ? " needs the module's DWARF debuginfo: "
                                         : " needs the kernel's DWARF debuginfo: ") +
                            (error.empty() ? "none found" : error));
  d.hint = r.is_module || r.is_statement
               ? "install Debian's package linux-image-KVER-dbg, or point at the debuginfo "
                 "with --debuginfo PATH"
               : "install Debian's package linux-image-KVER-dbg, or point at it with --debuginfo "
                 "PATH; without debuginfo, kernel.function(\"name\") works from the kernel's BTF";
  return sources;
}

// The third component: .call, .return, .inline, .label(...), .callee(...);
// false when it is none of them (reported unless the point is optional).
bool read_suffix(DwarfRequest &r, Diagnostics &diags) {
  const ProbePoint &pp = *r.pp;
  const auto &cs = pp.components;
  if (cs.size() < 3) return true;
  const ProbePointComponent &c = cs[2];
  bool named = c.has_arg && c.arg_is_string && !c.str_arg.empty();
  if (cs.size() == 3 && !r.is_statement && !c.has_arg && (c.name == "call" || c.name == "return")) {
    r.is_return = c.name == "return";
    r.is_call = c.name == "call";
    return true;
  }
  if (cs.size() == 3 && !r.is_statement && c.name == "inline" && !c.has_arg) {
    r.inline_only = true;
    return true;
  }
  if (cs.size() == 3 && !r.is_statement && c.name == "label" && named) {
    r.label = c.str_arg;
    return true;
  }
  if (cs.size() == 3 && !r.is_statement && c.name == "callee" && named) {
    r.callee = parse_location_text(c.str_arg);
    if (r.callee.function.empty()) r.callee.function = "*";
    if (!r.callee.error.empty() || r.callee.first || r.callee.all_lines || r.callee.relative >= 0) {
      diags.error("XTP2151", c.loc, ".callee takes a function: NAME or NAME@FILE").hint =
          "as in kernel.function(\"vfs_read\").callee(\"rw_verify_area\")";
      return false;
    }
    return true;
  }
  if (pp.optional) return false;
  bool later = c.name == "callee" || c.name == "callees";
  auto &d = diags.error("XTP2151", c.loc,
                        c.name == "callee" && cs.size() > 3
                            ? "." + cs[3].name + " after .callee(...) is not supported yet"
                        : later ? "." + c.name + " probes are not supported yet"
                                : "unknown " + r.kind + " probe point '" + pp.str() + "'");
  d.hint = r.is_statement ? "use kernel.statement(\"FUNC@FILE:LINE\")"
                          : "use kernel.function(\"PATTERN[@FILE]\"), .call or .return";
  return false;
}

// The context variables of a probe at `addr` of `f`, computed when the
// body first asks.
std::function<std::vector<ContextVar>()> lazy_dwarf_vars(const KernelDwarf *d,
                                                         const DwarfFunction *f, uint64_t addr,
                                                         bool inside, bool is_return) {
  return [d, f, addr, inside, is_return] {
    std::vector<ContextVar> vars;
    if (inside) {
      // Parameters and locals where DWARF says they are at this
      // address; entry values kept by a kretprobe on the function
      // (an inlined copy has no entry: variables_at says so).
      std::string frame;
      if (!f->inlined) {
        std::string sym;
        uint64_t off = 0;
        d->kprobe_site(*f, f->entry, &sym, &off);
        frame = entry_frame_key(sym, off, f->name);
      }
      for (const DwarfVar &v : d->variables_at(*f, addr))
        vars.push_back(dwarf_context_var(d->types(), v, frame));
      return vars;
    }
    // At entry the parameters are in the argument registers (and a
    // .return probe saved them there); locals have no value yet but
    // are listed, as stap lists them.
    KFunction proto;
    if (!d->prototype(*f, &proto.params, &proto.return_type)) return vars;
    if (!f->clone.empty())
      return clone_entry_vars(d->types(), d->variables_at(*f, f->entry), proto, f->clone,
                              is_return);
    vars = parameter_vars(d->types(), proto, is_return);
    if (is_return) return vars;
    // Beyond the argument registers (a seventh parameter, a struct
    // passed by value and those after it) DWARF says where each one
    // is at the entry: on the stack above the return address.
    std::vector<DwarfVar> at_entry = d->variables_at(*f, f->entry);
    for (ContextVar &cv : vars) {
      if (cv.unavailable.empty()) continue;
      for (const DwarfVar &v : at_entry)
        if (v.parameter && v.name == cv.name && v.where != DwarfVar::Where::Unavailable) {
          ContextVar from_dwarf = dwarf_context_var(d->types(), v);
          if (from_dwarf.unavailable.empty()) cv = std::move(from_dwarf);
        }
    }
    for (const DwarfVar &v : at_entry)
      if (!v.parameter) vars.push_back(dwarf_context_var(d->types(), v));
    return vars;
  };
}

// @var("name") and @var("name@file") as `f`'s compilation unit sees them.
std::function<bool(const std::string &, const std::string &, ContextVar *)> lazy_dwarf_global(
    const KernelDwarf *d, const DwarfFunction *f) {
  return [d, f](const std::string &name, const std::string &file, ContextVar *cv) {
    std::string error;
    if (!file.empty()) {
      // @var("name@file"): an error (ambiguous, absent) is the caller's to report.
      if (unique_global(*d, name, file, cv, &error)) return true;
      cv->name = name;
      cv->unavailable = error;
      return true;
    }
    DwarfGlobal g;
    if (!d->global_seen_from(*f, name, &g)) return false;
    *cv = global_context_var(g);
    return true;
  };
}

// What -l shows for a probe at `line` of `f` (a label's name, or the
// caller of a .callee site, when there is one).
std::string dwarf_display(const DwarfRequest &r, const KernelDwarf &d, const DwarfFunction &f,
                          const CalleeSite *call, int line, const std::string &label_name) {
  if (call)
    return family_prefix(d) + ".function(\"" + where(*call->caller, call->caller->line) +
           "\").callee(\"" + where(f, f.line) + "\")";
  if (r.is_statement) return family_prefix(d) + ".statement(\"" + where(f, line) + "\")";
  std::string s = family_prefix(d) + "." + r.kind + "(\"" +
                  where(f, r.label.empty() ? f.line : line) + "\")" +
                  (r.is_return     ? ".return"
                   : r.is_call     ? ".call"
                   : r.inline_only ? ".inline"
                                   : "");
  if (!r.label.empty()) s += ".label(\"" + label_name + "\")";
  return s;
}

// The lines of `f` the request probes: its labels, its statements or its
// entry; empty when it has none of them.
std::vector<DwarfLine> probe_lines(const DwarfRequest &r, const KernelDwarf &d,
                                   const DwarfFunction &f, std::vector<std::string> *label_names) {
  std::vector<DwarfLine> lines;
  if (!r.label.empty()) {
    for (auto &[name, at] : d.labels(f, r.label)) {
      lines.push_back(at);
      label_names->push_back(name);
    }
  } else if (r.is_statement) {
    lines = r.spec.lines_of(d, f);
  } else {
    lines.push_back({f.line, f.entry});
  }
  return lines;
}

using SiteSet = std::set<std::pair<std::string, uint64_t>>;  // one probe per kprobe site

// One derived probe at line `l` of `f`, unless its kprobe site has one already.
void add_line_probe(const DwarfRequest &r, const KernelDwarf *d, const DwarfFunction *f,
                    const CalleeSite *call, const DwarfLine &l, const std::string &label_name,
                    SiteSet &sites, DerivedProbes &out) {
  auto dp = std::make_unique<KernelFunctionProbe>();
  d->kprobe_site(*f, l.addr, &dp->symbol, &dp->offset);
  std::string site_key = dp->symbol + (r.is_return ? "/r" : "");
  if (call && !f->inlined) {
    // Only the calls from this site: the callee's entry checks the
    // return address on top of the stack.
    d->kprobe_site(*call->caller, call->return_pc, &dp->return_symbol, &dp->return_offset);
    site_key += "<-" + dp->return_symbol + "+" + std::to_string(dp->return_offset);
  } else if (call) {
    site_key += "<-inline";
  }
  if (!sites.emplace(site_key, dp->offset).second) return;
  dp->function = f->name;
  if (!f->inlined) dp->clone = f->clone;
  // A clone the BTF provider adds to f's own probe may be one the kernel
  // refuses (as f itself may be): f's probe is what must register.
  dp->optional = r.clones == CloneChoice::Only;
  dp->is_return = r.is_return;
  dp->is_call = r.is_call;
  dp->table = &d->types();
  dp->display = dwarf_display(r, *d, *f, call, l.line, label_name);
  dp->pattern = r.pp->str();
  // An inlined copy's parameters are variables of its DIE, wherever
  // the caller's code left them: read as at a statement.
  bool inside = r.is_statement || !r.label.empty() || f->inlined;
  dp->lazy_vars = lazy_dwarf_vars(d, f, l.addr, inside, r.is_return);
  dp->lazy_global = lazy_dwarf_global(d, f);
  out.push_back(std::move(dp));
}

// Whether `f` is probed under `choice`: a clone's entry is a probe of its
// source function unless .exact; its .cold part never is (not an entry:
// the index has only entries).
bool clone_chosen(CloneChoice choice, const DwarfFunction &f) {
  switch (choice) {
    case CloneChoice::Include: return true;
    case CloneChoice::Exclude: return f.clone.empty();
    case CloneChoice::Only: return !f.clone.empty() && !f.inlined;
  }
  return true;
}

// The derived probes the request makes in one DWARF source.
void derive_in(const DwarfRequest &r, const KernelDwarf *d, SiteSet &sites, DerivedProbes &out) {
  const Spec &spec = r.spec;
  // Plain .function covers the function's inlined copies too, as stap's
  // does; .call and .return only its out-of-line code (a copy has no
  // return to probe); .inline only the copies.
  std::vector<const DwarfFunction *> fns;
  if (!r.inline_only) fns = d->match(spec.function, spec.file);
  // .exact and the clones the BTF provider adds are out-of-line code only
  // (and skip the walk for inlined copies, which costs seconds).
  if (r.callee.function.empty() && r.clones == CloneChoice::Include &&
      (r.inline_only || (!r.is_statement && !r.is_call && !r.is_return && r.label.empty())))
    for (const DwarfFunction *f : d->match_inlined(spec.function, spec.file)) fns.push_back(f);
  std::vector<CalleeSite> callee_sites;  // .callee: the callees' entries instead
  if (!r.callee.function.empty()) {
    for (const DwarfFunction *f : fns)
      if ((!spec.first || f->line == spec.first) && (!r.exported_only || f->exported))
        for (const CalleeSite &c : callees_of(*d, *f, r.callee)) callee_sites.push_back(c);
    fns.clear();
    for (const CalleeSite &c : callee_sites) fns.push_back(c.callee);
  }
  for (size_t fi = 0; fi < fns.size(); ++fi) {
    const DwarfFunction *f = fns[fi];
    const CalleeSite *call = callee_sites.empty() ? nullptr : &callee_sites[fi];
    if (!call && !r.is_statement && spec.first && f->line != spec.first) continue;
    if (!call && r.exported_only && !f->exported) continue;
    if (!call && !clone_chosen(r.clones, *f)) continue;
    std::vector<std::string> label_names;
    std::vector<DwarfLine> lines = probe_lines(r, *d, *f, &label_names);
    for (size_t li = 0; li < lines.size(); ++li)
      add_line_probe(r, d, f, call, lines[li], r.label.empty() ? "" : label_names[li], sites, out);
  }
}

// Nothing matched: say what was looked for, and where a named function's lines are.
void report_no_match(const DwarfRequest &r, const std::vector<const KernelDwarf *> &sources,
                     Diagnostics &diags) {
  const auto &cs = r.pp->components;
  std::string what = r.is_module ? "module \"" + cs[0].str_arg + "\"" : "this kernel";
  auto &d = diags.error(
      "XTP2153", r.label.empty() ? cs[1].loc : cs[2].loc,
      !r.label.empty() ? "no label '" + r.label + "' in a function of " + what + " matching '" +
                             cs[1].str_arg + "'"
      : r.is_statement             ? "no line of " + what + " matches '" + cs[1].str_arg + "'"
      : !r.callee.function.empty() ? "no function of " + what + " matching '" + cs[1].str_arg +
                                         "' calls one matching '" + cs[2].str_arg + "'"
      : r.inline_only
          ? "no inlined copy of a function of " + what + " matches '" + cs[1].str_arg + "'"
          : "no function of " + what + " matches '" + cs[1].str_arg + "'");
  for (const KernelDwarf *k : sources)
    for (const DwarfFunction *f : k->match(r.spec.function, r.spec.file)) {
      std::vector<DwarfLine> ls = k->lines(*f, 1, 1 << 30);
      if (r.is_statement && !ls.empty()) {
        d.hint = f->name + " has code at lines " + std::to_string(ls.front().line) + "-" +
                 std::to_string(ls.back().line) + " of " + f->file;
        break;
      }
    }
  if (d.hint.empty())
    d.hint = "functions come from the DWARF of " + sources.front()->path() +
             "; list them with: xtap -l '" + family_prefix(*sources.front()) +
             ".function(\"*@FILE\")'";
}

void derive_dwarf(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out, Diagnostics &diags,
                  bool exported_only, CloneChoice clones) {
  const auto &cs = pp.components;
  DwarfRequest r;
  r.pp = &pp;
  r.is_module = cs[0].name == "module";
  r.is_statement = cs[1].name == "statement";
  r.exported_only = exported_only;
  r.clones = clones;
  r.kind = r.is_statement ? "statement" : "function";
  if (!check_module_name(r, diags)) return;
  if (r.is_statement && !r.is_module && cs[1].has_arg && !cs[1].arg_is_string) {
    derive_statement_address(pp, env, out, diags);
    return;
  }
  if (!check_location_text(r, diags)) return;
  std::vector<const KernelDwarf *> sources = dwarf_sources(r, env, diags);
  if (sources.empty() || !read_suffix(r, diags)) return;
  r.spec = parse_dwarf_location(cs[1].str_arg, r.is_statement);
  if (!r.spec.error.empty()) {
    diags.error("XTP2151", cs[1].loc, r.spec.error).hint =
        "as in kernel.statement(\"vfs_read@fs/read_write.c:460\")";
    return;
  }
  size_t before = out.size();
  SiteSet sites;
  for (const KernelDwarf *d : sources) derive_in(r, d, sites, out);
  const Spec &spec = r.spec;
  bool several = out.size() - before > 1 || kfunc_is_glob(spec.function) ||
                 kfunc_is_glob(spec.file) || kfunc_is_glob(r.label) || spec.all_lines ||
                 spec.last > spec.first;
  for (size_t i = before; i < out.size(); ++i)
    static_cast<KernelFunctionProbe &>(*out[i]).from_pattern = several;
  if (out.size() == before && !pp.optional) report_no_match(r, sources, diags);
}

}  // namespace

}  // namespace xtap
