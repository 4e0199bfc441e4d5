// Pass 2, collect_tables: the tables the module carries for its
// expressions. Each `=~`/`!~` pattern is checked with the runtime's own
// regex compiler (regex/regex_check.h) and gets its index in
// Script::regexes (Expr::regex); each printf whose format the runner can
// format from binary records (no %m/%M, arguments as the format asks)
// gets its 1-based index in Script::formats (Expr::format). Equal
// patterns and formats share an entry. Runs after infer_types, which
// reported bad formats and argument counts; numbered in the order of the
// script's functions, then its probes, each expression after its operands.
#include <algorithm>

#include "builtins/builtins.h"
#include "format/format.h"
#include "passes/passes.h"
#include "regex/regex_check.h"

namespace xtap {
namespace {

class TableCollector {
 public:
  TableCollector(Script &s, Diagnostics &d) : script_(s), diags_(d) {}

  void run() {
    for (auto &f : script_.functions)
      if (f->body) stmt(*f->body);
    for (auto &p : script_.probes) {
      if (p->condition) expr(*p->condition);
      if (p->body) stmt(*p->body);
    }
  }

 private:
  void stmt(Stmt &s) {
    // init before expr: patterns and formats are numbered in this order.
    Expr *limit = s.foreach ? s.foreach->limit.get() : nullptr;
    for (Expr *e : {s.init.get(), s.expr.get(), s.step.get(), limit})
      if (e) expr(*e);
    for (auto &b : s.body) stmt(*b);
  }

  void expr(Expr &e) {
    for (auto &a : e.args) expr(*a);
    if ((e.op == Op::Match || e.op == Op::NoMatch) && e.kind == ExprKind::Binary &&
        e.arg(1)->kind == ExprKind::String)
      regex(e);
    if (e.kind == ExprKind::Call && !e.function && e.builtin &&
        e.builtin->kind == BuiltinKind::Printf)
      format(e);
  }

  void regex(Expr &e) {
    const std::string &pattern = e.arg(1)->text;
    size_t at = 0;
    std::string err = check_regex(pattern, &at);
    if (!err.empty()) {
      Location loc = e.arg(1)->loc;
      loc.column += static_cast<int>(at) + 1;  // past the opening quote (escapes aside)
      loc.length = 1;
      diags_.error("XTP2318", loc, "bad regular expression: " + err);
      return;
    }
    e.regex = index_of(script_.regexes, pattern);
  }

  // A printf whose arguments match its format, which has no %m/%M.
  void format(Expr &e) {
    if (e.args.empty() || e.arg(0)->kind != ExprKind::String) return;
    Format f = parse_format(e.arg(0)->text);
    if (!f.error.empty() || f.has_memory_conversions()) return;
    if (e.args.size() - 1 != f.arg_count()) return;
    e.format = index_of(script_.formats, e.arg(0)->text) + 1;
  }

  static int index_of(std::vector<std::string> &table, const std::string &s) {
    auto it = std::find(table.begin(), table.end(), s);
    if (it == table.end()) it = table.insert(it, s);
    return static_cast<int>(it - table.begin());
  }

  Script &script_;
  Diagnostics &diags_;
};

}  // namespace

void collect_tables(Script &s, Diagnostics &diags) { TableCollector(s, diags).run(); }

}  // namespace xtap
