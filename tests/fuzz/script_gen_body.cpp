// The generator's statements and expressions (script_gen_impl.h): each
// expression is written for a type, from the variables, arrays,
// statistics, functions and context variables in scope.
#include <algorithm>

#include "script_gen_impl.h"

namespace xtap::fuzz {
namespace {

std::string pad(int indent) { return std::string(2 * indent, ' '); }

}  // namespace

bool Gen::walked(const std::string &a) const {
  return std::find(body.walked.begin(), body.walked.end(), a) != body.walked.end();
}

std::string Gen::new_local(Ty t) {
  std::string n = "l" + std::to_string(body.counter++);
  body.locals.push_back({n, t});
  return n;
}

// A variable of type t: a local, or a global scalar; "" when none fits.
std::string Gen::var_of(Ty t, bool writable) {
  std::vector<std::string> c;
  for (const auto &v : body.locals)
    if (v.ty == t) c.push_back(v.name);
  for (const auto &v : gscalars)
    if (v.ty == t) c.push_back(v.name);
  (void)writable;
  return c.empty() ? "" : c[rng.below(c.size())];
}

std::string Gen::stmts(int indent, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    // `f()` newline `--x` reads as `f()--`: a `;` ends the one before.
    std::string t = stmt(indent, indent);
    if (t.rfind("--", 0) == 0 || t.rfind("++", 0) == 0) t = "; " + t;
    s += pad(indent) + t + "\n";
  }
  return s;
}

std::string Gen::stmt(int indent, int depth) {
  bool deep = depth >= 4;
  switch (rng.below(deep ? 6 : 16)) {
    case 0:
    case 1: return assign_stmt();
    case 2: return array_write();
    case 3: return stat_write();
    case 4: return print_stmt();
    case 5: {
      // A call for its effect, or an empty statement.
      if (!funcs.empty() && rng.chance(60)) return call(rng.chance(50) ? Ty::Long : Ty::Str, 1);
      return rng.chance(50) ? ";" : "{ }";
    }
    case 6:
    case 7: {
      std::string s = "if (" + expr(Ty::Long, 1) + ") {\n" + stmts(indent + 1, 1 + rng.below(3)) +
                      pad(indent) + "}";
      if (rng.chance(40))
        s += " else {\n" + stmts(indent + 1, 1 + rng.below(2)) + pad(indent) + "}";
      return s;
    }
    case 8: return loop_stmt(indent, depth);
    case 9: {
      if (arrays.empty()) return print_stmt();
      return foreach_stmt(arrays[rng.below(arrays.size())], indent, false);
    }
    case 10: {
      if (stats.empty()) return stat_write();
      return stat_foreach(stats[rng.below(stats.size())], indent);
    }
    case 11: return delete_stmt();
    case 12: return try_stmt(indent, depth);
    case 13: {
      // Leaving early: next in a probe, return in a function, break and
      // continue in a loop (always under a condition: no dead code after).
      std::string c = "if (" + expr(Ty::Long, 2) + ") ";
      if (body.loop_depth && rng.chance(60)) return c + (rng.chance(50) ? "break" : "continue");
      if (body.in_function) return c + "return " + expr(body.ret, 2);
      return c + (rng.chance(90) ? "next" : "exit()");
    }
    case 14: {
      // Autocast through a local, @cast of a pointer (tracepoints with a task).
      if (body.point.ctx == Ctx::SchedSwitch && !body.in_function) {
        std::string l = "t" + std::to_string(body.counter++);
        if (rng.chance(50))
          return l + " = $next; printf(\"%d %d\\n\", " + l + "->pid, " + l + "->se->vruntime)";
        return "println(@cast($prev, \"task_struct\")->tgid + @cast($next, \"struct "
               "task_struct\")->prio)";
      }
      return assign_stmt();
    }
    default: return printf_call(false);
  }
}

std::string Gen::assign_stmt() {
  Ty t = rng.chance(60) ? Ty::Long : Ty::Str;
  std::string v = rng.chance(40) ? "" : var_of(t, true);
  if (v.empty()) {
    std::string e = expr(t, 0);
    return new_local(t) + " = " + e;
  }
  if (t == Ty::Str) return v + (rng.chance(50) ? " .= " : " = ") + expr(t, 1);
  static const char *ops[] = {" = ", " += ", " -= ", " *= ", " |= ", " &= ", " ^= ", " <<= "};
  switch (rng.below(4)) {
    case 0: return v + "++";
    case 1: return "--" + v;
    case 2: return v + " /= (" + expr(Ty::Long, 2) + " | 1)";
    default: return v + ops[rng.below(std::size(ops))] + expr(Ty::Long, 1);
  }
}

