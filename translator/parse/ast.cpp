#include "parse/ast.h"

#include <iterator>

namespace xtap {

const char *type_name(Type t) {
  switch (t) {
    case Type::Long: return "long";
    case Type::String: return "string";
    case Type::Stat: return "stats";
    case Type::Unknown: break;
  }
  return "unknown";
}

const char *op_token(Op op) {
  switch (op) {
    case Op::None: return "";
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Mod: return "%";
    case Op::Shl: return "<<";
    case Op::Shr: return ">>";
    case Op::BitAnd: return "&";
    case Op::BitOr: return "|";
    case Op::BitXor: return "^";
    case Op::Concat: return ".";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::Match: return "=~";
    case Op::NoMatch: return "!~";
    case Op::And: return "&&";
    case Op::Or: return "||";
    case Op::Neg: return "-";
    case Op::Plus: return "+";
    case Op::Not: return "!";
    case Op::BitNot: return "~";
    case Op::StatAdd: return "<<<";
  }
  return "";
}

bool is_histogram(const Expr &e) {
  return e.kind == ExprKind::Aggregate &&
         (e.stat == StatOp::HistLog || e.stat == StatOp::HistLinear);
}

namespace {
const char *const kStatOpNames[] = {"count",      "sum",      "min",         "max",
                                    "avg",        "variance", "hist_linear", "hist_log",
                                    "percentile", "median",   "quantiles"};
}  // namespace

const char *stat_op_name(StatOp op) { return kStatOpNames[static_cast<int>(op)]; }

bool stat_op_of(const std::string &name, StatOp *op) {
  for (size_t i = 0; i < std::size(kStatOpNames); ++i)
    if (name == kStatOpNames[i]) {
      *op = static_cast<StatOp>(i);
      return true;
    }
  return false;
}

bool stat_op_sorts(StatOp op) {
  return op == StatOp::Count || op == StatOp::Sum || op == StatOp::Min || op == StatOp::Max ||
         op == StatOp::Avg;
}

bool is_printed_aggregate(const Expr &e) {
  return is_histogram(e) || (e.kind == ExprKind::Aggregate && e.stat == StatOp::Quantiles);
}

bool is_percentile(const Expr &e) {
  return e.kind == ExprKind::Aggregate &&
         (e.stat == StatOp::Percentile || e.stat == StatOp::Median || e.stat == StatOp::Quantiles);
}

bool is_comparison(Op op) {
  switch (op) {
    case Op::Eq:
    case Op::Ne:
    case Op::Lt:
    case Op::Le:
    case Op::Gt:
    case Op::Ge: return true;
    default: return false;
  }
}

Op binary_op_of(const std::string &token) {
  for (Op op : {Op::Add,    Op::Sub,   Op::Mul,    Op::Div,    Op::Mod,     Op::Shl, Op::Shr,
                Op::BitAnd, Op::BitOr, Op::BitXor, Op::Concat, Op::Eq,      Op::Ne,  Op::Lt,
                Op::Le,     Op::Gt,    Op::Ge,     Op::Match,  Op::NoMatch, Op::And, Op::Or})
    if (token == op_token(op)) return op;
  return Op::None;
}

std::string Expr::op_spelling() const {
  switch (kind) {
    case ExprKind::Assign:
      if (op == Op::None) return "=";
      if (op == Op::StatAdd) return "<<<";
      return std::string(op_token(op)) + "=";
    case ExprKind::IncDec: return op == Op::Add ? "++" : "--";
    default: return op_token(op);
  }
}

std::string ProbePoint::str() const {
  std::string s;
  for (const auto &c : components) {
    if (!s.empty()) s += '.';
    s += c.name;
    if (c.has_arg) {
      s += '(';
      if (c.arg_is_string) s += '"' + c.str_arg + '"';
      else s += std::to_string(c.num_arg);
      s += ')';
    }
  }
  return s;
}

namespace {

Location relocated(const Location &loc, const std::shared_ptr<const Expansion> &via) {
  Location l = loc;
  if (via) {
    // Chain behind an expansion the code already came from (a macro inside
    // the alias body), else start one.
    if (l.via) {
      auto e = std::make_shared<Expansion>(*l.via);
      Location *tail = &e->at;
      while (tail->via) {
        auto next = std::make_shared<Expansion>(*tail->via);
        tail->via = next;
        tail = &next->at;
      }
      tail->via = via;
      l.via = e;
    } else {
      l.via = via;
    }
  }
  return l;
}

}  // namespace

ExprPtr clone(const Expr &e, const std::shared_ptr<const Expansion> &via) {
  auto c = std::make_unique<Expr>(e.kind, relocated(e.loc, via));
  c->number = e.number;
  c->text = e.text;
  c->op = e.op;
  c->stat = e.stat;
  c->regex = e.regex;
  c->format = e.format;
  c->builtin = e.builtin;
  c->postfix = e.postfix;
  for (const auto &a : e.args) c->args.push_back(clone(*a, via));
  if (e.target) {
    c->target = std::make_unique<TargetRef>(*e.target);
    for (auto &comp : c->target->components) comp.loc = relocated(comp.loc, via);
  }
  return c;
}

std::string TargetRef::spelling() const {
  std::string s = address_of ? "&" : "";
  s += name == "@cast" ? "@cast(..., \"" + cast_type + "\")" : name == "@autocast" ? "(...)" : name;
  for (const auto &c : components)
    s += c.kind == TargetComponent::Kind::Member ? "->" + c.member : "[...]";
  return s + std::string(static_cast<size_t>(pretty), '$');
}

Stmt::Stmt(StmtKind k, Location l) : kind(k), loc(std::move(l)) {
  // this->: clang-format takes a bare `foreach` for the Qt macro.
  if (k == StmtKind::Foreach) this->foreach = std::make_unique<ForeachData>();
  if (k == StmtKind::Try) catch_clause = std::make_unique<CatchData>();
}

std::array<Expr *, 4> Stmt::operands() const {
  return {expr.get(), init.get(), step.get(), foreach ? foreach->limit.get() : nullptr};
}

std::vector<ExprPtr *> Stmt::operand_slots() {
  std::vector<ExprPtr *> slots{&expr, &init, &step};
  if (foreach) slots.push_back(&foreach->limit);
  return slots;
}

namespace {
// The payloads' syntax; what pass 2 resolved (variables, the global) is
// left for pass 2 to resolve again in the copy.
void clone_foreach(const ForeachData &f, ForeachData &c,
                   const std::shared_ptr<const Expansion> &via) {
  c.keys = f.keys;
  for (const auto &l : f.key_locs) c.key_locs.push_back(relocated(l, via));
  c.array = f.array;
  c.array_loc = relocated(f.array_loc, via);
  c.value = f.value;
  c.value_loc = relocated(f.value_loc, via);
  c.sort_column = f.sort_column;
  c.sort_desc = f.sort_desc;
  c.sort_stat = f.sort_stat;
  c.sort_stat_unknown = f.sort_stat_unknown;
  if (f.limit) c.limit = clone(*f.limit, via);
}
}  // namespace

StmtPtr clone(const Stmt &s, const std::shared_ptr<const Expansion> &via) {
  auto c = std::make_unique<Stmt>(s.kind, relocated(s.loc, via));
  for (const auto &b : s.body) c->body.push_back(clone(*b, via));
  if (s.expr) c->expr = clone(*s.expr, via);
  if (s.init) c->init = clone(*s.init, via);
  if (s.step) c->step = clone(*s.step, via);
  if (s.catch_clause) {
    c->catch_clause->var = s.catch_clause->var;
    c->catch_clause->var_loc = relocated(s.catch_clause->var_loc, via);
  }
  if (s.foreach) clone_foreach(*s.foreach, *c->foreach, via);
  return c;
}

GlobalDecl *Script::find_global(const std::string &name) const {
  for (const auto &g : globals)
    if (g->name == name) return g.get();
  return nullptr;
}

FunctionDecl *Script::find_function(const std::string &name) const {
  for (const auto &f : functions)
    if (f->name == name) return f.get();
  return nullptr;
}

FunctionDecl *Script::find_function(const std::string &name, size_t arity) const {
  for (const auto &f : functions)
    if (f->name == name && f->params.size() == arity && !f->overload_tail) return f.get();
  return nullptr;
}

std::vector<FunctionDecl *> Script::call_targets(const std::string &name, size_t arity) const {
  if (FunctionDecl *head = find_function(name, arity)) return {head};
  std::vector<FunctionDecl *> all;
  for (const auto &f : functions)
    if (f->name == name) all.push_back(f.get());
  return all;
}

namespace {
bool has_next(const Stmt &s) {
  if (s.kind == StmtKind::Next) return true;
  for (const auto &b : s.body)
    if (has_next(*b)) return true;
  return false;
}
}  // namespace

bool FunctionDecl::passes_on() const {
  if (embedded) return embedded_c.find("STAP_NEXT") != std::string::npos;
  return body && has_next(*body);
}

}  // namespace xtap
