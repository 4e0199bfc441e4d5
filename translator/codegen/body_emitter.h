// Pass 3 (part): C for one probe handler, its frame and its statements.
// Expressions are in emit_expr.cpp, statements in emit_stmt.cpp.
#pragma once

#include <string>
#include <vector>

#include "codegen/writer.h"
#include "parse/ast.h"

namespace xtap {

struct HandlerCode {
  std::string c;          // frame struct + handler function
  std::string lock_table; // name of its xtap_lock_req array, or "NULL"
  size_t nlocks = 0;
  size_t frame_bytes = 0; // estimated frame size, for the per-CPU stack
};

HandlerCode emit_handler(const Script &script, const ProbeDecl &probe, const std::string &name,
                         unsigned maxstringlen);

// C names of script variables.
std::string global_c_name(const GlobalDecl &g);
std::string c_type_of(Type t);

class BodyEmitter {
 public:
  BodyEmitter(const Script &s, const ProbeDecl &p, unsigned maxstringlen)
      : script_(s), probe_(p), maxstringlen_(maxstringlen) {}

  void stmt(const Stmt &s);
  std::string expr(const Expr &e);

  CWriter &out() { return w_; }
  size_t string_temps() const { return string_temps_; }

 private:
  // Expressions (emit_expr.cpp).
  std::string string_temp();
  std::string unique(const char *prefix);
  std::string var_ref(const Expr &e);
  std::string keys(const Expr &e);
  std::string where(const Location &loc, const std::string &what);
  std::string binary(const Expr &e);
  std::string assign(const Expr &e);
  std::string incdec(const Expr &e);
  std::string index_read(const Expr &e);
  std::string call(const Expr &e);
  std::string print_call(const Expr &e, bool newline);
  std::string format_call(const Expr &e, bool to_string);
  std::string number(long long v);

  // Statements (emit_stmt.cpp).
  void foreach_stmt(const Stmt &s);
  void delete_stmt(const Stmt &s);
  void expr_stmt(const Expr &e);

  const Script &script_;
  const ProbeDecl &probe_;
  unsigned maxstringlen_;
  CWriter w_;
  size_t string_temps_ = 0;
  size_t uniq_ = 0;
};

}  // namespace xtap
