// Pass 3: expressions to C. Every expression becomes a C expression of type
// s64 (long) or const char * (string); work that can fail uses a GNU
// statement expression that jumps to the handler's `out` label.
#include "builtins/builtins.h"
#include "codegen/body_emitter.h"
#include "format/format.h"

namespace xtap {

std::string global_c_name(const GlobalDecl &g) { return "g_" + g.name; }

std::string c_type_of(Type t) { return t == Type::String ? "const char *" : "s64"; }

std::string BodyEmitter::string_temp() { return "f->t" + std::to_string(string_temps_++); }

std::string BodyEmitter::unique(const char *prefix) {
  return std::string(prefix) + std::to_string(uniq_++);
}

std::string BodyEmitter::number(long long v) {
  if (v == INT64_MIN) return "((s64)(-9223372036854775807LL - 1))";
  return "((s64)" + std::to_string(v) + "LL)";
}

std::string BodyEmitter::where(const Location &loc, const std::string &what) {
  return c_string_literal("near " + what + " at " + loc.str());
}

std::string BodyEmitter::var_ref(const Expr &e) {
  if (e.global) return global_c_name(*e.global);
  return "f->l_" + e.local->name;
}

std::string BodyEmitter::keys(const Expr &e) {
  std::string s = "((const struct xtap_key[]){ ";
  for (size_t i = 0; i < e.args.size(); ++i) {
    bool str = e.global->key_types[i] == Type::String;
    s += std::string(str ? "{ .s = " : "{ .n = ") + expr(*e.arg(i)) + " }, ";
  }
  return s + "})";
}

std::string BodyEmitter::index_read(const Expr &e) {
  std::string m = global_c_name(*e.global);
  if (e.type == Type::String) {
    std::string t = string_temp();
    return "({ xtap_map_get_str(" + m + ", " + keys(e) + ", " + t + "); (const char *)" + t + "; })";
  }
  std::string v = unique("_v");
  return "({ s64 " + v + "; xtap_map_get_long(" + m + ", " + keys(e) + ", &" + v + "); " + v + "; })";
}

std::string BodyEmitter::expr(const Expr &e) {
  switch (e.kind) {
    case ExprKind::Number: return number(e.number);
    case ExprKind::String: return c_string_literal(e.text);
    case ExprKind::Var:
      return e.type == Type::String ? "((const char *)" + var_ref(e) + ")" : var_ref(e);
    case ExprKind::Index: return index_read(e);
    case ExprKind::In:
      return "((s64)xtap_map_exists(" + global_c_name(*e.global) + ", " + keys(e) + "))";
    case ExprKind::Call: return call(e);
    case ExprKind::Unary:
      if (e.op == "+") return "(" + expr(*e.arg(0)) + ")";
      if (e.op == "!") return "((s64)!(" + expr(*e.arg(0)) + "))";
      return "(" + e.op + "(" + expr(*e.arg(0)) + "))";
    case ExprKind::Logical:
      return "((s64)((" + expr(*e.arg(0)) + ") " + e.op + " (" + expr(*e.arg(1)) + ")))";
    case ExprKind::Ternary:
      return "((" + expr(*e.arg(0)) + ") ? (" + expr(*e.arg(1)) + ") : (" + expr(*e.arg(2)) + "))";
    case ExprKind::Binary: return binary(e);
    case ExprKind::Assign: return assign(e);
    case ExprKind::IncDec: return incdec(e);
  }
  return "0";
}

std::string BodyEmitter::binary(const Expr &e) {
  const std::string &op = e.op;
  std::string a = expr(*e.arg(0));
  std::string b = expr(*e.arg(1));
  if (op == ".") return "((const char *)xtap_str_concat(" + string_temp() + ", " + a + ", " + b + "))";
  if (e.arg(0)->type == Type::String)  // string comparison
    return "((s64)(strcmp(" + a + ", " + b + ") " + op + " 0))";
  if (op == "/" || op == "%") {
    std::string v = unique("_r");
    return "({ s64 " + v + " = " + (op == "/" ? "xtap_div" : "xtap_mod") + "(c, " + a + ", " + b +
           ", " + where(e.loc, "operator '" + op + "'") + "); if (unlikely(c->error)) goto out; " + v +
           "; })";
  }
  if (op == "<<" || op == ">>") {
    // Shift counts outside 0..63 are undefined in C, so mask them.
    return "((s64)(" + (op == "<<" ? "(u64)(" + a + ")" : "(" + a + ")") + " " + op + " ((" + b +
           ") & 63)))";
  }
  if (op == "==" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=")
    return "((s64)((" + a + ") " + op + " (" + b + ")))";
  if (op == "+" || op == "-" || op == "*") {
    // Wrap like two's complement rather than invoke signed overflow.
    return "((s64)((u64)(" + a + ") " + op + " (u64)(" + b + ")))";
  }
  return "((" + a + ") " + op + " (" + b + "))";
}

std::string BodyEmitter::assign(const Expr &e) {
  const Expr &lhs = *e.arg(0);
  const Expr &rhs = *e.arg(1);
  std::string op = e.op;
  std::string r = expr(rhs);
  if (lhs.kind == ExprKind::Index) {
    std::string m = global_c_name(*lhs.global);
    std::string k = keys(lhs);
    std::string v = unique("_v");
    if (lhs.type == Type::String) {
      std::string val = r;
      if (op == ".=") {
        std::string old = string_temp();
        val = "xtap_str_concat(" + string_temp() + ", ({ xtap_map_get_str(" + m + ", " + k + ", " +
              old + "); (const char *)" + old + "; }), " + r + ")";
      }
      return "({ const char *" + v + " = " + val + "; if (xtap_map_set_str(c, " + m + ", " + k +
             ", " + v + ")) goto out; " + v + "; })";
    }
    if (op == "=")
      return "({ s64 " + v + " = " + r + "; if (xtap_map_set_long(c, " + m + ", " + k + ", " + v +
             ")) goto out; " + v + "; })";
    if (op == "+=" || op == "-=")
      return "({ s64 " + v + "; if (xtap_map_add_long(c, " + m + ", " + k + ", " +
             (op == "-=" ? "-(" + r + ")" : r) + ", &" + v + ")) goto out; " + v + "; })";
    // Other compound operators: read, combine, store (one key evaluation).
    std::string kv = unique("_k");
    std::string old = unique("_o");
    std::string bin = op.substr(0, op.size() - 1);
    std::string combined =
        (bin == "/" || bin == "%")
            ? std::string(bin == "/" ? "xtap_div" : "xtap_mod") + "(c, " + old + ", " + r + ", " +
                  where(e.loc, "operator '" + op + "'") + ")"
            : "(" + old + " " + bin + " (" + r + "))";
    return "({ const struct xtap_key *" + kv + " = " + k + "; s64 " + old + ", " + v + "; xtap_map_get_long(" +
           m + ", " + kv + ", &" + old + "); " + v + " = " + combined +
           "; if (unlikely(c->error)) goto out; if (xtap_map_set_long(c, " + m + ", " + kv + ", " + v +
           ")) goto out; " + v + "; })";
  }
  std::string lv = var_ref(lhs);
  if (lhs.type == Type::String) {
    if (op == ".=") return "((const char *)xtap_str_append(" + lv + ", " + r + "))";
    if (rhs.kind == ExprKind::Var && rhs.global == lhs.global && rhs.local == lhs.local)
      return "((const char *)" + lv + ")";  // x = x
    return "((const char *)xtap_str_copy(" + lv + ", " + r + "))";
  }
  if (op == "=") return "(" + lv + " = " + r + ")";
  if (op == "/=" || op == "%=") {
    std::string v = unique("_r");
    return "({ s64 " + v + " = " + (op == "/=" ? "xtap_div" : "xtap_mod") + "(c, " + lv + ", " + r +
           ", " + where(e.loc, "operator '" + op + "'") + "); if (unlikely(c->error)) goto out; " + lv +
           " = " + v + "; })";
  }
  if (op == "<<=" || op == ">>=") {
    std::string sh = op.substr(0, 2);
    return "(" + lv + " = (s64)(" + (sh == "<<" ? "(u64)" + lv : lv) + " " + sh + " ((" + r + ") & 63)))";
  }
  if (op == "+=" || op == "-=" || op == "*=")
    return "(" + lv + " = (s64)((u64)" + lv + " " + op.substr(0, 1) + " (u64)(" + r + ")))";
  return "(" + lv + " " + op + " " + r + ")";
}

std::string BodyEmitter::incdec(const Expr &e) {
  const Expr &t = *e.arg(0);
  int delta = e.op == "++" ? 1 : -1;
  if (t.kind == ExprKind::Index) {
    std::string v = unique("_v");
    std::string res = e.postfix ? "(" + v + " - (" + std::to_string(delta) + "))" : v;
    return "({ s64 " + v + "; if (xtap_map_add_long(c, " + global_c_name(*t.global) + ", " + keys(t) +
           ", " + std::to_string(delta) + ", &" + v + ")) goto out; " + res + "; })";
  }
  std::string lv = var_ref(t);
  std::string v = unique("_v");
  // Wrapping increment: go through u64 to stay clear of signed overflow.
  return "({ s64 " + v + " = " + lv + "; " + lv + " = (s64)((u64)" + v + " + (u64)(" +
         std::to_string(delta) + "LL)); " + (e.postfix ? v : lv) + "; })";
}

std::string BodyEmitter::call(const Expr &e) {
  const Builtin *b = find_builtin(e.text);
  switch (b->kind) {
    case BuiltinKind::Printf: return "(" + format_call(e, false) + ", 0LL)";
    case BuiltinKind::Sprintf: return format_call(e, true);
    case BuiltinKind::Print: return "(" + print_call(e, e.text == "println") + ", 0LL)";
    case BuiltinKind::Exit: return "(xtap_request_exit(c), 0LL)";
    case BuiltinKind::Error:
      return "({ xtap_error(c, \"%s\", " + expr(*e.arg(0)) + "); goto out; 0LL; })";
    case BuiltinKind::Plain: break;
  }
  std::string s;
  for (const char *p = b->c_template; *p; ++p) {
    if (*p == '%' && p[1] == 'T') {
      s += string_temp();
      ++p;
    } else if (*p == '%' && p[1] >= '1' && p[1] <= '9') {
      s += "(" + expr(*e.arg(p[1] - '1')) + ")";
      ++p;
    } else {
      s += *p;
    }
  }
  return b->result == Type::String ? "((const char *)" + s + ")" : s;
}

std::string BodyEmitter::print_call(const Expr &e, bool newline) {
  // All literals: one constant string, no formatting at run time.
  bool literal = true;
  std::string text;
  for (const auto &a : e.args) {
    if (a->kind == ExprKind::String) text += a->text;
    else if (a->kind == ExprKind::Number) text += std::to_string(a->number);
    else literal = false;
  }
  if (literal) return "xtap_print_str(c, " + c_string_literal(text + (newline ? "\n" : "")) + ")";
  std::string fmt, args;
  for (const auto &a : e.args) {
    if (a->type == Type::String) {
      fmt += "%s";
      args += ", " + expr(*a);
    } else {
      fmt += "%lld";
      args += ", (long long)" + expr(*a);
    }
  }
  if (newline) fmt += "\n";
  return "xtap_printf(c, " + c_string_literal(fmt) + args + ")";
}

std::string BodyEmitter::format_call(const Expr &e, bool to_string) {
  Format f = parse_format(e.arg(0)->text);
  std::string args;
  size_t next = 1;
  auto arg = [&](const char *cast) { args += std::string(", ") + cast + "(" + expr(*e.arg(next++)) + ")"; };
  for (const auto &p : f.pieces) {
    if (p.literal) continue;
    if (p.width == "*") arg("(int)");
    if (p.precision == "*") arg("(int)");
    switch (p.conv) {
      case 'd': case 'i': arg("(long long)"); break;
      case 'c': arg("(int)"); break;
      case 's': arg("(const char *)"); break;
      default: arg("(unsigned long long)"); break;
    }
  }
  std::string kf = c_string_literal(kernel_format(f));
  if (to_string) return "((const char *)xtap_sprintf(" + string_temp() + ", " + kf + args + "))";
  return "xtap_printf(c, " + kf + args + ")";
}

}  // namespace xtap
