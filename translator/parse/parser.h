// Pass 1: parses a script into an AST.
#pragma once

#include <memory>

#include "diag/diagnostics.h"
#include "parse/ast.h"
#include "parse/preprocess.h"

namespace xtap {

// Parses `file`; on syntax errors reports them to `diags` and returns what
// could be parsed (the caller stops when diags has errors).
struct ParseOptions {
  bool tapset = false;  // a tapset file: its declarations may be pruned, embedded C allowed
  bool guru = false;    // -g: embedded C allowed in the script too
};

// `ctx` describes the target for %( %) conditionals and holds the script
// arguments; a default one is used when it is null.
std::unique_ptr<Script> parse_script(SourceFile &file, Diagnostics &diags,
                                     const PreprocessContext *ctx = nullptr,
                                     const ParseOptions &opts = {});

// Parses `file` (a tapset or another script file) into an existing script.
void parse_into(Script &script, SourceFile &file, Diagnostics &diags, const PreprocessContext *ctx,
                const ParseOptions &opts);

}  // namespace xtap
