// Pass 3 (part): C for one probe handler, its frame and its statements.
// Expressions are in emit_expr.cpp, statements in emit_stmt.cpp.
#pragma once

#include <string>
#include <vector>

#include "common/c_writer.h"
#include "format/format.h"
#include "parse/ast.h"

namespace xtap {

struct HandlerCode {
  std::string c;           // frame struct + handler function
  std::string lock_table;  // name of its xtap_lock_req array, or "NULL"
  size_t nlocks = 0;
  size_t frame_bytes = 0;  // estimated frame size, for the per-CPU stack
};

HandlerCode emit_handler(const Script &script, const ProbeDecl &probe, const std::string &name,
                         unsigned maxstringlen);

struct FunctionCode {
  std::string prototype;  // forward declaration
  std::string c;          // frame struct + definition
  size_t frame_bytes = 0;
};

FunctionCode emit_function(const Script &script, const FunctionDecl &fn, unsigned maxstringlen);
std::string function_c_name(const FunctionDecl &f);

// C names of script variables.
std::string global_c_name(const GlobalDecl &g);
std::string c_type_of(Type t);
std::string stat_op_constant(StatOp op);  // StatOp::Sum -> XTAP_OP_SUM
unsigned slice_mask(const Expr &e);       // bit i: key i of the slice is `*`

class BodyEmitter {
 public:
  BodyEmitter(const Script &s, const Body &b, const FunctionDecl *fn, unsigned maxstringlen)
      : script_(s), body_(b), function_(fn), maxstringlen_(maxstringlen) {}

  void stmt(const Stmt &s);
  std::string expr(const Expr &e);
  // A long as a C condition: `(e) != 0`, not bare `e`, so that GCC's
  // -Wint-in-bool-context has nothing to say of `if (a * b)` or `if (c ? 0 : 5)`.
  std::string truth(const Expr &e) { return "((" + expr(e) + ") != 0)"; }

  CWriter &out() { return w_; }
  size_t string_temps() const { return string_temps_; }

 private:
  // Expressions (emit_expr.cpp).
  std::string string_temp();
  std::string unique(const char *prefix);
  std::string var_ref(const Expr &e);
  std::string keys(const Expr &e, std::string *prelude);
  std::string where(const Location &loc, const std::string &what);
  std::string binary(const Expr &e);
  std::string binary_of(const Expr &e, const std::string &a, const std::string &b);
  std::string long_op(const Expr &e, Op op, const std::string &a, const std::string &b);
  std::string assign(const Expr &e);
  std::string index_assign(const Expr &e, const std::string &m, const std::string &k,
                           const std::string &r);
  std::string scalar_assign(const Expr &e, std::string r);
  std::string incdec(const Expr &e);
  std::string index_read(const Expr &e);
  std::string call(const Expr &e);
  std::string aggregate(const Expr &e);  // emit_stats.cpp
  std::string percentile(const Expr &e);
  std::string histogram(const Expr &e);
  std::string hist_call(const Expr &h, const std::string &fn, const std::string &args,
                        const std::string &rest, std::string *prelude);
  std::string hist_bucket(const Expr &e);
  std::string hist_sprint(const Expr &e, bool newline);
  void foreach_histogram(const Stmt &s);
  std::string function_call(const Expr &e);
  std::string print_call(const Expr &e, bool newline);
  std::string values_call(const Expr &e, size_t from, bool newline, bool to_string);
  std::string format_call(const Expr &e, bool to_string);
  std::string raw_format_seq(const Format &f, const std::vector<std::string> &vals);
  std::string text_format(const Format &f, const std::vector<std::string> &vals, bool to_string);
  std::string number(long long v);
  std::string embedded_expr(const Expr &e);
  std::string target_read(const Expr &e);  // emit_target.cpp
  std::string target_write(const Expr &lhs, const std::string &value);
  std::string target_ops(const Expr &e, const std::string &t, size_t n);
  std::vector<std::string> in_order(const std::vector<const Expr *> &args, std::string *prelude);
  static std::string wrap(const std::string &prelude, const std::string &e);

  // Statements (emit_stmt.cpp).
  void foreach_stmt(const Stmt &s);
  std::string foreach_slice(const Expr &slice);
  void delete_stmt(const Stmt &s);
  void try_stmt(const Stmt &s);
  std::string on_error() const { return "goto " + fail_label_ + ";"; }
  void expr_stmt(const Expr &e);

  const Script &script_;
  const Body &body_;
  const FunctionDecl *function_;  // when emitting a script function
  unsigned maxstringlen_;
  CWriter w_;
  size_t string_temps_ = 0;
  size_t uniq_ = 0;
  std::string fail_label_ = "out";  // where a raised error goes: out, or a catch
};

}  // namespace xtap
