// Pass 3: statements to C, and the handler function around them.
#include <algorithm>

#include "builtins/builtins.h"
#include "codegen/body_emitter.h"

namespace xtap {

void BodyEmitter::expr_stmt(const Expr &e) {
  if (e.kind == ExprKind::Call) {
    const Builtin *b = find_builtin(e.text);
    switch (b->kind) {
      case BuiltinKind::Printf: w_.line(format_call(e, false) + ";"); return;
      case BuiltinKind::Print: w_.line(print_call(e, e.text == "println") + ";"); return;
      case BuiltinKind::Exit: w_.line("xtap_request_exit(c);"); return;
      case BuiltinKind::Error: w_.line("XTAP_FAIL(c, out, \"%s\", " + expr(*e.arg(0)) + ");"); return;
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
      w_.open("if (" + expr(*s.expr) + ") {");
      stmt(*s.body[0]);
      if (s.body.size() > 1) {
        w_.close("} else {");
        w_.set_indent(w_.indent() + 1);
        stmt(*s.body[1]);
      }
      w_.close();
      return;
    case StmtKind::While:
      w_.open("while (" + expr(*s.expr) + ") {");
      stmt(*s.body[0]);
      w_.line("XTAP_ACTIONS(c, 1, out);");  // an empty loop still costs
      w_.close();
      return;
    case StmtKind::For:
      w_.open("for (" + (s.init ? "(void)" + expr(*s.init) : std::string()) + "; " +
              (s.expr ? expr(*s.expr) : std::string("1")) + "; " +
              (s.step ? "(void)" + expr(*s.step) : std::string()) + ") {");
      stmt(*s.body[0]);
      w_.line("XTAP_ACTIONS(c, 1, out);");
      w_.close();
      return;
    case StmtKind::Foreach: foreach_stmt(s); return;
    case StmtKind::Delete: delete_stmt(s); return;
    case StmtKind::Next: w_.line("goto out;"); return;
    case StmtKind::Break: w_.line("break;"); return;
    case StmtKind::Continue: w_.line("continue;"); return;
    case StmtKind::Return: w_.line("goto out;"); return;
  }
}

void BodyEmitter::foreach_stmt(const Stmt &s) {
  const GlobalDecl &g = *s.foreach_global;
  std::string m = global_c_name(g);
  std::string e = unique("_e"), n = unique("_n");
  w_.open("{");
  w_.line("struct xtap_map_entry *" + e + ", *" + n + ";");
  w_.open("for (" + e + " = xtap_map_first(" + m + "); " + e + "; " + e + " = " + n + ") {");
  w_.line(n + " = xtap_map_next(" + m + ", " + e + ");");
  for (size_t i = 0; i < s.foreach_vars.size(); ++i) {
    const LocalVar &v = *s.foreach_vars[i];
    std::string idx = std::to_string(i);
    if (v.type == Type::String)
      w_.line("xtap_str_copy(f->l_" + v.name + ", xtap_entry_key_str(" + m + ", " + e + ", " + idx + "));");
    else
      w_.line("f->l_" + v.name + " = xtap_entry_key_long(" + m + ", " + e + ", " + idx + ");");
  }
  w_.line("XTAP_ACTIONS(c, 1, out);");
  stmt(*s.body[0]);
  w_.close();
  w_.close();
}

void BodyEmitter::delete_stmt(const Stmt &s) {
  const Expr &t = *s.expr;
  if (t.kind == ExprKind::Index) {
    w_.line("xtap_map_delete(" + global_c_name(*t.global) + ", " + keys(t) + ");");
  } else if (t.global && t.global->is_array) {
    w_.line("xtap_map_clear(" + global_c_name(*t.global) + ");");
  } else if (t.type == Type::String) {
    w_.line(var_ref(t) + "[0] = '\\0';");
  } else {
    w_.line(var_ref(t) + " = 0;");
  }
}

HandlerCode emit_handler(const Script &script, const ProbeDecl &probe, const std::string &name,
                         unsigned maxstringlen) {
  BodyEmitter be(script, probe, maxstringlen);
  be.out().set_indent(1);
  be.stmt(*probe.body);

  HandlerCode hc;
  CWriter w;
  std::string frame = "struct " + name + "_frame";
  w.open(frame + " {");
  size_t bytes = 16;
  for (const auto &l : probe.locals) {
    if (l->type == Type::String) {
      w.line("char l_" + l->name + "[MAXSTRINGLEN];");
      bytes += maxstringlen;
    } else {
      w.line("s64 l_" + l->name + ";");
      bytes += 8;
    }
  }
  for (size_t i = 0; i < be.string_temps(); ++i) w.line("char t" + std::to_string(i) + "[MAXSTRINGLEN];");
  bytes += be.string_temps() * maxstringlen;
  if (probe.locals.empty() && be.string_temps() == 0) w.line("char unused;");
  w.close("};");
  w.line();
  w.line("static void " + name + "(struct xtap_context *c)");
  w.open("{");
  w.line(frame + " *f = xtap_frame_push(c, sizeof(*f));");
  w.line();
  w.line("if (!f)");
  w.line("\treturn;");
  w.raw(be.out().str());
  w.line("out: __maybe_unused;");
  w.line("\txtap_frame_pop(c, sizeof(*f));");
  w.close();

  // Lock set: every global the probe touches, in declaration order (the
  // runtime takes them in this order), exclusive when written.
  std::vector<const GlobalDecl *> used(probe.globals_read.begin(), probe.globals_read.end());
  for (auto *g : probe.globals_written)
    if (std::find(used.begin(), used.end(), g) == used.end()) used.push_back(g);
  std::sort(used.begin(), used.end(), [](auto *a, auto *b) { return a->index < b->index; });
  if (!used.empty()) {
    hc.lock_table = name + "_locks";
    w.open("static const struct xtap_lock_req " + hc.lock_table + "[] = {");
    for (auto *g : used) {
      bool wr = std::find(probe.globals_written.begin(), probe.globals_written.end(), g) !=
                probe.globals_written.end();
      w.line("{ .global = " + std::to_string(g->index) + ", .write = " + (wr ? "1" : "0") + " }, /* " +
             g->name + " */");
    }
    w.close("};");
  } else {
    hc.lock_table = "NULL";
  }
  hc.nlocks = used.size();
  hc.frame_bytes = bytes;
  hc.c = w.str();
  return hc;
}

}  // namespace xtap