std::string Gen::keys_of(const std::vector<Ty> &keys, int depth) {
  std::string s;
  for (size_t i = 0; i < keys.size(); ++i) s += (i ? ", " : "") + expr(keys[i], depth);
  return s;
}

std::string Gen::array_write() {
  std::vector<const Arr *> c;
  for (const auto &a : arrays)
    if (!walked(a.name)) c.push_back(&a);
  if (c.empty()) return assign_stmt();
  const Arr &a = *c[rng.below(c.size())];
  std::string lhs = a.name + "[" + keys_of(a.keys, 2) + "]";
  if (a.val == Ty::Str) return lhs + (rng.chance(70) ? " = " : " .= ") + expr(Ty::Str, 2);
  switch (rng.below(3)) {
    case 0: return lhs + "++";
    case 1: return lhs + " += " + expr(Ty::Long, 2);
    default: return lhs + " = " + expr(Ty::Long, 2);
  }
}

std::string Gen::stat_ref(const Stat &s, int depth) {
  if (!s.keys) return s.name;
  return s.name + "[" + keys_of(std::vector<Ty>(s.keys, Ty::Long), depth) + "]";
}

std::string Gen::stat_write() {
  std::vector<const Stat *> c;
  for (const auto &s : stats)
    if (!walked(s.name)) c.push_back(&s);
  if (c.empty()) return print_stmt();
  const Stat &s = *c[rng.below(c.size())];
  return stat_ref(s, 2) + " <<< " + expr(Ty::Long, 1);
}

std::string Gen::print_stmt() {
  int n = 1 + rng.below(3);
  std::string args;
  for (int i = 0; i < n; ++i)
    args += (i ? ", " : "") + expr(rng.chance(50) ? Ty::Long : Ty::Str, 1);
  switch (rng.below(4)) {
    case 0: return "print(" + args + ")";
    case 1: return "println(" + args + ")";
    case 2: return "printd(\"|\", " + args + ", 0)";
    default: return "printdln(" + str_lit() + ", " + args + ", \"\")";
  }
}

// printf or sprintf with every conversion, flag, width and precision form.
std::string Gen::printf_call(bool to_string) {
  static const char *long_convs[] = {"d", "i", "u", "x", "X", "o", "c", "p", "b", "ld", "lld"};
  static const char *flags[] = {"", "", "-", "+", " ", "0", "#", "-0", "+ "};
  std::string fmt, args;
  int n = rng.below(5);
  for (int i = 0; i < n; ++i) {
    bool str = rng.chance(35);
    fmt += rng.chance(30) ? "x=" : " ";
    fmt += "%";
    fmt += flags[rng.below(std::size(flags))];
    // '0' with a width from an argument and a precision: GCC warns, and
    // the kernel's output cannot be kept without the width (docs/safety.md).
    bool zero = fmt.back() == '0' || fmt[fmt.size() - 2] == '0';
    if (rng.chance(10) && !zero) {
      fmt += "*";
      args += ", " + expr(Ty::Long, 2) + " & 31";
    } else if (rng.chance(40)) {
      fmt += std::to_string(rng.below(20));
    }
    if (rng.chance(25)) fmt += "." + std::to_string(rng.below(10));
    if (str) {
      fmt += "s";
      args += ", " + expr(Ty::Str, 1);
    } else {
      const char *conv = long_convs[rng.below(std::size(long_convs))];
      // %b writes binary: keep it rare, never in sprintf, and its width is
      // a byte count of 1, 2, 4 or 8.
      if (std::string(conv) == "b") {
        if (to_string || rng.chance(70) ||
            fmt.substr(fmt.rfind('%')).find('*') != std::string::npos)
          conv = "d";
        else {
          while (!fmt.empty() && fmt.back() != '%') fmt.pop_back();
          fmt += std::to_string(1 << rng.below(4));
        }
      }
      fmt += conv;
      args += ", " + expr(Ty::Long, 1);
    }
  }
  if (rng.chance(20)) fmt += "%%";
  return std::string(to_string ? "sprintf" : "printf") + "(\"" + fmt + "\\n\"" + args + ")";
}

