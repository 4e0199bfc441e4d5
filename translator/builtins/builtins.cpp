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
      {"substr", BuiltinKind::Plain, String, {String, Long, Long}, "xtap_substr(%T, %1, %2, %3)",
       "part of a string: (str, start, length)"},
      {"isinstr", BuiltinKind::Plain, Long, {String, String}, "xtap_isinstr(%1, %2)",
       "1 if the second string occurs in the first"},
      {"strtol", BuiltinKind::Plain, Long, {String, Long}, "({ s64 _t = xtap_strtol(c, %1, %2); if (unlikely(c->error)) %F _t; })",
       "string to number in a base"},
      {"str_replace", BuiltinKind::Plain, String, {String, String, String},
       "xtap_str_replace(%T, %1, %2, %3)", "replace every occurrence"},
      {"tokenize", BuiltinKind::Plain, String, {String, String}, "xtap_tokenize(c, %T, %1, %2)",
       "next token; pass \"\" to continue the last string"},
      {"text_str", BuiltinKind::Plain, String, {String}, "xtap_text_str(%T, %1)",
       "a string with non-printable characters escaped"},
      {"stringat", BuiltinKind::Plain, Long, {String, Long},
       "({ s64 _t = xtap_stringat(c, %1, %2); if (unlikely(c->error)) %F _t; })", "character at an index"},
      {"matched", BuiltinKind::Plain, String, {Long}, "xtap_regex_matched(c, %T, %1)",
       "a group of the last =~ match"},
      {"pp", BuiltinKind::Plain, String, {}, "xtap_pp(c, %T)", "the probe point"},
      {"probefunc", BuiltinKind::Plain, String, {}, "xtap_probefunc(c, %T)", "the probed function"},
      {"ppfunc", BuiltinKind::Plain, String, {}, "xtap_probefunc(c, %T)", "the probed function"},
      {"jiffies", BuiltinKind::Plain, Long, {}, "xtap_jiffies()", "the jiffies counter"},
      {"local_clock_ns", BuiltinKind::Plain, Long, {}, "xtap_local_clock_ns()", "this CPU's clock, ns"},
      {"local_clock_us", BuiltinKind::Plain, Long, {}, "(xtap_local_clock_ns() / 1000)", "this CPU's clock, us"},
      {"local_clock_ms", BuiltinKind::Plain, Long, {}, "(xtap_local_clock_ns() / 1000000)", "this CPU's clock, ms"},
      {"local_clock_s", BuiltinKind::Plain, Long, {}, "(xtap_local_clock_ns() / 1000000000)", "this CPU's clock, s"},
      {"sprint", BuiltinKind::Sprint, String, {}, "", "values as a string"},
      {"sprintln", BuiltinKind::Sprint, String, {}, "", "values and a newline as a string"},
      {"printd", BuiltinKind::PrintDelimited, Long, {}, "", "values separated by a delimiter"},
      {"printdln", BuiltinKind::PrintDelimited, Long, {}, "", "values separated by a delimiter, and a newline"},
      {"sprintd", BuiltinKind::PrintDelimited, String, {}, "", "values separated by a delimiter, as a string"},
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
