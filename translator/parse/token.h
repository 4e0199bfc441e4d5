// Tokens of the script language.
#pragma once

#include <string>

#include "diag/source.h"

namespace xtap {

enum class Tok {
  End,
  Identifier,  // foo, $foo, @foo
  Number,
  String,
  Keyword,   // probe global function if else while for foreach in delete next break continue return
  Operator,  // punctuation and operators, spelled in `text`
  EmbeddedC,  // %{ ... %}, the C text in `text`
};

struct Token {
  Tok kind = Tok::End;
  std::string text;  // identifier/keyword/operator spelling; decoded string value
  long long number = 0;
  Location loc;

  bool is_op(const char *op) const { return kind == Tok::Operator && text == op; }
  bool is_kw(const char *kw) const { return kind == Tok::Keyword && text == kw; }
};

}  // namespace xtap
