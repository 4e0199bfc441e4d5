#include "builtins/builtins.h"

namespace xtap {
namespace {

using enum Type;

const std::vector<Builtin> &table() {
  static const std::vector<Builtin> t = {
      {"printf", BuiltinKind::Printf, Long, {}, "", "formatted output"},
      {"sprintf", BuiltinKind::Sprintf, String, {}, "", "formatted string"},
      {"print", BuiltinKind::Print, Long, {}, "", "print values"},
      {"println", BuiltinKind::Print, Long, {}, "", "print values and a newline"},
      {"exit", BuiltinKind::Exit, Long, {}, "", "end the session after this probe"},
      {"error", BuiltinKind::Error, Long, {String}, "", "raise a run-time error"},
      {"warn", BuiltinKind::Plain, Long, {String}, "(xtap_warn(c, %1), 0LL)", "print a warning"},
      {"execname", BuiltinKind::Plain, String, {}, "xtap_execname(%T)", "name of the current task"},
      {"pid", BuiltinKind::Plain, Long, {}, "xtap_pid()", "process id (tgid)"},
      {"tid", BuiltinKind::Plain, Long, {}, "xtap_tid()", "thread id"},
      {"ppid", BuiltinKind::Plain, Long, {}, "xtap_ppid()", "parent process id"},
      {"uid", BuiltinKind::Plain, Long, {}, "xtap_uid()", "user id"},
      {"gid", BuiltinKind::Plain, Long, {}, "xtap_gid()", "group id"},
      {"cpu", BuiltinKind::Plain, Long, {}, "xtap_cpu()", "current CPU"},
      {"target", BuiltinKind::Plain, Long, {}, "xtap_target()", "pid of the -c/-x target"},
      {"gettimeofday_ns", BuiltinKind::Plain, Long, {}, "xtap_gettimeofday_ns()", "wall clock, ns"},
      {"gettimeofday_us", BuiltinKind::Plain, Long, {}, "(xtap_gettimeofday_ns() / 1000)", "wall clock, us"},
      {"gettimeofday_ms", BuiltinKind::Plain, Long, {}, "(xtap_gettimeofday_ns() / 1000000)", "wall clock, ms"},
      {"gettimeofday_s", BuiltinKind::Plain, Long, {}, "(xtap_gettimeofday_ns() / 1000000000)", "wall clock, s"},
      {"strlen", BuiltinKind::Plain, Long, {String}, "((s64)strlen(%1))", "length of a string"},
  };
  return t;
}

}  // namespace

const Builtin *find_builtin(const std::string &name) {
  for (const auto &b : table())
    if (name == b.name) return &b;
  return nullptr;
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const auto &b : table()) names.push_back(b.name);
  return names;
}

}  // namespace xtap
