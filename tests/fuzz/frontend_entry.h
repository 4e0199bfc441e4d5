// The one entry point that the fuzz target (fuzz_frontend.cpp, libFuzzer)
// and the regression driver (regression_driver.cpp, any compiler) feed
// scripts through: passes 1 and 2 as `xtap -p2` runs them, with the
// repository's tapsets and the unit tests' small kernel catalog, so that
// no kernel, headers or debuginfo are needed.
#pragma once

#include <cstddef>
#include <string>

namespace xtap::fuzz {

struct FrontendResult {
  bool parsed = false;      // pass 1 reported no error
  bool elaborated = false;  // pass 2 ran and reported no error
  size_t diagnostics = 0;   // how many diagnostics were reported
  std::string first_error;  // "XTPnnnn line:col message" of the first error, or ""
};

// Whether the tapsets are parsed with the script: Always, as `xtap -p2`
// does; ByInput (the fuzz target's) for one script in eight, chosen by a
// hash of its bytes, the others elaborated alone, which is ten times
// faster (tapset functions are then unknown names).
enum class TapsetMode { Always, ByInput };

// Runs lexer, preprocessor, parser, tapset loading and pass 2 (elaborate,
// resolve, type inference) over `text`. Bad input must come back as
// diagnostics: a crash, a hang or unbounded memory is a bug.
FrontendResult run_frontend(const std::string &text, TapsetMode mode = TapsetMode::ByInput);

}  // namespace xtap::fuzz
