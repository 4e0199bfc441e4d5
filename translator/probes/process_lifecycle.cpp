// process("PATH").begin, .end, .thread.begin and .thread.end (and the
// same with process(PID)): a process whose executable is PATH starts
// (execs PATH, or is forked by a process running PATH) or its
// thread-group leader exits; a thread of such a process other than its
// leader starts or exits. The handler runs in that task's context. The
// runtime (runtime-kmod/probes/proclife.c) finds PATH's inode when it arms
// and compares it with the executable of the task, so a copy, a hard link
// or a symlink to the program counts as what it is, not by its name.
//
// process.begin etc. without a path are tapset aliases
// (tapsets/process.stp) and do not come here.
#include <sys/stat.h>

#include "probes/process_probe.h"

namespace xtap {

namespace {

enum class Event { Begin = 0, End = 1, ThreadBegin = 2, ThreadEnd = 3 };

class ProcessLifecycleProbe : public DerivedProbe {
 public:
  std::string path;  // as the target sees it
  int pid = 0;       // process(PID): only that process
  Event event = Event::Begin;

  std::string user_file() const override { return path; }
  std::string name() const override {
    static const char *const suffix[] = {".begin", ".end", ".thread.begin", ".thread.end"};
    std::string head = pid ? "process(" + std::to_string(pid) + ")" : "process(\"" + path + "\")";
    return head + suffix[static_cast<int>(event)];
  }
};

class ProcessLifecycleProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"process(\"path\").begin", "process(\"path\").end", "process(\"path\").thread.begin",
            "process(\"path\").thread.end",
            "process(PID).begin and the other process(\"path\") forms"};
  }

  // Only the forms with a path or a PID: process.begin is an alias.
  bool matches(const ProbePoint &pp) const override {
    const auto &cs = pp.components;
    if (cs.front().name != "process" || !cs.front().has_arg) return false;
    const std::string &last = cs.back().name;
    if (last != "begin" && last != "end") return false;
    return cs.size() == 2 || (cs.size() == 3 && cs[1].name == "thread");
  }

  void derive(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &env, DerivedProbes &out,
              Diagnostics &diags) const override {
    (void)decl;
    const auto &cs = pp.components;
    for (size_t i = 1; i < cs.size(); ++i)
      if (cs[i].has_arg) {
        if (pp.optional) return;
        diags
            .error("XTP2170", cs[i].loc,
                   "." + cs[i].name + " takes no argument in '" + pp.str() + "'")
            .hint = "as in process(\"/usr/bin/prog\").begin or .thread.end";
        return;
      }
    ProbePoint by_path = pp;
    ProbeEnv path_env = env;
    int pid = 0;
    if (!cs[0].arg_is_string) {
      if (!process_pid_point(pp, env, &by_path, &path_env, diags)) return;
      pid = static_cast<int>(cs[0].num_arg);
    }
    const ProbePointComponent &prog = by_path.components[0];
    if (prog.str_arg.empty() || is_glob(prog.str_arg)) {
      if (pp.optional) return;
      diags
          .error("XTP2170", cs[0].loc,
                 "process(...)." + cs.back().name + " needs one program's path")
          .hint =
          "as in process(\"/usr/bin/prog\").begin; without a path, process.begin is every process";
      return;
    }
    std::string target;
    std::string file = host_path(prog.str_arg, path_env.sysroot, &target);
    struct stat st;
    if (file.empty() || stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      if (pp.optional) return;
      auto &d = diags.error("XTP2171", cs[0].loc,
                            "no program '" + prog.str_arg + "' to probe" +
                                (path_env.sysroot.empty() ? "" : " under " + path_env.sysroot));
      d.hint = prog.str_arg.find('/') == std::string::npos
                   ? "give its full path, or put it in $PATH"
                   : "the path is resolved at translation time; --sysroot DIR reads it from DIR";
      return;
    }
    auto dp = std::make_unique<ProcessLifecycleProbe>();
    dp->path = target;
    dp->pid = pid;
    bool thread = cs.size() == 3;
    bool end = cs.back().name == "end";
    dp->event =
        thread ? (end ? Event::ThreadEnd : Event::ThreadBegin) : (end ? Event::End : Event::Begin);
    out.push_back(std::move(dp));
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    static const char *const events[] = {"XTAP_PROC_BEGIN", "XTAP_PROC_END",
                                         "XTAP_PROC_THREAD_BEGIN", "XTAP_PROC_THREAD_END"};
    emit_probe_array(w, "xtap_proclife_probes", mine);
    w.open("static const struct xtap_proclife_spec xtap_proclifes[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      auto *p = static_cast<const ProcessLifecycleProbe *>(mine[i]);
      w.line("{ .probe = &xtap_proclife_probes[" + std::to_string(i) +
             "], .path = " + c_string_literal(p->path) + ", .pid = " + std::to_string(p->pid) +
             ", .event = " + events[static_cast<int>(p->event)] +
             ", .optional = " + (p->optional ? "1" : "0") + " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_proclife_ops", "xtap_proclifes", mine.size()));
  }
};

}  // namespace

const ProbeProvider *process_lifecycle_provider() {
  static ProcessLifecycleProvider p;
  return &p;
}

}  // namespace xtap