// foreach in its forms: bare key or [keys], a value variable, sorting by
// value or by one key, limit, and a slice [k, *] of the array.
std::string Gen::foreach_stmt(const Arr &a, int indent, bool dump) {
  std::vector<std::string> ks;
  std::vector<Ty> kt = a.keys;
  for (Ty t : kt) ks.push_back(new_local(t));
  std::string val = rng.chance(30) ? new_local(a.val) : "";
  int sort_key = rng.chance(25) ? static_cast<int>(rng.below(ks.size())) : -1;
  std::string head;
  if (!val.empty()) head += val + " = ";
  if (ks.size() == 1 && sort_key < 0 && rng.chance(50)) {
    head += ks[0];
  } else {
    head += "[";
    for (size_t i = 0; i < ks.size(); ++i)
      head += (i ? ", " : "") + ks[i] + (static_cast<int>(i) == sort_key ? "+" : "");
    head += "]";
  }
  std::string arr = a.name;
  if (kt.size() > 1 && rng.chance(25)) {
    arr += "[" + expr(kt[0], 2);
    for (size_t i = 1; i < kt.size(); ++i) arr += ", *";
    arr += "]";
  }
  if (sort_key < 0 && rng.chance(30)) arr += rng.chance(50) ? "+" : "-";
  std::string limit = rng.chance(20) ? " limit " + std::to_string(1 + rng.below(10)) : "";
  std::string s = "foreach (" + head + " in " + arr + limit + ") {\n";
  std::string value = val.empty() ? a.name + "[" : val;
  if (val.empty()) {
    for (size_t i = 0; i < ks.size(); ++i) value += (i ? ", " : "") + ks[i];
    value += "]";
  }
  s += pad(indent + 1) + "printf(\"";
  for (Ty t : kt) s += t == Ty::Long ? "%d " : "%s ";
  s += std::string(a.val == Ty::Long ? "%d" : "%s") + "\\n\"";
  for (const auto &k : ks) s += ", " + k;
  s += ", " + value + ")\n";
  if (!dump) {
    body.walked.push_back(a.name);
    ++body.loop_depth;
    s += stmts(indent + 1, rng.below(3));
    --body.loop_depth;
    body.walked.pop_back();
  }
  return s + pad(indent) + "}\n";
}

// foreach over an array of statistics, sorted by an aggregate.
std::string Gen::stat_foreach(const Stat &s, int indent) {
  if (!s.keys) return "if (@count(" + s.name + ")) printf(\"%d\\n\", @sum(" + s.name + "))";
  static const char *aggs[] = {"@count", "@sum", "@min", "@max", "@avg"};
  std::vector<std::string> ks;
  for (unsigned i = 0; i < s.keys; ++i) ks.push_back(new_local(Ty::Long));
  std::string head = "[";
  for (size_t i = 0; i < ks.size(); ++i) head += (i ? ", " : "") + ks[i];
  head += "]";
  std::string sort = rng.chance(60) ? std::string(" ") + aggs[rng.below(std::size(aggs))] +
                                          (rng.chance(50) ? "+" : "-")
                                    : "";
  std::string limit = rng.chance(30) ? " limit " + std::to_string(1 + rng.below(5)) : "";
  std::string ref = s.name + head;
  std::string out = "foreach (" + head + " in " + s.name + sort + limit + ") {\n";
  out += pad(indent + 1) + "printf(\"%d %d %d\\n\", @count(" + ref + "), @sum(" + ref + "), @max(" +
         ref + "))\n";
  body.walked.push_back(s.name);
  ++body.loop_depth;
  out += stmts(indent + 1, rng.below(2));
  --body.loop_depth;
  body.walked.pop_back();
  return out + pad(indent) + "}";
}

// The end probe's dump of a statistic: every printing operator.
std::string Gen::stat_dump(const Stat &s) {
  if (s.keys) return stat_foreach(s, 1) + "\n";
  std::string n = s.name;
  std::string hist = s.linear ? "@hist_linear(" + n + ", " + std::to_string(s.lo) + ", " +
                                    std::to_string(s.hi) + ", " + std::to_string(s.step) + ")"
                              : "@hist_log(" + n + ")";
  return "if (@count(" + n + ")) {\n    print(" + hist + ")\n    print(@quantiles(" + n +
         "))\n    printf(\"%d %d %d %d %d %d\\n\", @min(" + n + "), @max(" + n + "), @avg(" + n +
         "), @variance(" + n + "), @median(" + n + "), @percentile(" + n + ", 999, 1000))\n  }\n";
}

