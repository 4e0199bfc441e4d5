// process("PATH").syscall, process(PID).syscall and process.syscall, each
// with an optional .return: a system call made (or returning) in a process
// running PATH, in the process PID, or in any user process. Context
// variables as in stap: $syscall (the number), $arg1..$arg6 at entry,
// $return at the return; all longs, read-only.
//
// The runtime (runtime-kmod/probes/process_syscall.c) hooks the
// raw_syscalls sys_enter/sys_exit tracepoints and runs the probes whose
// process matches: PATH by the inode of the task's executable (looked up
// when the probes are armed, as process("PATH").begin does), PID by the
// thread group. With -c or -x, only the target's process hierarchy, as
// stap's process probes.
#include <sys/stat.h>

#include <filesystem>

#include "probes/process_probe.h"
#include "symbols/catalog.h"

namespace xtap {

namespace {

// The types of the context variables: each is a long, as stap declares
// them ($syscall:long $arg1:long ...).
const TypeTable &long_types() {
  static const TypeTable table = long_type_table("long");
  return table;
}

class ProcessSyscallProbe : public DerivedProbe {
 public:
  std::string path;  // as the target sees it; "" for any process
  int pid = 0;       // process(PID): only that process
  bool is_return = false;
  std::vector<ContextVar> vars;

  std::string name() const override {
    std::string head = pid            ? "process(" + std::to_string(pid) + ")"
                       : path.empty() ? "process"
                                      : "process(\"" + path + "\")";
    return head + (is_return ? ".syscall.return" : ".syscall");
  }
  std::string user_file() const override { return path; }
  const std::vector<ContextVar> &context_vars() const override { return vars; }
  const TypeTable *types() const override { return &long_types(); }

  // The runtime's values (struct xtap_process_syscall_spec): c->args[0]
  // is the number, [1..6] the arguments, [7] the return value. $$parms
  // shows the arguments only, as stap's; $$vars all.
  void add_vars() {
    vars.push_back({.name = "syscall", .type = 0, .c_value = "c->args[0]", .parameter = false});
    if (is_return) {
      vars.push_back({.name = "return", .type = 0, .c_value = "c->args[7]", .parameter = false});
      return;
    }
    for (int i = 1; i <= 6; ++i)
      vars.push_back({.name = "arg" + std::to_string(i),
                      .type = 0,
                      .c_value = "c->args[" + std::to_string(i) + "]"});
  }
};

bool shape_error(const ProbePoint &pp, const Location &loc, const std::string &what,
                 Diagnostics &diags) {
  if (!pp.optional)
    diags.error("XTP2170", loc, what).hint =
        "as in process(\"/usr/bin/prog\").syscall, process(PID).syscall.return or process.syscall";
  return false;
}

// process(PID): a positive number that names a process on this machine,
// as stap checks it. Only the PID is kept: the runtime compares thread
// groups, so the process's executable is not needed.
bool valid_pid(const ProbePoint &pp, Diagnostics &diags) {
  const ProbePointComponent &c = pp.components[0];
  std::string why;
  std::error_code ec;
  if (c.num_arg <= 0) why = "a process id is a positive number";
  else if (!std::filesystem::exists("/proc/" + std::to_string(c.num_arg), ec))
    why = "no process " + std::to_string(c.num_arg) + " runs on this machine";
  if (why.empty()) return true;
  if (!pp.optional)
    diags.error("XTP2178", c.loc, "cannot probe process " + std::to_string(c.num_arg) + ": " + why)
        .hint =
        "give the program's path, process(\"PATH\").syscall, or use process.syscall with "
        "-x PID";
  return false;
}

class ProcessSyscallProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"process(\"path\").syscall", "process(\"path\").syscall.return",
            "process(PID).syscall[.return]", "process.syscall[.return]"};
  }

  bool matches(const ProbePoint &pp) const override {
    const auto &cs = pp.components;
    return cs.front().name == "process" && cs.size() >= 2 && cs[1].name == "syscall";
  }

  void derive(const ProbePoint &pp, ProbeDecl &, const ProbeEnv &env, DerivedProbes &out,
              Diagnostics &diags) const override {
    const auto &cs = pp.components;
    if (cs.size() > 3 || (cs.size() == 3 && cs[2].name != "return"))
      return (void)shape_error(pp, cs.size() > 2 ? cs[2].loc : pp.loc,
                               "unknown process probe point '" + pp.str() +
                                   "': .syscall is followed by .return or "
                                   "nothing",
                               diags);
    for (size_t i = 1; i < cs.size(); ++i)
      if (cs[i].has_arg)
        return (void)shape_error(pp, cs[i].loc, "." + cs[i].name + " takes no argument", diags);
    auto dp = std::make_unique<ProcessSyscallProbe>();
    dp->is_return = cs.size() == 3;
    if (cs[0].has_arg && !cs[0].arg_is_string) {
      if (!valid_pid(pp, diags)) return;
      dp->pid = static_cast<int>(cs[0].num_arg);
    } else if (cs[0].has_arg) {
      if (!program_path(pp, env, &dp->path, diags)) return;
    }
    dp->add_vars();
    out.push_back(std::move(dp));
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_process_syscall_probes", mine);
    w.open("static const struct xtap_process_syscall_spec xtap_process_syscalls[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      auto *p = static_cast<const ProcessSyscallProbe *>(mine[i]);
      w.line("{ .probe = &xtap_process_syscall_probes[" + std::to_string(i) +
             "], .path = " + (p->path.empty() ? "NULL" : c_string_literal(p->path)) +
             ", .pid = " + std::to_string(p->pid) + ", .is_return = " + (p->is_return ? "1" : "0") +
             ", .optional = " + (p->optional ? "1" : "0") + " },");
    }
    w.close("};");
    out.groups.push_back(
        probe_group("xtap_process_syscall_ops", "xtap_process_syscalls", mine.size()));
  }

 private:
  // process("PATH"): one regular file, found as the shell finds it (a bare
  // name in $PATH), under --sysroot when given.
  static bool program_path(const ProbePoint &pp, const ProbeEnv &env, std::string *target,
                           Diagnostics &diags) {
    const ProbePointComponent &prog = pp.components[0];
    if (prog.str_arg.empty() || is_glob(prog.str_arg))
      return shape_error(pp, prog.loc, "process(...).syscall needs one program's path", diags);
    std::string file = host_path(prog.str_arg, env.sysroot, target);
    struct stat st;
    if (!file.empty() && stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return true;
    if (pp.optional) return false;
    diags
        .error("XTP2171", prog.loc,
               "no program '" + prog.str_arg + "' to probe" +
                   (env.sysroot.empty() ? "" : " under " + env.sysroot))
        .hint = prog.str_arg.find('/') == std::string::npos
                    ? "give its full path, or put it in $PATH"
                    : "the path is resolved at translation time; --sysroot DIR reads it from DIR";
    return false;
  }
};

}  // namespace

const ProbeProvider *process_syscall_provider() {
  static ProcessSyscallProvider p;
  return &p;
}

}  // namespace xtap
