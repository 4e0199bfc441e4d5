#include "parse/printer.h"

#include "codegen/writer.h"

namespace xtap {
namespace {

void print_stmt(const Stmt &s, int depth, std::string &out);

std::string keys_text(const Expr &e, size_t from = 0) {
  std::string s;
  for (size_t i = from; i < e.args.size(); ++i) s += (i > from ? ", " : "") + print_expr(*e.arg(i));
  return s;
}

void line(std::string &out, int depth, const std::string &text) {
  out.append(depth * 4, ' ');
  out += text;
  out += '\n';
}

void print_body(const Stmt &s, int depth, std::string &out) {
  if (s.kind == StmtKind::Block) print_stmt(s, depth, out);
  else print_stmt(s, depth + 1, out);
}

void print_stmt(const Stmt &s, int depth, std::string &out) {
  switch (s.kind) {
    case StmtKind::Block:
      line(out, depth, "{");
      for (const auto &b : s.body) print_stmt(*b, depth + 1, out);
      line(out, depth, "}");
      return;
    case StmtKind::Expr: line(out, depth, print_expr(*s.expr)); return;
    case StmtKind::If:
      line(out, depth, "if (" + print_expr(*s.expr) + ")");
      print_body(*s.body[0], depth, out);
      if (s.body.size() > 1) {
        line(out, depth, "else");
        print_body(*s.body[1], depth, out);
      }
      return;
    case StmtKind::While:
      line(out, depth, "while (" + print_expr(*s.expr) + ")");
      print_body(*s.body[0], depth, out);
      return;
    case StmtKind::For:
      line(out, depth, "for (" + (s.init ? print_expr(*s.init) : "") + "; " +
                           (s.expr ? print_expr(*s.expr) : "") + "; " +
                           (s.step ? print_expr(*s.step) : "") + ")");
      print_body(*s.body[0], depth, out);
      return;
    case StmtKind::Foreach: {
      std::string k;
      for (size_t i = 0; i < s.foreach_keys.size(); ++i) k += (i ? ", " : "") + s.foreach_keys[i];
      line(out, depth, "foreach ([" + k + "] in " + s.foreach_array + ")");
      print_body(*s.body[0], depth, out);
      return;
    }
    case StmtKind::Delete: line(out, depth, "delete " + print_expr(*s.expr)); return;
    case StmtKind::Next: line(out, depth, "next"); return;
    case StmtKind::Break: line(out, depth, "break"); return;
    case StmtKind::Continue: line(out, depth, "continue"); return;
    case StmtKind::Return:
      line(out, depth, s.expr ? "return " + print_expr(*s.expr) : "return");
      return;
    case StmtKind::Empty: line(out, depth, ";"); return;
    case StmtKind::Try:
      line(out, depth, "try");
      print_stmt(*s.body[0], depth, out);
      line(out, depth, s.foreach_keys.empty() ? "catch" : "catch (" + s.foreach_keys[0] + ")");
      print_stmt(*s.body[1], depth, out);
      return;
  }
}

}  // namespace

std::string print_expr(const Expr &e) {
  switch (e.kind) {
    case ExprKind::Number: return std::to_string(e.number);
    case ExprKind::String: return c_string_literal(e.text);
    case ExprKind::Var: return e.text;
    case ExprKind::Index: return e.text + "[" + keys_text(e) + "]";
    case ExprKind::In: return "([" + keys_text(e) + "] in " + e.text + ")";
    case ExprKind::Call: return e.text + "(" + keys_text(e) + ")";
    case ExprKind::Unary: return e.op + print_expr(*e.arg(0));
    case ExprKind::IncDec:
      return e.postfix ? print_expr(*e.arg(0)) + e.op : e.op + print_expr(*e.arg(0));
    case ExprKind::Ternary:
      return "(" + print_expr(*e.arg(0)) + " ? " + print_expr(*e.arg(1)) + " : " +
             print_expr(*e.arg(2)) + ")";
    case ExprKind::Assign:
      return print_expr(*e.arg(0)) + " " + e.op + " " + print_expr(*e.arg(1));
    case ExprKind::Binary:
    case ExprKind::Logical:
      return "(" + print_expr(*e.arg(0)) + " " + e.op + " " + print_expr(*e.arg(1)) + ")";
  }
  return "?";
}

std::string print_script(const Script &s) {
  std::string out;
  for (const auto &g : s.globals) {
    std::string t = "global " + g->name;
    if (g->max_entries) t += "[" + std::to_string(g->max_entries) + "]";
    if (g->init) t += " = " + print_expr(*g->init);
    line(out, 0, t);
  }
  for (const auto &p : s.probes) {
    std::string pts;
    for (const auto &pp : p->points) pts += (pts.empty() ? "" : ", ") + pp.str();
    line(out, 0, "probe " + pts);
    print_stmt(*p->body, 0, out);
  }
  return out;
}

}  // namespace xtap
