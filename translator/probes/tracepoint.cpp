// kernel.trace("name"), kernel.trace("system:name"), with globs on either
// part: the kernel's tracepoints, with their TP_PROTO arguments as context
// variables ($prev, $next, $$parms). The tracepoints and their C types come
// from the target kernel's catalog (symbols/catalog.h); the runtime attaches
// through the tracepoint API (runtime-kmod/probes/tracepoints.c), calling
// a small generated callback with the tracepoint's own prototype.
//
// kernel.trace("syscalls:sys_enter_NAME") and ("syscalls:sys_exit_NAME"):
// the per-syscall events users know from ftrace and bpftrace. The kernel
// builds them on the raw_syscalls tracepoints; so does xtap: the runtime
// registers one dispatcher per raw tracepoint that runs the probes of the
// syscall at hand, with the arguments of the syscall's prototype.
#include <fnmatch.h>

#include "probes/provider.h"
#include "symbols/catalog.h"
#include "symbols/syscall_params.h"

namespace xtap {
namespace {

enum class SyscallEvent { None, Enter, Exit };

class TracepointProbe : public DerivedProbe {
 public:
  std::string system, event;  // as users name it: "sched", "sched_switch"
  std::string kernel_name;    // the kernel tracepoint to attach to
  std::vector<KParam> proto;  // its TP_PROTO
  SyscallEvent syscall = SyscallEvent::None;
  int syscall_nr = -1;
  std::vector<ContextVar> vars;
  const TypeTable *table = nullptr;

