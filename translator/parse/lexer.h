// Pass 1a: turns script text into tokens.
#pragma once

#include <vector>

#include "diag/diagnostics.h"
#include "parse/token.h"

namespace xtap {

// Lexes the whole file; the result always ends with a Tok::End token.
// Errors (bad characters, unterminated strings or comments) go to `diags`.
std::vector<Token> lex(const SourceFile &file, Diagnostics &diags);

}  // namespace xtap
