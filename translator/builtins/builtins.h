// The functions every script can call without a tapset: context, time,
// strings and output. Each has a fixed signature and a C template.
#pragma once

#include <string>
#include <vector>

#include "parse/ast.h"

namespace xtap {

enum class BuiltinKind {
  Plain,           // a C template: %1..%N arguments, %T a string temp, %F "goto <error label>;"
  Printf,          // printf(fmt, ...)
  Sprintf,         // sprintf(fmt, ...)
  Print,           // print(...), println(...)
  Sprint,          // sprint(...), sprintln(...)
  PrintDelimited,  // printd(delim, ...), printdln(delim, ...), sprintd(delim, ...),
                   // sprintdln(delim, ...)
  Exit,            // exit()
  Error,           // error(msg)
};

struct Builtin {
  const char *name;
  BuiltinKind kind;
  Type result;
  std::vector<Type> params;  // for Plain/Exit/Error
  const char *c_template = "";
  const char *summary = "";
  bool newline = false;       // println, sprintln, printdln, sprintdln: a newline after the values
  bool side_effects = false;  // a Plain builtin that does more than compute its value (warn)
};

const Builtin *find_builtin(const std::string &name);
std::vector<std::string> builtin_names();

}  // namespace xtap