  std::string name() const override { return "kernel.trace(\"" + system + ":" + event + "\")"; }
  const std::vector<ContextVar> &context_vars() const override { return vars; }
  const TypeTable *types() const override { return table; }
  // $$name and $$system: the event and its system, as stap's tracepoint
  // probes have them (known here, so they are string constants).
  bool string_constant(const std::string &var, std::string *value) const override {
    if (var == "$$name") *value = event;
    else if (var == "$$system") *value = system;
    else return false;
    return true;
  }
};

// A pattern without wildcards is compared as it is: syscall.* expands to
// some 600 tracepoint lookups, each over every tracepoint and syscall.
bool glob_match(const std::string &pattern, const std::string &s) {
  if (pattern.find_first_of("*?[\\") == std::string::npos) return pattern == s;
  return fnmatch(pattern.c_str(), s.c_str(), 0) == 0;
}

// A C parameter type with the tracepoint argument's size and signedness, so
// that the generated callback matches the kernel's calling convention
// without the kernel's headers; "" when a script cannot take the argument.
std::string c_param_type(const TypeTable &types, int type) {
  const KType &t = types.at(types.strip_typedefs(type));
  switch (t.kind) {
    case KTypeKind::Pointer:
    case KTypeKind::Array: return "const void *";
    case KTypeKind::Int:
    case KTypeKind::Enum:
      if (t.size != 1 && t.size != 2 && t.size != 4 && t.size != 8) return "";
      return (t.is_signed ? "s" : "u") + std::to_string(t.size * 8);
    default: return "";
  }
}

// Argument i of a syscall from the task's registers, converted to its C
// type as the kernel's SYSCALL_DEFINE wrappers do: an int's upper 32 bits
// are not part of it (openat's dfd AT_FDCWD is -100, not 4294967196).
std::string syscall_arg_value(const TypeTable &types, int type, size_t i) {
  std::string reg = "xtap_syscall_arg(c, " + std::to_string(i) + ")";
  std::string t = c_param_type(types, type);
  if (t.empty() || t == "const void *" || t == "u64" || t == "s64") return reg;
  return "(u64)(" + std::string(t[0] == 's' ? "s64" : "u64") + ")(" + t + ")" + reg;
}

class TracepointProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"kernel.trace(\"name\")", "kernel.trace(\"system:name\")"};
  }

  bool matches(const ProbePoint &pp) const override {
    return pp.components.size() >= 2 && pp.components[0].name == "kernel" &&
           pp.components[1].name == "trace";
  }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &env, DerivedProbes &out,
              Diagnostics &diags) const override {
    const auto &arg = pp.components[1];
    if (pp.components.size() != 2 || !arg.has_arg || !arg.arg_is_string || arg.str_arg.empty()) {
      diags.error("XTP2131", pp.loc, "kernel.trace needs a tracepoint name in quotes").hint =
          "as in kernel.trace(\"sched_switch\") or kernel.trace(\"sched:*\")";
      return;
    }
    std::string error;
    const KernelCatalog *cat = env.catalog ? env.catalog(&error) : nullptr;
    if (!cat) {
      diags.error("XTP2132", pp.loc, "cannot list the kernel's tracepoints: " + error);
      return;
    }
    std::string system = "*", name = arg.str_arg;
    if (auto colon = name.find(':'); colon != std::string::npos) {
      system = name.substr(0, colon);
      name = name.substr(colon + 1);
    }
    size_t before = out.size();
    for (const auto &tp : cat->tracepoints())
      if (glob_match(system, tp.system) && glob_match(name, tp.name)) add(*cat, tp, out, diags, pp);
    // The per-syscall events exist only when asked for by their system.
    bool literal = name.find_first_of("*?[\\") == std::string::npos;
    if (system == "syscalls")
      for (const auto &sc : cat->syscalls()) {
        if (sc.nr < 0) continue;
        for (auto ev : {SyscallEvent::Enter, SyscallEvent::Exit}) {
          std::string_view prefix = ev == SyscallEvent::Enter ? "sys_enter_" : "sys_exit_";
          // A literal name is this event or not, without building its name.
          if (literal && (name.size() != prefix.size() + sc.name.size() ||
                          name.compare(0, prefix.size(), prefix) != 0 ||
                          name.compare(prefix.size(), std::string::npos, sc.name) != 0))
            continue;
          std::string event = std::string(prefix) + sc.name;
          if (glob_match(name, event)) add_syscall(*cat, sc, ev, event, out, pp, diags);
        }
      }
    if (out.size() == before && !pp.optional) no_match(*cat, pp, arg, system, name, diags);
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_tracepoint_probes", mine);
    // The syscall events have no callback of their own: the runtime's
    // dispatcher on the raw tracepoint runs them by syscall number.
    for (size_t i = 0; i < mine.size(); ++i) {
      auto *tp = static_cast<const TracepointProbe *>(mine[i]);
      if (tp->syscall == SyscallEvent::None) emit_callback(w, i, *tp);
    }
    w.open("static const struct xtap_tracepoint_spec xtap_tracepoints[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      auto *tp = static_cast<const TracepointProbe *>(mine[i]);
      std::string n = std::to_string(i);
      bool sc = tp->syscall != SyscallEvent::None;
      w.line("{ .probe = &xtap_tracepoint_probes[" + n +
             "], .name = " + c_string_literal(tp->kernel_name) +
             ", .callback = " + (sc ? "NULL" : "(void *)xtap_tp_callback_" + n) +
             ", .syscall_nr = " + std::to_string(sc ? tp->syscall_nr : -1) +
             ", .optional = " + (tp->optional ? "1" : "0") + " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_tracepoint_ops", "xtap_tracepoints", mine.size()));
  }

 private:
  static void add(const KernelCatalog &cat, const KTracepoint &tp, DerivedProbes &out,
                  Diagnostics &diags, const ProbePoint &pp) {
    auto dp = std::make_unique<TracepointProbe>();
    dp->system = tp.system;
    dp->event = tp.name;
    dp->kernel_name = tp.name;
    dp->proto = tp.args;
    dp->table = &cat.types();
    for (size_t i = 0; i < tp.args.size(); ++i) {
      if (c_param_type(cat.types(), tp.args[i].type).empty()) {
        // Only a wildcard may pass over a tracepoint xtap cannot attach to.
        if (pp.components[1].str_arg.find_first_of("*?[") == std::string::npos)
          diags.error("XTP2133", pp.loc,
                      "tracepoint " + tp.system + ":" + tp.name + " passes '" + tp.args[i].name +
                          "' as a " + cat.types().spelling(tp.args[i].type) +
                          ", which xtap cannot receive");
        return;
      }
      dp->vars.push_back({.name = tp.args[i].name,
                          .type = tp.args[i].type,
                          .c_value = "c->args[" + std::to_string(i) + "]"});
    }
    out.push_back(std::move(dp));
  }

  static void add_syscall(const KernelCatalog &cat, const KSyscall &sc, SyscallEvent ev,
                          const std::string &event, DerivedProbes &out, const ProbePoint &pp,
                          Diagnostics &diags) {
    const KTracepoint *raw =
        cat.find_tracepoint("raw_syscalls", ev == SyscallEvent::Enter ? "sys_enter" : "sys_exit");
    if (!raw || raw->args.size() != 2) {
      diags.error("XTP2132", pp.loc,
                  "the kernel catalog has no raw_syscalls tracepoints to build " + event + " on");
      return;
    }
    auto dp = std::make_unique<TracepointProbe>();
    dp->system = "syscalls";
    dp->event = event;
    dp->kernel_name = raw->name;
    dp->proto = raw->args;
    dp->syscall = ev;
    dp->syscall_nr = sc.nr;
    dp->table = &cat.types();
    // The raw tracepoint's second argument: the syscall number at entry,
    // the return value at exit; the first is the task's registers.
    dp->vars.push_back(
        {"__syscall_nr", raw->args[1].type, "((u64)" + std::to_string(sc.nr) + ")", true});
    if (ev == SyscallEvent::Enter) {
      for (size_t i = 0; i < sc.args.size() && i < 6; ++i)
        dp->vars.push_back({syscall_param_name(sc, i), sc.args[i].type,
                            syscall_arg_value(cat.types(), sc.args[i].type, i), true});
    } else {
      dp->vars.push_back({"ret", raw->args[1].type, "c->args[1]", true});
    }
    out.push_back(std::move(dp));
  }

  static void no_match(const KernelCatalog &cat, const ProbePoint &pp,
                       const ProbePointComponent &arg, const std::string &system,
                       const std::string &name, Diagnostics &diags) {
    auto &d = diags.error("XTP2134", arg.loc,
                          "no tracepoint of this kernel matches '" + arg.str_arg + "'");
    std::vector<std::string> names;
    for (const auto &tp : cat.tracepoints())
      names.push_back(system == "*" ? tp.name : tp.system + ":" + tp.name);
    std::string guess = closest_match(system == "*" ? name : system + ":" + name, names);
    d.hint = guess.empty() ? "list them with: xtap -l 'kernel.trace(\"*\")'"
                           : "did you mean '" + guess + "'?";
    (void)pp;
  }

  // The function the kernel calls: the tracepoint's prototype (after the
  // registration's data pointer), its arguments widened to u64 for the handler.
  static void emit_callback(CWriter &w, size_t i, const TracepointProbe &tp) {
    std::string params = "void *data";
    std::string args;
    for (size_t a = 0; a < tp.proto.size(); ++a) {
      std::string t = c_param_type(*tp.table, tp.proto[a].type);
      params += ", " + t + (t.back() == '*' ? "" : " ") + "a" + std::to_string(a);
      bool is_signed = t[0] == 's';
      args +=
          std::string(a ? ", " : "") + (is_signed ? "(u64)(s64)a" : "(u64)a") + std::to_string(a);
    }
    w.line("static void xtap_tp_callback_" + std::to_string(i) + "(" + params + ")");
    w.open("{");
    w.line("const u64 args[] = { " + (args.empty() ? std::string("0") : args) + " };");
    w.line();
    w.line("xtap_tracepoint_run(data, args);");
    w.close();
  }
};

}  // namespace

const ProbeProvider *tracepoint_provider() {
  static TracepointProvider p;
  return &p;
}

}  // namespace xtap
