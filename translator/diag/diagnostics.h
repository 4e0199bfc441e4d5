// Diagnostics: every user-visible error has a stable code, a location, the
// source line with an underline and, where possible, a suggestion.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "diag/source.h"

namespace xtap {

enum class Severity { Error, Warning };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string code;  // stable, e.g. "XTP1001"; documented in docs/errors/
  Location loc;
  std::string message;
  std::string hint;  // "did you mean 'foo'?" or empty
};

class Diagnostics {
 public:
  Diagnostic &error(std::string code, Location loc, std::string message);
  Diagnostic &warning(std::string code, Location loc, std::string message);

  bool has_errors() const { return errors_ > 0; }
  int error_count() const { return errors_; }
  const std::vector<Diagnostic> &all() const { return diags_; }

  // Prints every diagnostic in order, each with its source line and caret.
  void print(std::ostream &os) const;
  static void print_one(std::ostream &os, const Diagnostic &d);

 private:
  std::vector<Diagnostic> diags_;
  int errors_ = 0;
};

// Edit distance based suggestion: the candidate closest to `name`, or "" if
// none is close enough to be worth suggesting.
std::string closest_match(const std::string &name, const std::vector<std::string> &candidates);

}  // namespace xtap
