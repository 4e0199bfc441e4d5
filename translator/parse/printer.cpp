#include "parse/printer.h"

#include <cctype>

#include "common/c_writer.h"

namespace xtap {
namespace {

void print_stmt(const Stmt &s, int depth, std::string &out);

std::string keys_text(const Expr &e, size_t from = 0) {
  std::string s;
  for (size_t i = from; i < e.args.size(); ++i) s += (i > from ? ", " : "") + print_expr(*e.arg(i));
  return s;
}

void line(std::string &out, int depth, const std::string &text) {
  out.append(size_t(depth) * 4, ' ');
  out += text;
  out += '\n';
}

// An assignment as a whole statement (or a for's init and step) needs no
// parentheses; everywhere else print_expr puts them, so that `a % (b = c)`
// does not read back as `(a % b) = c`.
std::string print_top(const Expr &e) {
  if (e.kind != ExprKind::Assign) return print_expr(e);
  return print_expr(*e.arg(0)) + " " + e.op_spelling() + " " + print_expr(*e.arg(1));
}

// A statement that starts with an operator, a '(', a string or a ';'
// could read back as the continuation of the statement before it (`f()`
// newline `--x` is `f()--` then `x`; `"a"` newline `"b"` is one string;
// `x` newline `(y)` a call; `;` the end of `f()`): end the line before with
// its own `;`.
void separate(std::string &out, size_t before) {
  size_t first = out.find_first_not_of(' ', before);
  if (before < 2 || first == std::string::npos) return;
  char c = out[first];
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '@' || c == '{')
    return;
  char last = out[before - 2];  // out[before - 1] is the previous line's newline
  if (last != '{' && last != '}' && last != ';') out.insert(before - 1, ";");
}

void print_body(const Stmt &s, int depth, std::string &out) {
  if (s.kind == StmtKind::Block) print_stmt(s, depth, out);
  else print_stmt(s, depth + 1, out);
}

void print_stmt(const Stmt &s, int depth, std::string &out) {
  switch (s.kind) {
    case StmtKind::Block:
      line(out, depth, "{");
      for (size_t i = 0; i < s.body.size(); ++i) {
        size_t before = out.size();
        print_stmt(*s.body[i], depth + 1, out);
        if (i) separate(out, before);
      }
      line(out, depth, "}");
      return;
    case StmtKind::Expr: line(out, depth, print_top(*s.expr)); return;
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
      line(out, depth,
           "for (" + (s.init ? print_top(*s.init) : "") + "; " +
               (s.expr ? print_expr(*s.expr) : "") + "; " + (s.step ? print_top(*s.step) : "") +
               ")");
      print_body(*s.body[0], depth, out);
      return;
    case StmtKind::Foreach: {
      auto mark = [&](int col) {
        return s.foreach->sort_column == col ? (s.foreach->sort_desc ? "-" : "+") : "";
      };
      std::string k;
      for (size_t i = 0; i < s.foreach->keys.size(); ++i)
        k += (i ? ", " : "") + s.foreach->keys[i] + mark(static_cast<int>(i) + 1);
      std::string v = s.foreach->value.empty() ? "" : s.foreach->value + " = ";
      std::string st = s.foreach->sort_stat
                           ? std::string(" @") + stat_op_name(*s.foreach->sort_stat)
                       : !s.foreach->sort_stat_unknown.empty() ? " @" + s.foreach->sort_stat_unknown
                                                               : "";
      std::string lim = s.foreach->limit ? " limit " + print_expr(*s.foreach->limit) : "";
      std::string arr = s.expr ? print_expr(*s.expr) : s.foreach->array;
      line(out, depth, "foreach (" + v + "[" + k + "] in " + arr + st + mark(0) + lim + ")");
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
      line(out, depth,
           s.catch_clause->var.empty() ? "catch" : "catch (" + s.catch_clause->var + ")");
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
    case ExprKind::Aggregate:
      return std::string("@") + stat_op_name(e.stat) + "(" + keys_text(e) + ")";
    case ExprKind::HistBucket:
      if (e.text == "in") return "([" + keys_text(e, 1) + "] in " + print_expr(*e.arg(0)) + ")";
      return print_expr(*e.arg(0)) + "[" + keys_text(e, 1) + "]";
    case ExprKind::Defined: return "@defined(" + print_expr(*e.arg(0)) + ")";
    case ExprKind::Entry: return "@entry(" + print_expr(*e.arg(0)) + ")";
    case ExprKind::Star: return "*";
    case ExprKind::EmbeddedC: return "%{" + e.text + "%}";
    case ExprKind::Target: {
      const TargetRef &t = *e.target;
      std::string s = t.address_of ? "&" : "";
      if (t.name == "@cast") {
        s += "@cast(" + print_expr(*e.arg(0)) + ", " + c_string_literal(t.cast_type) +
             (t.cast_module.empty() ? "" : ", " + c_string_literal(t.cast_module)) + ")";
      } else if (t.name == "@autocast") {
        s += "(" + print_expr(*e.arg(0)) + ")";
      } else if (t.name == "@var") {
        s += "@var(" + c_string_literal(t.cast_type) + ")";
      } else {
        s += t.name;
      }
      for (const auto &c : t.components)
        s += c.kind == TargetComponent::Kind::Member ? "->" + c.member
                                                     : "[" + print_expr(*e.arg(c.arg)) + "]";
      return s + std::string(static_cast<size_t>(t.pretty), '$');
    }
    case ExprKind::Unary: {
      // `-` of -5 or of --x: a space, or it reads back as a decrement.
      std::string op = e.op_spelling(), arg = print_expr(*e.arg(0));
      return op + (!arg.empty() && (arg[0] == '-' || arg[0] == '+') ? " " : "") + arg;
    }
    case ExprKind::IncDec:
      return e.postfix ? print_expr(*e.arg(0)) + e.op_spelling()
                       : e.op_spelling() + print_expr(*e.arg(0));
    case ExprKind::Ternary:
      return "(" + print_expr(*e.arg(0)) + " ? " + print_expr(*e.arg(1)) + " : " +
             print_expr(*e.arg(2)) + ")";
    case ExprKind::Assign: return "(" + print_top(e) + ")";
    case ExprKind::Binary:
    case ExprKind::Logical:
      return "(" + print_expr(*e.arg(0)) + " " + e.op_spelling() + " " + print_expr(*e.arg(1)) +
             ")";
  }
  return "?";
}

std::string print_script(const Script &s) {
  std::string out;
  // Only the script itself: tapsets are libraries, not part of its parse.
  for (const auto &g : s.globals) {
    if (g->from_tapset) continue;
    std::string t = "global " + g->name;
    if (g->wrap) t += "%";
    if (g->max_entries) t += "[" + std::to_string(g->max_entries) + "]";
    if (g->init) t += " = " + print_expr(*g->init);
    line(out, 0, t);
  }
  auto points = [](const std::vector<ProbePoint> &pps) {
    std::string pts;
    for (const auto &pp : pps)
      pts += (pts.empty() ? "" : ", ") + pp.str() +
             (pp.sufficient ? "!"
              : pp.optional ? "?"
                            : "") +
             (pp.condition ? " if (" + print_expr(*pp.condition) + ")" : "");
    return pts;
  };
  for (const auto &a : s.aliases) {
    if (a->from_tapset) continue;
    line(out, 0, "probe " + a->name.str() + (a->epilogue ? " += " : " = ") + points(a->points));
    print_stmt(*a->body, 0, out);
    if (a->epilogue_body) {
      line(out, 0, ",");
      print_stmt(*a->epilogue_body, 0, out);
    }
  }
  for (const auto &f : s.functions) {
    if (f->from_tapset) continue;
    std::string ps;
    for (const auto *p : f->params) ps += (ps.empty() ? "" : ", ") + p->name;
    line(out, 0, "function " + f->name + "(" + ps + ")");
    print_stmt(*f->body, 0, out);
  }
  for (const auto &p : s.probes) {
    if (p->from_tapset) continue;
    line(out, 0,
         "probe " + points(p->points) +
             (p->condition ? " if (" + print_expr(*p->condition) + ")" : ""));
    print_stmt(*p->body, 0, out);
  }
  return out;
}

}  // namespace xtap