std::string Gen::delete_stmt() {
  std::vector<const Arr *> c;
  for (const auto &a : arrays)
    if (!walked(a.name)) c.push_back(&a);
  if (c.empty()) return print_stmt();
  const Arr &a = *c[rng.below(c.size())];
  switch (rng.below(3)) {
    case 0: return "delete " + a.name;
    case 1: return "delete " + a.name + "[" + keys_of(a.keys, 2) + "]";
    default: {
      std::string s = "delete " + a.name + "[" + expr(a.keys[0], 2);
      for (size_t i = 1; i < a.keys.size(); ++i) s += ", *";
      return s + "]";
    }
  }
}

std::string Gen::try_stmt(int indent, int depth) {
  ++body.try_depth;
  std::string s = "try {\n" + stmts(indent + 1, 1 + rng.below(2));
  if (rng.chance(50))
    s += pad(indent + 1) + "if (" + expr(Ty::Long, 2) + ") error(" + str_expr(2) + ")\n";
  --body.try_depth;
  s += pad(indent) + "} catch";
  if (rng.chance(60)) {
    std::string m = new_local(Ty::Str);
    s += " (" + m + ") {\n" + pad(indent + 1) + "println(" + m + ")\n";
  } else {
    s += " {\n";
  }
  (void)depth;
  return s + pad(indent) + "}";
}

// Bounded loops: a fresh counter, so that the loop always ends.
std::string Gen::loop_stmt(int indent, int depth) {
  std::string i = new_local(Ty::Long);
  std::string n = std::to_string(1 + rng.below(5));
  ++body.loop_depth;
  std::string inner = stmts(indent + 1, 1 + rng.below(2));
  --body.loop_depth;
  (void)depth;
  if (rng.chance(50))
    return "for (" + i + " = 0; " + i + " < " + n + "; " + i + "++) {\n" + inner + pad(indent) +
           "}";
  return i + " = 0\n" + pad(indent) + "while (" + i + "++ < " + n + ") {\n" + inner + pad(indent) +
         "}";
}

std::string Gen::expr(Ty t, int depth) {
  return t == Ty::Long ? long_expr(depth) : str_expr(depth);
}

std::string Gen::long_expr(int depth) {
  if (depth >= 3) {
    std::string v = rng.chance(50) ? var_of(Ty::Long, false) : "";
    return v.empty() ? long_lit() : v;
  }
  static const char *binops[] = {"+", "-",  "*",  "&",  "|",  "^",  "<",
                                 ">", "<=", ">=", "==", "!=", "&&", "||"};
  int d = depth + 1;
  switch (rng.below(18)) {
    case 0:
    case 1: return long_lit();
    case 2:
    case 3: {
      std::string v = var_of(Ty::Long, false);
      return v.empty() ? long_lit() : v;
    }
    case 4:
    case 5:
      return "(" + long_expr(d) + " " + binops[rng.below(std::size(binops))] + " " + long_expr(d) +
             ")";
    case 6:
      return "(" + long_expr(d) + (rng.chance(50) ? " / " : " % ") + "(" + long_expr(d) + " | 1))";
    case 7: return "(" + long_expr(d) + (rng.chance(50) ? " << " : " >> ") + long_expr(d) + ")";
    case 8: return std::string(rng.chance(50) ? "- " : rng.chance(50) ? "!" : "~") + long_expr(d);
    case 9: return "(" + long_expr(d) + " ? " + long_expr(d) + " : " + long_expr(d) + ")";
    case 10: {
      static const char *cmp[] = {"==", "!=", "<", ">", "<=", ">="};
      return "(" + str_expr(d) + " " + cmp[rng.below(std::size(cmp))] + " " + str_expr(d) + ")";
    }
    case 11: {
      for (const auto &a : arrays)
        if (a.val == Ty::Long && rng.chance(50)) return a.name + "[" + keys_of(a.keys, d) + "]";
      if (arrays.empty()) return long_lit();
      const Arr &a = arrays[rng.below(arrays.size())];
      if (a.keys.size() > 1 && rng.chance(30)) {
        std::string s = "([" + expr(a.keys[0], d);
        for (size_t i = 1; i < a.keys.size(); ++i) s += ", *";
        return s + "] in " + a.name + ")";
      }
      return "([" + keys_of(a.keys, d) + "] in " + a.name + ")";
    }
    case 12: return stat_op(d);
    case 13: return call(Ty::Long, d);
    case 14: {
      auto vars = context_vars();
      std::vector<std::string> c;
      for (const auto &[e, ty] : vars)
        if (ty == Ty::Long) c.push_back(e);
      return c.empty() ? long_lit() : "(" + c[rng.below(c.size())] + ")";
    }
    case 15: {
      std::string v;
      for (const auto &l : body.locals)
        if (l.ty == Ty::Long && rng.chance(50)) v = l.name;
      if (v.empty()) return long_lit();
      return rng.chance(50) ? "(" + v + " = " + long_expr(d) + ")"
                            : v + (rng.chance(50) ? "++" : "--");
    }
    case 16: return opts.tapsets ? tapset_call(Ty::Long, d) : long_lit();
    default:
      return "@defined(" +
             (rng.chance(50) ? std::string("$nosuch") : std::to_string(rng.below(100))) + ")";
  }
}

