#include "builtins/builtins.h"

namespace xtap {
namespace {

using enum Type;

const std::vector<Builtin> &table() {
  static const std::vector<Builtin> t = {
      {"printf", BuiltinKind::Printf, Long, {}, "", "formatted output"},
      {"sprintf", BuiltinKind::Sprintf, String, {}, "", "formatted string"},
      {"print", BuiltinKind::Print, Long, {}, "", "print values"},
      {"println", BuiltinKind::Print, Long, {}, "", "print values and a newline", true},
      {"exit", BuiltinKind::Exit, Long, {}, "", "end the session after this probe"},
      {"error", BuiltinKind::Error, Long, {String}, "", "raise a run-time error"},
      {"warn",
       BuiltinKind::Plain,
       Long,
       {String},
       "(xtap_warn(c, %1), 0LL)",
       "print a warning",
       false,
       true},
      {"sprint", BuiltinKind::Sprint, String, {}, "", "values as a string"},
      {"sprintln", BuiltinKind::Sprint, String, {}, "", "values and a newline as a string", true},
      {"printd", BuiltinKind::PrintDelimited, Long, {}, "", "values separated by a delimiter"},
      {"printdln",
       BuiltinKind::PrintDelimited,
       Long,
       {},
       "",
       "values separated by a delimiter, and a newline",
       true},
      {"sprintd",
       BuiltinKind::PrintDelimited,
       String,
       {},
       "",
       "values separated by a delimiter, as a string"},
      {"sprintdln",
       BuiltinKind::PrintDelimited,
       String,
       {},
       "",
       "values separated by a delimiter, and a newline, as a string",
       true},
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
