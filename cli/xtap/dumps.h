// xtap --dump-probe-types, --dump-probe-aliases, --dump-functions: what the
// translator and the tapsets offer, in stap's listing formats.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "parse/ast.h"

namespace xtap::cli {

// One probe point family a line, sorted: string parameters as (string),
// numbers as (number), as stap's --dump-probe-types prints them.
void print_probe_types(std::ostream &os);
// One alias name a line, sorted; verbose adds " = POINT, POINT" (what it expands to).
void print_probe_aliases(std::ostream &os, const Script &tapsets, bool verbose);
// One function a line, sorted: name:type (param:type, ...), the types as
// declared (unknown when the tapset leaves them to inference).
void print_functions(std::ostream &os, const Script &tapsets);

// A provider's spelling in stap's form: kprobe.function("name") ->
// kprobe.function(string), timer.ms -> timer.ms(number).
std::string probe_type_spelling(const std::string &spelling);

}  // namespace xtap::cli