std::string Gen::str_expr(int depth) {
  if (depth >= 3) {
    std::string v = rng.chance(50) ? var_of(Ty::Str, false) : "";
    return v.empty() ? str_lit() : v;
  }
  int d = depth + 1;
  switch (rng.below(11)) {
    case 0:
    case 1: return str_lit();
    case 2:
    case 3: {
      std::string v = var_of(Ty::Str, false);
      return v.empty() ? str_lit() : v;
    }
    case 4: return "(" + str_expr(d) + " . " + str_expr(d) + ")";
    case 5: return "(" + long_expr(d) + " ? " + str_expr(d) + " : " + str_expr(d) + ")";
    case 6: {
      for (const auto &a : arrays)
        if (a.val == Ty::Str) return a.name + "[" + keys_of(a.keys, d) + "]";
      return str_lit();
    }
    case 7:
      return rng.chance(60) ? printf_call(true)
                            : "sprint(" + expr(rng.chance(50) ? Ty::Long : Ty::Str, d) + ")";
    case 8: return call(Ty::Str, d);
    case 9: {
      auto vars = context_vars();
      std::vector<std::string> c;
      for (const auto &[e, ty] : vars)
        if (ty == Ty::Str) c.push_back(e);
      return c.empty() ? str_lit() : c[rng.below(c.size())];
    }
    default:
      return opts.tapsets ? tapset_call(Ty::Str, d)
                          : "sprintd(\",\", " + long_expr(d) + ", " + str_expr(d) + ")";
  }
}

std::string Gen::stat_op(int depth) {
  if (stats.empty()) return long_lit();
  const Stat &s = stats[rng.below(stats.size())];
  std::string r = stat_ref(s, depth);
  switch (rng.below(11)) {
    default: return "@count(" + r + ")";
    case 1: return "@sum(" + r + ")";
    case 2: return "@min(" + r + ")";
    case 3: return "@max(" + r + ")";
    case 4: return "@avg(" + r + ")";
    case 5: return "@variance(" + r + ")";
    case 6: return "@median(" + r + ")";
    case 7: return "@percentile(" + r + ", " + std::to_string(rng.below(101)) + ")";
    case 8: return "@percentile(" + r + ", 999, 1000)";
    case 9:
    case 10:
      if (!s.linear) return "@hist_log(" + r + ")[" + std::to_string(rng.below(64)) + "]";
      return "@hist_linear(" + r + ", " + std::to_string(s.lo) + ", " + std::to_string(s.hi) +
             ", " + std::to_string(s.step) + ")[" + std::to_string(rng.below(20)) + "]";
  }
}

// A call of one of the script's functions returning t.
std::string Gen::call(Ty t, int depth) {
  std::vector<const Func *> c;
  for (const auto &f : funcs)
    if (f.ret == t) c.push_back(&f);
  if (c.empty() || depth >= 3) return t == Ty::Long ? long_lit() : str_lit();
  const Func &f = *c[rng.below(c.size())];
  std::string s = f.name + "(";
  for (size_t i = 0; i < f.params.size(); ++i) s += (i ? ", " : "") + expr(f.params[i], depth + 1);
  return s + ")";
}

// The tapsets' functions, with their types (tapsets/*.stp).
std::string Gen::tapset_call(Ty t, int depth) {
  if (t == Ty::Long) {
    switch (rng.below(7)) {
      case 0: return "strlen(" + str_expr(depth) + ")";
      case 1: return "pid()";
      case 2: return "cpu()";
      case 3: return "gettimeofday_ns()";
      case 4: return "isinstr(" + str_expr(depth) + ", " + str_expr(depth) + ")";
      case 5: return "strtol(" + str_expr(depth) + ", 10)";
      default: return "tid()";
    }
  }
  switch (rng.below(4)) {
    case 0:
      return "substr(" + str_expr(depth) + ", " + long_expr(depth) + ", " + long_expr(depth) + ")";
    case 1: return "execname()";
    case 2: return "pp()";
    default: return "text_str(" + str_expr(depth) + ")";
  }
}

}  // namespace xtap::fuzz
