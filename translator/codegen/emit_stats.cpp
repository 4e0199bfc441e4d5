// Pass 3: statistics: aggregates, histograms printed or put in strings,
// their buckets read, tested with `in` and iterated with foreach.
#include "codegen/body_emitter.h"

namespace xtap {

// @count(s), @sum(a[k]) ...: one aggregate of a statistic.
std::string BodyEmitter::aggregate(const Expr &e) {
  if (e.stat == StatOp::Percentile || e.stat == StatOp::Median) return percentile(e);
  const Expr &st = *e.arg(0);
  std::string v = unique("_v");
  std::string g = global_c_name(*st.global);
  if (st.kind == ExprKind::Index) {
    std::string pre;
    std::string k = keys(st, &pre);
    return "({ " + pre + "s64 " + v + "; if (xtap_map_stat_get(c, " + g + ", " + k + ", " +
           stat_op_constant(e.stat) + ", &" + v + ")) " + on_error() + " " + v + "; })";
  }
  return "({ s64 " + v + "; if (xtap_stat_get(c, " + g + ", " + stat_op_constant(e.stat) + ", &" +
         v + ")) " + on_error() + " " + v + "; })";
}

// @percentile(s, P[, D]), @median(s): P and D first, then the keys, in the
// order written.
std::string BodyEmitter::percentile(const Expr &e) {
  std::string p = unique("_p"), d = unique("_d"), v = unique("_v");
  std::string pre = "s64 " + p + " = " + (e.stat == StatOp::Median ? "50" : expr(*e.arg(1))) +
                    "; s64 " + d + " = " + (e.args.size() > 2 ? expr(*e.arg(2)) : "100") +
                    "; s64 " + v + "; ";
  std::string call = hist_call(e, "stat_pct", "", ", " + p + ", " + d + ", &" + v, &pre);
  return "({ " + pre + "if (" + call + ") " + on_error() + " " + v + "; })";
}

// print(@hist_log(s)), print(@quantiles(s)) and friends: the runtime prints
// the histogram or the quantiles' line.
std::string BodyEmitter::histogram(const Expr &e) {
  const Expr &st = *e.arg(0);
  std::string g = global_c_name(*st.global);
  std::string what = e.stat == StatOp::Quantiles ? "quantiles" : "hist";
  if (st.kind == ExprKind::Index) {
    std::string pre;
    std::string k = keys(st, &pre);
    return wrap(pre, "xtap_map_stat_print_" + what + "(c, " + g + ", " + k + ")");
  }
  return "xtap_stat_print_" + what + "(c, " + g + ")";
}

// A runtime call on the histogram `h` (an Aggregate): `fn(c, ARGS, g[, k], REST)`,
// the map's variant (`xtap_map_` + fn) for an element of a statistic array.
std::string BodyEmitter::hist_call(const Expr &h, const std::string &fn, const std::string &args,
                                   const std::string &rest, std::string *prelude) {
  const Expr &st = *h.arg(0);
  std::string g = global_c_name(*st.global);
  std::string lead = args.empty() ? "c, " : "c, " + args + ", ";
  if (st.kind != ExprKind::Index) return "xtap_" + fn + "(" + lead + g + rest + ")";
  std::string k = keys(st, prelude);
  return "xtap_map_" + fn + "(" + lead + g + ", " + k + rest + ")";
}

// @hist_log(s)[i]: bucket i's count (stap: an error on an empty statistic
// or past the buckets); `i in @hist_log(s)`: whether it is not 0.
std::string BodyEmitter::hist_bucket(const Expr &e) {
  std::string i = unique("_b"), v = unique("_v");
  // The bucket number first, then the statistic's keys, in the order written.
  std::string pre = "s64 " + i + " = " + expr(*e.arg(1)) + "; s64 " + v + "; ";
  std::string call = hist_call(*e.arg(0), "stat_bucket", "", ", " + i + ", &" + v, &pre);
  std::string result = e.text == "in" ? "(s64)(" + v + " != 0)" : v;
  return "({ " + pre + "if (" + call + ") " + on_error() + " " + result + "; })";
}

// sprint(@hist_log(s)), sprintln("x", @hist_linear(a[k], 0, 100, 10)): the
// values' text appended one after the other to a string temporary.
std::string BodyEmitter::hist_sprint(const Expr &e, bool newline) {
  std::string t = string_temp();
  std::string seq = "({ " + t + "[0] = '\\0'; ";
  for (const auto &a : e.args) {
    if (is_printed_aggregate(*a)) {
      std::string pre;
      std::string fn = a->stat == StatOp::Quantiles ? "stat_sprint_quantiles" : "stat_sprint_hist";
      std::string call = hist_call(*a, fn, t, "", &pre);
      seq += "{ " + pre + "if (" + call + ") " + on_error() + " } ";
    } else if (a->type == Type::String) {
      seq += "xtap_str_append(" + t + ", " + expr(*a) + "); ";
    } else {
      seq +=
          "xtap_str_append(" + t + ", xtap_long_to_str(" + string_temp() + ", " + expr(*a) + ")); ";
    }
  }
  if (newline) seq += "xtap_str_append(" + t + ", \"\\n\"); ";
  return seq + "(const char *)" + t + "; })";
}

// foreach ([i] in @hist_log(s)), foreach (v = [i] in @hist_linear(a[k], ...)
// limit n): every bucket in order, as stap, whatever the sort mark; an empty
// statistic's buckets count 0. The keys of a[k] are evaluated once; each
// count is read when its turn comes, so the body sees its own additions.
void BodyEmitter::foreach_histogram(const Stmt &s) {
  const Expr &h = *s.expr;
  const Expr &st = *h.arg(0);
  std::string g = global_c_name(*st.global);
  std::string n = unique("_n"), b = unique("_i"), left = unique("_left");
  w_.open("{");
  std::string map_keys = st.kind == ExprKind::Index ? ", " + foreach_slice(st) : "";
  std::string variant = map_keys.empty() ? "xtap_stat_" : "xtap_map_stat_";
  if (s.foreach->limit) w_.line("s64 " + left + " = " + expr(*s.foreach->limit) + ";");
  w_.line("u32 " + n + " = " + variant + "buckets(" + g + "), " + b + ";");
  w_.open("for (" + b + " = 0; " + b + " < " + n + "; " + b + "++) {");
  if (s.foreach->limit)
    w_.line("if (" + left + "-- <= 0)\n" + std::string(w_.indent() + 1, '\t') + "break;");
  w_.line("f->l_" + s.foreach->vars[0]->name + " = " + b + ";");
  if (const LocalVar *v = s.foreach->value_var)
    w_.line("f->l_" + v->name + " = " + variant + "bucket_count(" + g + map_keys + ", " + b + ");");
  w_.line("XTAP_ACTIONS(c, 1, out);");
  stmt(*s.body[0]);
  w_.close();
  w_.close();
}

}  // namespace xtap
