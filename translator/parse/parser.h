// Pass 1: parses a script into an AST.
#pragma once

#include <memory>

#include "diag/diagnostics.h"
#include "parse/ast.h"
#include "parse/preprocess.h"

namespace xtap {

// Parses `file`; on syntax errors reports them to `diags` and returns what
// could be parsed (the caller stops when diags has errors).
// `ctx` describes the target for %( %) conditionals and holds the script
// arguments; a default one is used when it is null.
std::unique_ptr<Script> parse_script(SourceFile &file, Diagnostics &diags,
                                     const PreprocessContext *ctx = nullptr);

}  // namespace xtap
