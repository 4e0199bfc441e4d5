// Pretty-prints a parsed script (what `xtap -p1` shows).
#pragma once

#include <string>

#include "parse/ast.h"

namespace xtap {

std::string print_script(const Script &s);
std::string print_expr(const Expr &e);

}  // namespace xtap
