// Pass 1: parses a script into an AST.
#pragma once

#include <memory>

#include "diag/diagnostics.h"
#include "parse/ast.h"

namespace xtap {

// Parses `file`; on syntax errors reports them to `diags` and returns what
// could be parsed (the caller stops when diags has errors).
std::unique_ptr<Script> parse_script(SourceFile &file, Diagnostics &diags);

}  // namespace xtap
