// Tapsets: script libraries (tapsets/*.stp and -I directories) parsed
// together with every script; what a script does not use is pruned in pass 2.
#pragma once

#include <string>
#include <vector>

#include "parse/parser.h"

namespace xtap {

// Parses every .stp file under `dirs` (recursively, in name order) into
// `script`. Returns false when a directory cannot be read.
bool load_tapsets(Script &script, const std::vector<std::string> &dirs, Diagnostics &diags,
                  const PreprocessContext *ctx, std::string *error);

// Reads the @define macros of every .stpm file under `dirs` (recursively, in
// name order) into ctx->library_macros, before the script is parsed; the
// files are appended to `files`, which must outlive the macros' tokens.
bool load_macro_files(const std::vector<std::string> &dirs, PreprocessContext *ctx,
                      Diagnostics &diags, std::vector<std::unique_ptr<SourceFile>> *files,
                      std::string *error);

}  // namespace xtap
