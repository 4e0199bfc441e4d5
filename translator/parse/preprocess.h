// Pass 1b: the preprocessor, between the lexer and the parser.
//   %( COND %? THEN %: ELSE %)   conditional tokens, on the target kernel
//   @define NAME(a, b) %( ... %) macros, expanded where @NAME(x, y) appears
//   $1 $2 ... / @1 @2 ...        script arguments as tokens / as strings
//   $# @#                        the number of script arguments
#pragma once

#include <map>
#include <string>
#include <vector>

#include "diag/diagnostics.h"
#include "parse/token.h"

namespace xtap {

// A macro: @define NAME(params) %( body %).
struct MacroDef {
  std::vector<std::string> params;
  std::vector<Token> body;
  Location loc;
};

struct PreprocessContext {
  std::string kernel_release;  // kernel_vr, e.g. 6.1.0-56-cloud-amd64
  std::string arch = "x86_64";
  std::map<std::string, std::string> kconfig;  // CONFIG_FOO -> "y", "m", "42", ...
  std::vector<std::string> args;               // script arguments, $1 and @1 onwards
  std::string compat_version = "4.8";          // systemtap_v: the stap we follow
  bool guru = false;                           // guru_mode: -g
  // The macros of the tapsets' .stpm files, visible to every script and
  // tapset; a script's own @define of the same name takes precedence.
  std::map<std::string, MacroDef> library_macros;
};

// Reads NAME=VALUE lines of a kernel .config into ctx->kconfig.
void load_kconfig(const std::string &path, PreprocessContext *ctx);

std::vector<Token> preprocess(const std::vector<Token> &toks, const PreprocessContext &ctx,
                              Diagnostics &diags);

// The @define macros of a macro file (.stpm), added to ctx->library_macros
// (conditionals in it are evaluated; anything but macros is an error).
void collect_library_macros(const std::vector<Token> &toks, PreprocessContext *ctx,
                            Diagnostics &diags);

// Dotted-number comparison: compare_versions("6.1.0", "5.10") > 0.
int compare_versions(const std::string &a, const std::string &b);

}  // namespace xtap
