// Pass 3: statements to C, and the handler function around them.
#include <algorithm>

#include "builtins/builtins.h"
#include "codegen/body_emitter.h"

namespace xtap {

void BodyEmitter::expr_stmt(const Expr &e) {
  const Builtin *b = e.kind == ExprKind::Call ? e.builtin : nullptr;
  if (b) {
    switch (b->kind) {
      case BuiltinKind::Printf: w_.line(format_call(e, false) + ";"); return;
      case BuiltinKind::Print: w_.line(print_call(e, b->newline) + ";"); return;
      case BuiltinKind::PrintDelimited:
        if (b->result == Type::String) break;
        w_.line(values_call(e, 1, b->newline, false) + ";");
        return;
      case BuiltinKind::Exit: w_.line("xtap_request_exit(c);"); return;
      case BuiltinKind::Error:
        w_.line("XTAP_FAIL(c, " + fail_label_ + ", \"%s\", " + expr(*e.arg(0)) + ");");
        return;
      default: break;
    }
  }
  w_.line("(void)" + expr(e) + ";");
}

void BodyEmitter::stmt(const Stmt &s) {
  if (s.kind != StmtKind::Block && s.kind != StmtKind::Empty) w_.line("XTAP_ACTIONS(c, 1, out);");
  switch (s.kind) {
    case StmtKind::Block:
      w_.open("{");
      for (const auto &b : s.body) stmt(*b);
      w_.close();
      return;
    case StmtKind::Empty: return;
    case StmtKind::Expr: expr_stmt(*s.expr); return;
    case StmtKind::If:
      w_.open("if " + truth(*s.expr) + " {");
      stmt(*s.body[0]);
      if (s.body.size() > 1) {
        w_.close("} else {");
        w_.set_indent(w_.indent() + 1);
        stmt(*s.body[1]);
      }
      w_.close();
      return;
    case StmtKind::While:
      w_.open("while " + truth(*s.expr) + " {");
      stmt(*s.body[0]);
      w_.line("XTAP_ACTIONS(c, 1, out);");  // an empty loop still costs
      w_.close();
      return;
    case StmtKind::For:
      w_.open("for (" + (s.init ? "(void)" + expr(*s.init) : std::string()) + "; " +
              (s.expr ? truth(*s.expr) : std::string("1")) + "; " +
              (s.step ? "(void)" + expr(*s.step) : std::string()) + ") {");
      stmt(*s.body[0]);
      w_.line("XTAP_ACTIONS(c, 1, out);");
      w_.close();
      return;
    case StmtKind::Foreach: foreach_stmt(s); return;
    case StmtKind::Try: try_stmt(s); return;
    case StmtKind::Delete: delete_stmt(s); return;
    // In a function: on to the next function of its overload chain.
    case StmtKind::Next: w_.line(function_ ? "goto next_overload_pop;" : "goto out;"); return;
    case StmtKind::Break: w_.line("break;"); return;
    case StmtKind::Continue: w_.line("continue;"); return;
    case StmtKind::Return:
      if (s.expr) {
        if (function_->return_type == Type::String)
          w_.line("xtap_str_copy(ret, " + expr(*s.expr) + ");");
        else w_.line("ret = " + expr(*s.expr) + ";");
      }
      w_.line("goto out;");
      return;
  }
}

void BodyEmitter::foreach_stmt(const Stmt &s) {
  if (s.foreach_histogram()) return foreach_histogram(s);
  const GlobalDecl &g = *s.foreach->global;
  std::string m = global_c_name(g);
  std::string e = unique("_e"), n = unique("_n"), left = unique("_left");
  w_.open("{");
  w_.line("struct xtap_map_entry *" + e + ", *" + n + ";");
  std::string slice = s.expr ? foreach_slice(*s.expr) : std::string();
  if (s.foreach->limit) w_.line("s64 " + left + " = " + expr(*s.foreach->limit) + ";");
  if (s.foreach->sort_column >= 0) {
    std::string op = stat_op_constant(s.foreach->sort_stat.value_or(StatOp::Count));
    w_.line("xtap_map_sort(" + m + ", " + std::to_string(s.foreach->sort_column) + ", " +
            (s.foreach->sort_desc ? "1" : "0") + ", " + op + ");");
  }
  w_.open("for (" + e + " = xtap_map_first(" + m + "); " + e + "; " + e + " = " + n + ") {");
  w_.line(n + " = xtap_map_next(" + m + ", " + e + ");");
  // As stap: `limit` counts the entries visited, the slice's or not.
  if (s.foreach->limit)
    w_.line("if (" + left + "-- <= 0)\n" + std::string(w_.indent() + 1, '\t') + "break;");
  if (!slice.empty())
    w_.line("if (!xtap_entry_in_slice(" + m + ", " + e + ", " + slice + ", " +
            std::to_string(slice_mask(*s.expr)) + "))\n" + std::string(w_.indent() + 1, '\t') +
            "continue;");
  if (const LocalVar *v = s.foreach->value_var) {
    if (v->type == Type::String)
      w_.line("xtap_str_copy(f->l_" + v->name + ", xtap_entry_value_str(" + m + ", " + e + "));");
    else w_.line("f->l_" + v->name + " = xtap_entry_value_long(" + m + ", " + e + ");");
  }
  for (size_t i = 0; i < s.foreach->vars.size(); ++i) {
    const LocalVar &v = *s.foreach->vars[i];
    std::string idx = std::to_string(i);
    if (v.type == Type::String)
      w_.line("xtap_str_copy(f->l_" + v.name + ", xtap_entry_key_str(" + m + ", " + e + ", " + idx +
              "));");
    else w_.line("f->l_" + v.name + " = xtap_entry_key_long(" + m + ", " + e + ", " + idx + ");");
  }
  w_.line("XTAP_ACTIONS(c, 1, out);");
  stmt(*s.body[0]);
  w_.close();
  w_.close();
}

// The fixed keys of foreach (... in a[k, *]), evaluated once before the
// loop (strings copied, so that the body may change what they came from)
// into a key array; returns its name.
std::string BodyEmitter::foreach_slice(const Expr &slice) {
  std::string k = unique("_slice");
  w_.line("struct xtap_key " + k + "[" + std::to_string(slice.args.size()) + "] = {};");
  for (size_t i = 0; i < slice.args.size(); ++i) {
    const Expr &key = *slice.arg(i);
    if (key.kind == ExprKind::Star) continue;
    std::string slot = k + "[" + std::to_string(i) + "]";
    if (slice.global->key_types[i] == Type::String) {
      std::string t = string_temp();
      w_.line("xtap_str_copy(" + t + ", " + expr(key) + ");");
      w_.line(slot + ".s = " + t + ";");
    } else {
      w_.line(slot + ".n = " + expr(key) + ";");
    }
  }
  return k;
}

// try { A } catch (msg) { B }: errors raised in A (not MAXACTION, not
// next) jump to the catch label instead of ending the run; abort() passes
// through the catch block.
void BodyEmitter::try_stmt(const Stmt &s) {
  std::string id = unique("");
  std::string catch_label = "try_catch" + id, end_label = "try_end" + id;
  std::string outer = fail_label_;
  fail_label_ = catch_label;
  w_.open("{");
  stmt(*s.body[0]);
  w_.line("goto " + end_label + ";");
  fail_label_ = outer;
  w_.close();
  w_.line(catch_label + ": __maybe_unused;");
  w_.open("{");
  w_.line("if (unlikely(xtap_aborted(c))) goto out;");
  if (s.catch_clause->local)
    w_.line("xtap_str_copy(f->l_" + s.catch_clause->local->name + ", c->error ? c->error : \"\");");
  w_.line("c->error = NULL;");
  w_.line("c->error_where = NULL;");
  if (s.body.size() > 1) stmt(*s.body[1]);
  w_.close();
  w_.line(end_label + ": __maybe_unused;");
}

void BodyEmitter::delete_stmt(const Stmt &s) {
  const Expr &t = *s.expr;
  if (t.kind == ExprKind::Index) {
    std::string pre;
    std::string k = keys(t, &pre);
    if (unsigned any = slice_mask(t))
      w_.line(wrap(pre, "xtap_map_delete_slice(" + global_c_name(*t.global) + ", " + k + ", " +
                            std::to_string(any) + ")") +
              ";");
    else w_.line(wrap(pre, "xtap_map_delete(" + global_c_name(*t.global) + ", " + k + ")") + ";");
  } else if (t.global && t.global->is_array) {
    w_.line("xtap_map_clear(" + global_c_name(*t.global) + ");");
  } else if (t.global && t.global->type == Type::Stat) {
    w_.line("xtap_stat_clear(" + global_c_name(*t.global) + ");");
  } else if (t.type == Type::String) {
    w_.line(var_ref(t) + "[0] = '\\0';");
  } else {
    w_.line(var_ref(t) + " = 0;");
  }
}

}  // namespace xtap
