// Pass 3: expressions to C. Every expression becomes a C expression of type
// s64 (long) or const char * (string); work that can fail uses a GNU
// statement expression that jumps to the handler's `out` label.
#include <algorithm>
#include <regex>

#include "builtins/builtins.h"
#include "codegen/body_emitter.h"
#include "format/format.h"

namespace xtap {

std::string global_c_name(const GlobalDecl &g) { return "g_" + g.name; }

std::string c_type_of(Type t) { return t == Type::String ? "const char *" : "s64 "; }

namespace {

bool has_side_effects(const Expr &e) {
  if (e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec || e.kind == ExprKind::EmbeddedC)
    return true;
  if (e.kind == ExprKind::Call) {
    if (e.function) return true;
    const Builtin *b = e.builtin;
    if (b && b->result != Type::String && b->kind != BuiltinKind::Plain)
      return true;  // output, exit, error
    if (b && b->side_effects) return true;
  }
  for (const auto &a : e.args)
    if (has_side_effects(*a)) return true;
  return false;
}

// A comparison's 0 or 1 (or a && or !) where C warns of a boolean: GCC's
// -Wbool-compare (`(a < b) == 5`) and -Wbool-operation (`~(a < b)`) see
// through the (s64) cast, not through `? 1 : 0`.
std::string as_number(const Expr &x, const std::string &c) {
  bool boolean = (x.kind == ExprKind::Binary && is_comparison(x.op)) ||
                 x.kind == ExprKind::Logical || (x.kind == ExprKind::Unary && x.op == Op::Not);
  return boolean ? "((" + c + ") ? 1 : 0)" : c;
}

// `(x | 1) == 0`: GCC works out that a bitwise operation with a constant
// can never equal the other side (-Wtautological-compare); through a
// statement expression it does not look.
std::string opaque_bits(const Expr &x, const std::string &c) {
  bool bits = x.kind == ExprKind::Binary &&
              (x.op == Op::BitAnd || x.op == Op::BitOr || x.op == Op::BitXor) &&
              (x.arg(0)->kind == ExprKind::Number || x.arg(1)->kind == ExprKind::Number);
  return bits ? "({ s64 _b = " + c + "; _b; })" : c;
}

}  // namespace

// C leaves the order of function arguments and initializers open; the
// script language evaluates left to right. When an argument has side
// effects, evaluate every argument into a temporary first, in order.
std::vector<std::string> BodyEmitter::in_order(const std::vector<const Expr *> &args,
                                               std::string *prelude) {
  std::vector<std::string> out;
  bool sequence = false;
  if (args.size() > 1)
    for (const auto *a : args) sequence |= has_side_effects(*a);
  for (const auto *a : args) {
    std::string e = expr(*a);
    if (!sequence || a->kind == ExprKind::Number || a->kind == ExprKind::String) {
      out.push_back(e);
      continue;
    }
    std::string t = unique("_a");
    *prelude += c_type_of(a->type) + t + " = " + e + "; ";
    out.push_back(t);
  }
  return out;
}

std::string BodyEmitter::wrap(const std::string &prelude, const std::string &e) {
  return prelude.empty() ? e : "({ " + prelude + e + "; })";
}

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

// The key array of an array access; when the keys must be evaluated into
// temporaries first, their declarations go to *prelude, which the caller
// wraps around the whole access (the compound literal must stay in scope).
std::string BodyEmitter::keys(const Expr &e, std::string *prelude) {
  std::vector<const Expr *> args;
  for (const auto &a : e.args) args.push_back(a.get());
  std::vector<std::string> vals = in_order(args, prelude);
  std::string s = "((const struct xtap_key[]){ ";
  for (size_t i = 0; i < vals.size(); ++i) {
    bool str = e.global->key_types[i] == Type::String;
    s += std::string(str ? "{ .s = " : "{ .n = ") + vals[i] + " }, ";
  }
  return s + "})";
}

// %{ C %} in an expression: STAP_ARG_x is the local x, CONTEXT the context.
std::string BodyEmitter::embedded_expr(const Expr &e) {
  static const std::regex arg("STAP_ARG_([A-Za-z_][A-Za-z0-9_]*)");
  static const std::regex context("\\bCONTEXT\\b");
  std::string c = std::regex_replace(e.text, arg, "f->l_$1");
  c = std::regex_replace(c, context, "c");
  if (e.type == Type::String) return "((const char *)(" + c + "))";
  return "((s64)(" + c + "))";
}

// Bit i set when key i of a slice is `*`.
unsigned slice_mask(const Expr &e) {
  unsigned mask = 0;
  for (size_t i = 0; i < e.args.size(); ++i)
    if (e.arg(i)->kind == ExprKind::Star) mask |= 1u << i;
  return mask;
}

std::string BodyEmitter::index_read(const Expr &e) {
  std::string m = global_c_name(*e.global);
  std::string pre;
  std::string k = keys(e, &pre);
  if (e.type == Type::String) {
    std::string t = string_temp();
    return "({ " + pre + "xtap_map_get_str(" + m + ", " + k + ", " + t + "); (const char *)" + t +
           "; })";
  }
  std::string v = unique("_v");
  return "({ " + pre + "s64 " + v + "; xtap_map_get_long(" + m + ", " + k + ", &" + v + "); " + v +
         "; })";
}

std::string BodyEmitter::expr(const Expr &e) {
  switch (e.kind) {
    case ExprKind::Number: return number(e.number);
    case ExprKind::String: return c_string_literal(e.text);
    case ExprKind::Var:
      return e.type == Type::String ? "((const char *)" + var_ref(e) + ")" : var_ref(e);
    case ExprKind::Index: return index_read(e);
    case ExprKind::In: {
      std::string pre;
      std::string k = keys(e, &pre);
      if (unsigned any = slice_mask(e))
        return wrap(pre, "((s64)xtap_map_exists_slice(" + global_c_name(*e.global) + ", " + k +
                             ", " + std::to_string(any) + "))");
      return wrap(pre, "((s64)xtap_map_exists(" + global_c_name(*e.global) + ", " + k + "))");
    }
    case ExprKind::Star: return "0";  // its key slot is not compared
    case ExprKind::EmbeddedC: return embedded_expr(e);
    case ExprKind::Call: return call(e);
    case ExprKind::Unary:
      switch (e.op) {
        case Op::Plus: return "(" + expr(*e.arg(0)) + ")";
        case Op::Not: return "((s64)((" + expr(*e.arg(0)) + ") == 0))";
        case Op::Neg: return "((s64)(0ULL - (u64)(" + expr(*e.arg(0)) + ")))";  // wraps, as stap's
        default: return "(~(" + as_number(*e.arg(0), expr(*e.arg(0))) + "))";
      }
    case ExprKind::Logical:
      return "((s64)(" + truth(*e.arg(0)) + " " + op_token(e.op) + " " + truth(*e.arg(1)) + "))";
    case ExprKind::Ternary:
      return "(" + truth(*e.arg(0)) + " ? (" + expr(*e.arg(1)) + ") : (" + expr(*e.arg(2)) + "))";
    case ExprKind::Binary: return binary(e);
    case ExprKind::Assign: return assign(e);
    case ExprKind::IncDec: return incdec(e);
    case ExprKind::Aggregate: return aggregate(e);
    case ExprKind::HistBucket: return hist_bucket(e);
    case ExprKind::Target: return target_read(e);
    case ExprKind::Defined: return number(e.number);  // pass 2 replaces these
    case ExprKind::Entry: return "0";                 // expand_entry rewrites every @entry
  }
  return "0";
}

std::string BodyEmitter::binary(const Expr &e) {
  std::string prelude;
  std::vector<std::string> ab = in_order({e.arg(0), e.arg(1)}, &prelude);
  return wrap(prelude, binary_of(e, ab[0], ab[1]));
}

std::string BodyEmitter::binary_of(const Expr &e, const std::string &a, const std::string &b) {
  switch (e.op) {
    case Op::Concat:
      return "((const char *)xtap_str_concat(" + string_temp() + ", " + a + ", " + b + "))";
    case Op::Match:
    case Op::NoMatch:
      return "((s64)(xtap_regex_match(c, " + std::to_string(e.regex) + ", " + a + ") " +
             (e.op == Op::Match ? "== 1" : "!= 1") + "))";
    default: break;
  }
  if (e.arg(0)->type == Type::String)  // string comparison
    return "((s64)(strcmp(" + a + ", " + b + ") " + op_token(e.op) + " 0))";
  if (is_comparison(e.op)) {
    // `x != x`: GCC warns of a self-comparison (-Wtautological-compare);
    // the same C text twice is the same pure value (side effects get
    // temporaries of their own), so the result is known.
    if (a == b) {
      bool equal = e.op == Op::Eq || e.op == Op::Le || e.op == Op::Ge;
      return equal ? "((s64)1LL)" : "((s64)0LL)";
    }
    return long_op(e, e.op, opaque_bits(*e.arg(0), as_number(*e.arg(0), a)),
                   opaque_bits(*e.arg(1), as_number(*e.arg(1), b)));
  }
  return long_op(e, e.op, a, b);
}

// `a op b` on two longs, with stap's semantics: arithmetic wraps (no signed
// overflow in C), shift counts are taken modulo 64, and division by zero is
// a script error. `e` gives the location and spelling for that error.
std::string BodyEmitter::long_op(const Expr &e, Op op, const std::string &a, const std::string &b) {
  const std::string tok = op_token(op);
  switch (op) {
    case Op::Div:
    case Op::Mod: {
      std::string v = unique("_r");
      return "({ s64 " + v + " = " + (op == Op::Div ? "xtap_div" : "xtap_mod") + "(c, " + a + ", " +
             b + ", " + where(e.loc, "operator '" + e.op_spelling() + "'") +
             "); if (unlikely(c->error)) " + on_error() + " " + v + "; })";
    }
    case Op::Shl: return "((s64)((u64)(" + a + ") << ((" + b + ") & 63)))";
    case Op::Shr: return "((s64)((" + a + ") >> ((" + b + ") & 63)))";
    case Op::Add:
    case Op::Sub:
    case Op::Mul: return "((s64)((u64)(" + a + ") " + tok + " (u64)(" + b + ")))";
    default:  // comparisons and bitwise operators
      if (is_comparison(op)) return "((s64)((" + a + ") " + tok + " (" + b + ")))";
      return "((" + a + ") " + tok + " (" + b + "))";
  }
}

std::string stat_op_constant(StatOp op) {
  std::string up = stat_op_name(op);
  for (auto &ch : up) ch = static_cast<char>(toupper(static_cast<unsigned char>(ch)));
  return "XTAP_OP_" + up;
}

std::string BodyEmitter::assign(const Expr &e) {
  const Expr &lhs = *e.arg(0);
  const Expr &rhs = *e.arg(1);
  std::string r = expr(rhs);
  if (e.op == Op::StatAdd) {
    std::string g = global_c_name(*lhs.global);
    if (lhs.kind != ExprKind::Index)
      return "({ s64 _s = " + r + "; xtap_stat_add(" + g + ", _s); _s; })";
    std::string rv = unique("_rv");
    std::string pre = "s64 " + rv + " = " + r + "; ";
    std::string k = keys(lhs, &pre);
    return "({ " + pre + "if (xtap_map_stat_add(c, " + g + ", " + k + ", " + rv + ")) " +
           on_error() + " " + rv + "; })";
  }
  if (lhs.kind == ExprKind::Target) return target_write(lhs, r);
  if (lhs.kind == ExprKind::Index) {
    // The script evaluates the value before the element it is stored into.
    std::string pre;
    std::string m = global_c_name(*lhs.global);
    std::string k = keys(lhs, &pre);
    std::string rv = unique("_rv");
    pre = c_type_of(rhs.type) + rv + " = " + r + "; " + pre;
    return wrap(pre, index_assign(e, m, k, rv));
  }
  return scalar_assign(e, r);
}

std::string BodyEmitter::index_assign(const Expr &e, const std::string &m, const std::string &k,
                                      const std::string &r) {
  const Expr &lhs = *e.arg(0);
  {
    std::string v = unique("_v");
    if (lhs.type == Type::String) {
      if (e.op != Op::Concat)
        return "({ const char *" + v + " = " + r + "; if (xtap_map_set_str(c, " + m + ", " + k +
               ", " + v + ")) " + on_error() + " " + v + "; })";
      std::string kv = unique("_k");
      std::string old = string_temp();
      return "({ const struct xtap_key *" + kv + " = " + k + "; const char *" + v +
             "; xtap_map_get_str(" + m + ", " + kv + ", " + old + "); " + v +
             " = xtap_str_concat(" + string_temp() + ", " + old + ", " + r +
             "); if (xtap_map_set_str(c, " + m + ", " + kv + ", " + v + ")) " + on_error() + " " +
             v + "; })";
    }
    if (e.op == Op::None)
      return "({ s64 " + v + " = " + r + "; if (xtap_map_set_long(c, " + m + ", " + k + ", " + v +
             ")) " + on_error() + " " + v + "; })";
    if (e.op == Op::Add || e.op == Op::Sub)
      return "({ s64 " + v + "; if (xtap_map_add_long(c, " + m + ", " + k + ", " +
             (e.op == Op::Sub ? "(s64)(0ULL - (u64)(" + r + "))" : r) + ", &" + v + ")) " +
             on_error() + " " + v + "; })";
    // Other compound operators: read, combine, store (one key evaluation).
    std::string kv = unique("_k");
    std::string old = unique("_o");
    return "({ const struct xtap_key *" + kv + " = " + k + "; s64 " + old + ", " + v +
           "; xtap_map_get_long(" + m + ", " + kv + ", &" + old + "); " + v + " = " +
           long_op(e, e.op, old, r) + "; if (xtap_map_set_long(c, " + m + ", " + kv + ", " + v +
           ")) " + on_error() + " " + v + "; })";
  }
}

std::string BodyEmitter::scalar_assign(const Expr &e, std::string r) {
  const Expr &lhs = *e.arg(0);
  const Expr &rhs = *e.arg(1);
  std::string lv = var_ref(lhs);
  if (lhs.type == Type::String) {
    if (e.op == Op::Concat) return "((const char *)xtap_str_append(" + lv + ", " + r + "))";
    if (rhs.kind == ExprKind::Var && rhs.global == lhs.global && rhs.local == lhs.local)
      return "((const char *)" + lv + ")";  // x = x
    return "((const char *)xtap_str_copy(" + lv + ", " + r + "))";
  }
  // A value that itself assigns or increments (`x = (x = 5)`, `x += x++`)
  // goes into a temporary first: C leaves two unsequenced stores to one
  // variable undefined (GCC's -Wsequence-point), the script evaluates the
  // value, then stores.
  std::string pre;
  if (has_side_effects(rhs)) {
    std::string rv = unique("_rv");
    pre = "s64 " + rv + " = " + r + "; ";
    r = rv;
  }
  if (e.op == Op::None) return wrap(pre, "(" + lv + " = " + r + ")");
  // The new value is computed in full (a division by zero jumps away first).
  return wrap(pre, "(" + lv + " = " + long_op(e, e.op, lv, r) + ")");
}

std::string BodyEmitter::incdec(const Expr &e) {
  const Expr &t = *e.arg(0);
  int delta = e.op == Op::Add ? 1 : -1;
  if (t.kind == ExprKind::Index) {
    std::string v = unique("_v");
    std::string res = e.postfix ? "(" + v + " - (" + std::to_string(delta) + "))" : v;
    std::string pre;
    std::string k = keys(t, &pre);
    return "({ " + pre + "s64 " + v + "; if (xtap_map_add_long(c, " + global_c_name(*t.global) +
           ", " + k + ", " + std::to_string(delta) + ", &" + v + ")) " + on_error() + " " + res +
           "; })";
  }
  std::string lv = var_ref(t);
  std::string v = unique("_v");
  // Wrapping increment: go through u64 to stay clear of signed overflow.
  return "({ s64 " + v + " = " + lv + "; " + lv + " = (s64)((u64)" + v + " + (u64)(" +
         std::to_string(delta) + "LL)); " + (e.postfix ? v : lv) + "; })";
}

std::string BodyEmitter::function_call(const Expr &e) {
  const FunctionDecl &f = *e.function;
  std::string args = "c";
  if (f.return_type == Type::String) args += ", " + string_temp();
  std::vector<const Expr *> list;
  for (const auto &a : e.args) list.push_back(a.get());
  std::string prelude;
  for (const auto &v : in_order(list, &prelude)) args += ", " + v;
  std::string r = unique("_r");
  return "({ " + prelude + c_type_of(f.return_type) + r + " = " + function_c_name(f) + "(" + args +
         "); if (unlikely(c->error)) " + on_error() + " " + r + "; })";
}

std::string BodyEmitter::call(const Expr &e) {
  if (e.function) return function_call(e);
  const Builtin *b = e.builtin;
  switch (b->kind) {
    case BuiltinKind::Printf: return "(" + format_call(e, false) + ", 0LL)";
    case BuiltinKind::Sprintf: return format_call(e, true);
    case BuiltinKind::Print: return "(" + print_call(e, b->newline) + ", 0LL)";
    case BuiltinKind::Sprint:
      if (std::any_of(e.args.begin(), e.args.end(),
                      [](const ExprPtr &a) { return is_printed_aggregate(*a); }))
        return hist_sprint(e, b->newline);
      return values_call(e, 0, b->newline, true);
    case BuiltinKind::PrintDelimited:
      if (b->result == Type::String) return values_call(e, 1, b->newline, true);
      return "(" + values_call(e, 1, b->newline, false) + ", 0LL)";
    case BuiltinKind::Exit: return "(xtap_request_exit(c), 0LL)";
    case BuiltinKind::Error:
      return "({ xtap_error(c, \"%s\", " + expr(*e.arg(0)) + "); " + on_error() + " 0LL; })";
    case BuiltinKind::Plain: break;
  }
  std::string s;
  for (const char *p = b->c_template; *p; ++p) {
    if (*p == '%' && p[1] == 'T') {
      s += string_temp();
      ++p;
    } else if (*p == '%' && p[1] == 'F') {
      s += on_error();
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
  // Histograms are printed by the runtime; print the rest around them.
  for (const auto &a : e.args)
    if (is_printed_aggregate(*a)) {
      std::string seq = "({ ";
      for (const auto &b : e.args) {
        if (is_printed_aggregate(*b)) seq += histogram(*b) + "; ";
        else if (b->type == Type::String) seq += "xtap_print_str(c, " + expr(*b) + "); ";
        else seq += "xtap_print_long(c, " + expr(*b) + "); ";
      }
      if (newline) seq += "xtap_print_str(c, \"\\n\"); ";
      return seq + "})";
    }
  // All literals: one constant string, no formatting at run time.
  bool literal = true;
  std::string text;
  for (const auto &a : e.args) {
    if (a->kind == ExprKind::String) text += a->text;
    else if (a->kind == ExprKind::Number) text += std::to_string(a->number);
    else literal = false;
  }
  if (literal) return "xtap_print_str(c, " + c_string_literal(text + (newline ? "\n" : "")) + ")";
  return values_call(e, 0, newline, false);
}

// print-like calls: args[from..] as text (printd: separated by args[0]),
// printed or, with to_string, formatted into a string temporary.
std::string BodyEmitter::values_call(const Expr &e, size_t from, bool newline, bool to_string) {
  std::vector<const Expr *> list;
  for (size_t i = 0; i < e.args.size(); ++i) list.push_back(e.arg(i));
  std::string prelude;
  std::vector<std::string> vals = in_order(list, &prelude);
  std::string fmt, args;
  for (size_t i = from; i < vals.size(); ++i) {
    if (i > from && from == 1) {
      if (list[0]->kind == ExprKind::String) {
        for (char ch : list[0]->text) fmt += ch == '%' ? std::string("%%") : std::string(1, ch);
      } else {
        fmt += "%s";
        args += ", " + vals[0];
      }
    }
    if (list[i]->type == Type::String) {
      fmt += "%s";
      args += ", " + vals[i];
    } else {
      fmt += "%lld";
      args += ", (long long)" + vals[i];
    }
  }
  if (newline) fmt += "\n";
  if (to_string)
    return wrap(prelude, "((const char *)xtap_sprintf(" + string_temp() + ", " +
                             c_string_literal(fmt) + args + "))");
  return wrap(prelude, "xtap_printf(c, " + c_string_literal(fmt) + args + ")");
}

namespace {

// The vsnprintf arguments of one conversion (its '*' width and precision
// first), cast to what kernel_format() told vsnprintf to expect.
std::string conversion_args(const FormatPiece &p, const std::vector<std::string> &vals,
                            size_t *next) {
  std::string out;
  auto arg = [&](const char *cast) {
    out += std::string(", ") + cast + "(" + vals[(*next)++] + ")";
  };
  if (p.width == "*") arg("XTAP_FMT_WIDTH");
  // kernel_format() drops a %p precision, so its '*' value is not passed
  // (it was evaluated in order already, where it has side effects).
  if (p.precision == "*" && p.conv == 'p') ++*next;
  else if (p.precision == "*") arg("XTAP_FMT_WIDTH");
  switch (p.conv) {
    case 'd':
    case 'i': arg("(long long)"); break;
    case 'c': arg("(int)"); break;
    case 's': arg("(const char *)"); break;
    default: arg("(unsigned long long)"); break;
  }
  return out;
}

}  // namespace

// printf with %b/%m/%M: vsnprintf for the ordinary runs of the format,
// runtime calls for the raw conversions, in order, on values evaluated
// beforehand (vals: temporaries or constants).
std::string BodyEmitter::raw_format_seq(const Format &f, const std::vector<std::string> &vals) {
  std::string seq;
  size_t next = 0;
  Format run;
  std::string run_args;
  auto flush = [&] {
    if (run.pieces.empty()) return;
    seq += "xtap_printf(c, " + c_string_literal(kernel_format(run)) + run_args + "); ";
    run.pieces.clear();
    run_args.clear();
  };
  for (const auto &p : f.pieces) {
    if (p.literal) {
      run.pieces.push_back(p);
      continue;
    }
    if (p.conv == 'b' || p.conv == 'm' || p.conv == 'M') {
      flush();
      std::string width = p.width == "*" ? "XTAP_FMT_WIDTH(" + vals[next++] + ")" : p.width;
      std::string prec = p.precision == "*" ? "XTAP_FMT_WIDTH(" + vals[next++] + ")" : p.precision;
      const std::string &v = vals[next++];
      if (p.conv == 'b')
        seq += "xtap_print_binary_field(c, " + v + ", " + (width.empty() ? "-1" : width) + ", " +
               (p.has_precision ? (prec.empty() ? "0" : prec) : "-1") + ", " +
               (p.flags.find('-') != std::string::npos ? "1" : "0") + "); ";
      else
        seq += "if (xtap_print_memory(c, " + v + ", " + (prec.empty() ? "1" : prec) + ", " +
               (p.conv == 'M' ? "1" : "0") + ")) " + on_error() + " ";
      continue;
    }
    run.pieces.push_back(p);
    run_args += conversion_args(p, vals, &next);
  }
  flush();
  return seq;
}

// The text path of printf and sprintf: the kernel's vsnprintf.
std::string BodyEmitter::text_format(const Format &f, const std::vector<std::string> &vals,
                                     bool to_string) {
  std::string args;
  size_t next = 0;
  for (const auto &p : f.pieces)
    if (!p.literal) args += conversion_args(p, vals, &next);
  std::string kf = c_string_literal(kernel_format(f));
  if (to_string) return "((const char *)xtap_sprintf(" + string_temp() + ", " + kf + args + "))";
  return "xtap_printf(c, " + kf + args + ")";
}

std::string BodyEmitter::format_call(const Expr &e, bool to_string) {
  Format f = parse_format(e.arg(0)->text);
  std::vector<const Expr *> list;
  for (size_t i = 1; i < e.args.size(); ++i) list.push_back(e.arg(i));
  std::string prelude;
  std::vector<std::string> vals = in_order(list, &prelude);
  if (!to_string && e.format > 0) {
    // Pass 2 gave the format an id: the values go to the runner raw when it
    // formats records (xtap_binary_output), else (an older runner, or an
    // item larger than the print buffer) through the text path below, on
    // the same values.
    std::string v = unique("_v"), init, kinds = f.arg_kinds();
    std::vector<std::string> staged;
    for (size_t i = 0; i < vals.size(); ++i) {
      bool str = list[i]->type == Type::String;
      init +=
          std::string(i ? ", " : "") + (str ? "(u64)(unsigned long)(" : "(u64)(") + vals[i] + ")";
      staged.push_back(str ? "(const char *)(unsigned long)" + v + "[" + std::to_string(i) + "]"
                           : "(s64)" + v + "[" + std::to_string(i) + "]");
    }
    std::string text = f.has_raw_conversions() ? "({ " + raw_format_seq(f, staged) + "})"
                                               : text_format(f, staged, false);
    return "({ " + prelude + "const u64 " + v + "[" +
           std::to_string(std::max<size_t>(vals.size(), 1)) + "] = { " +
           (init.empty() ? "0" : init) + " }; if (!(xtap_binary_output && xtap_bprintf(c, " +
           std::to_string(e.format) + ", " + c_string_literal(kinds) + ", " + v + "))) " + text +
           "; })";
  }
  if (f.has_raw_conversions()) {
    // Arguments are consumed in order, so evaluate them all first.
    for (size_t i = 0; i < vals.size(); ++i) {
      if (vals[i].rfind("_a", 0) == 0) continue;
      std::string t = unique("_a");
      prelude += c_type_of(list[i]->type) + t + " = " + vals[i] + "; ";
      vals[i] = t;
    }
    return "({ " + prelude + raw_format_seq(f, vals) + "})";
  }
  return wrap(prelude, text_format(f, vals, to_string));
}

}  // namespace xtap
