// The process family's target variables from the probed program's DWARF
// (built with -g, or its separate debuginfo, which libdwfl finds by
// build-id or .gnu_debuglink under /usr/lib/debug: Debian's -dbg and
// -dbgsym packages). The same reader and the same variable model as
// kernel.function from DWARF (symbols/dwarf.h, dwarf_function.cpp): at a
// function's entry its prototype, read from the argument registers of the
// user pt_regs; at a .return the same parameters as the call's entry kept
// them (the runtime saves them, runtime-kmod/probes/uprobes.c) and a
// typed $return; at a statement, parameters and locals where DWARF's
// location expressions put them. Memory behind them is the program's:
// every dereference is a user read (TargetAccess::user).
#include <map>
#include <memory>
#include <set>

#include "probes/kernel_function.h"
#include "probes/process_probe.h"
#include "symbols/dwarf.h"
#include "symbols/elf_symbols.h"

namespace xtap {

const KernelDwarf *user_dwarf(const std::string &host_file, std::string *why) {
  struct Opened {
    std::unique_ptr<KernelDwarf> dwarf;
    std::string error;
  };
  static std::map<std::string, Opened> opened;
  auto it = opened.find(host_file);
  if (it == opened.end()) {
    Opened o;
    // No index cache: a program's DWARF indexes in milliseconds; the
    // kernel's takes seconds, which the cache is for.
    o.dwarf = KernelDwarf::open(host_file, "", "", &o.error);
    if (!o.dwarf && o.error.find("no DWARF") != std::string::npos)
      o.error = host_file +
                " has no DWARF debuginfo (it is stripped, and no separate debuginfo was found "
                "under /usr/lib/debug)";
    it = opened.emplace(host_file, std::move(o)).first;
  }
  *why = it->second.error;
  return it->second.dwarf.get();
}

namespace {

// The DWARF function whose code starts at `entry` (out of line: a
// uprobe's function entry is its ELF symbol's address).
const DwarfFunction *function_at(const KernelDwarf &d, uint64_t entry) {
  for (const DwarfFunction &f : d.functions())
    if (f.entry == entry) return &f;
  return nullptr;
}

}  // namespace

void ProcessFunctionProbe::load_dwarf_vars() const {
  if (dwarf_loaded_ || host_file.empty()) return;
  dwarf_loaded_ = true;
  std::string why;
  const KernelDwarf *d = user_dwarf(host_file, &why);
  if (!d) {
    dwarf_missing = why;
    return;
  }
  const DwarfFunction *f = function_at(*d, function_address);
  if (!f) {
    dwarf_missing =
        "its DWARF does not describe the function '" + function + "' (compiled without -g?)";
    return;
  }
  dwarf_ = d;
  const TypeTable &types = d->types();
  std::vector<ContextVar> found;
  // A GCC clone (f.constprop.0) does not take its source prototype's
  // arguments in order: where DWARF says each is at entry is the truth.
  bool clone = function.find('.') != std::string::npos;
  if (address != function_address || (clone && !is_return)) {
    for (const DwarfVar &v : d->variables_at(*f, address))
      found.push_back(dwarf_context_var(types, v, "", true));
  } else {
    KFunction proto;
    if (!d->prototype(*f, &proto.params, &proto.return_type)) {
      dwarf_ = nullptr;
      dwarf_missing = "the DWARF of '" + function + "' cannot be read";
      return;
    }
    if (clone) proto.params.clear();  // a .return of a clone: only $return
    found = parameter_vars(types, proto, is_return);
    // Locals have no value yet at entry, but are listed, as stap lists them.
    if (!is_return)
      for (const DwarfVar &v : d->variables_at(*f, f->entry))
        if (!v.parameter) found.push_back(dwarf_context_var(types, v, "", true));
  }
  vars = std::move(found);
}

void derive_process_source_statement(const ProbePoint &pp, const ProbeEnv &env, DerivedProbes &out,
                                     Diagnostics &diags) {
  const auto &cs = pp.components;
  std::string target, file;
  auto elf = open_program(pp, env, &file, &target, diags);
  if (!elf) return;
  DwarfLocationSpec spec = parse_dwarf_location(cs[1].str_arg, true);
  if (!spec.error.empty()) {
    diags.error("XTP2151", cs[1].loc, spec.error).hint =
        "as in process(\"/usr/bin/prog\").statement(\"main@prog.c:42\"), or an address: "
        ".statement(0x401136)";
    return;
  }
  std::string why;
  const KernelDwarf *d = user_dwarf(file, &why);
  if (!d) {
    if (pp.optional) return;
    diags
        .error("XTP2150", cs[1].loc,
               "process(...).statement(\"" + cs[1].str_arg + "\") needs the DWARF debuginfo of " +
                   file + ": " + why)
        .hint = "install the program's -dbg or -dbgsym package, or build it with -g";
    return;
  }
  size_t before = out.size();
  std::set<uint64_t> addresses;  // one probe per address
  for (const DwarfFunction *f : d->match(spec.function, spec.file)) {
    for (const DwarfLine &l : spec.lines_of(*d, *f)) {
      auto off = elf->file_offset(l.addr);
      if (!off || !addresses.insert(l.addr).second) continue;
      auto dp = std::make_unique<ProcessFunctionProbe>();
      dp->path = target;
      dp->offset = *off;
      dp->statement = l.addr;
      dp->source_line = f->name + "@" + f->file + ":" + std::to_string(l.line);
      dp->function = f->name;
      dp->host_file = file;
      dp->function_address = f->entry;
      dp->address = l.addr;
      out.push_back(std::move(dp));
    }
  }
  if (out.size() == before && !pp.optional) {
    auto &e = diags.error("XTP2153", cs[1].loc,
                          "no line of " + file + " matches '" + cs[1].str_arg + "'");
    for (const DwarfFunction *f : d->match(spec.function, spec.file)) {
      std::vector<DwarfLine> all = d->lines(*f, 1, 1 << 30);
      if (all.empty()) continue;
      e.hint = f->name + " has code at lines " + std::to_string(all.front().line) + "-" +
               std::to_string(all.back().line) + " of " + f->file;
      break;
    }
  }
}

bool ProcessFunctionProbe::reads_entry_args() const {
  if (!is_return || !dwarf_loaded_) return false;
  for (const ContextVar &v : vars)
    if (v.used && v.name != "return") return true;
  return false;
}

}  // namespace xtap
