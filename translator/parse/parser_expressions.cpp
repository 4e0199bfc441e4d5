// Pass 1: expressions, targets and the @-operators (parser_impl.h).
#include <algorithm>
#include <initializer_list>
#include <optional>

#include "parse/lexer.h"
#include "parse/parser_impl.h"

namespace xtap::parse_internal {

ExprPtr Parser::binary(ExprKind k, Op op, const Token &tok, ExprPtr l, ExprPtr r) {
  auto e = make(k, tok.loc);
  e->op = op;
  e->args.push_back(std::move(l));
  e->args.push_back(std::move(r));
  return e;
}

ExprPtr Parser::assignment() {
  Nesting nesting(*this);
  ExprPtr lhs = ternary();
  if (at_any_op({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", ".="})) {
    Token tok = take();
    // `+=` combines with `+`; plain `=` with nothing.
    Op op = binary_op_of(tok.text.substr(0, tok.text.size() - 1));
    ExprPtr rhs = assignment();
    return binary(ExprKind::Assign, op, tok, std::move(lhs), std::move(rhs));
  }
  if (cur().is_op("<<<")) {
    Token tok = take();
    return binary(ExprKind::Assign, Op::StatAdd, tok, std::move(lhs), assignment());
  }
  return lhs;
}

ExprPtr Parser::ternary() {
  Nesting nesting(*this);
  ExprPtr cond = logical_or();
  if (!cur().is_op("?")) return cond;
  auto e = make(ExprKind::Ternary, take().loc);
  e->args.push_back(std::move(cond));
  e->args.push_back(expression());
  expect_op(":");
  e->args.push_back(ternary());
  return e;
}

template <typename Next>
ExprPtr Parser::left_assoc(ExprKind kind, std::initializer_list<const char *> ops, Next next) {
  ExprPtr lhs = (this->*next)();
  // Each operator of a chain (a + b + c ...) nests the tree one level
  // deeper on its left, though the parser loops.
  int chain = 0;
  std::optional<Nesting> chain_nesting;
  while (at_any_op(ops)) {
    chain_nesting.reset();
    chain_nesting.emplace(*this, ++chain);
    Token tok = take();
    lhs = binary(kind, binary_op_of(tok.text), tok, std::move(lhs), (this->*next)());
  }
  return lhs;
}

// array[k1, k2, ...], after the '['.
ExprPtr Parser::index_keys(const Token &name) {
  auto e = make(ExprKind::Index, name.loc);
  e->text = name.text;
  do e->args.push_back(slice_key());
  while (accept_op(","));
  expect_op("]");
  return e;
}

ExprPtr Parser::array_in() {
  if (cur().is_op("[")) {
    // [k1, k2] in array
    auto e = make(ExprKind::In, take().loc);
    do e->args.push_back(slice_key());
    while (accept_op(","));
    expect_op("]");
    if (!accept_kw("in")) fail("'in' after a key list");
    if (at_histogram()) return bucket_in(std::move(e->args));
    Token arr = expect_identifier("an array name");
    e->text = arr.text;
    e->loc = arr.loc;
    return e;
  }
  ExprPtr lhs = comparison();
  if (cur().is_kw("in")) {
    take();
    if (at_histogram()) {
      std::vector<ExprPtr> keys;
      keys.push_back(std::move(lhs));
      return bucket_in(std::move(keys));
    }
    Token arr = expect_identifier("an array name");
    auto e = make(ExprKind::In, arr.loc);
    e->text = arr.text;
    e->args.push_back(std::move(lhs));
    return e;
  }
  return lhs;
}

ExprPtr Parser::unary() {
  Nesting nesting(*this);
  if (cur().is_op("&")) return dwarf_value();
  if (at_any_op({"-", "+", "!", "~"})) {
    Token tok = take();
    auto e = make(ExprKind::Unary, tok.loc);
    e->op = tok.is_op("-")   ? Op::Neg
            : tok.is_op("+") ? Op::Plus
            : tok.is_op("!") ? Op::Not
                             : Op::BitNot;
    e->args.push_back(unary());
    return e;
  }
  // ++x, x++ (and --): x is a variable, an element or a target (guru mode).
  const bool prefix = at_any_op({"++", "--"});
  Token tok = prefix ? take() : Token{};
  ExprPtr v = dwarf_value();
  if (!prefix && !at_any_op({"++", "--"})) return v;
  if (!prefix) tok = take();
  auto e = make(ExprKind::IncDec, tok.loc);
  e->op = tok.is_op("++") ? Op::Add : Op::Sub;
  e->postfix = !prefix;
  e->args.push_back(std::move(v));
  return e;
}

// `i in @hist_log(s)`, after the `in`: whether bucket i counts anything.
// Pass 2 checks that there is one key.
ExprPtr Parser::bucket_in(std::vector<ExprPtr> keys) {
  Token name = take();
  auto e = make(ExprKind::HistBucket, name.loc);
  e->text = "in";
  e->args.push_back(aggregate_call(name));
  for (auto &k : keys) e->args.push_back(std::move(k));
  return e;
}

// @hist_log(s) / @hist_linear(...), and a bucket of it: @hist_log(s)[i].
ExprPtr Parser::aggregate(const Token &name) {
  ExprPtr h = aggregate_call(name);
  if (h->stat == StatOp::Quantiles && cur().is_op("["))
    fail("an operator (@quantiles has no buckets: @percentile(s, P) reads one value)");
  if (!is_histogram(*h) || !cur().is_op("[")) return h;
  auto e = make(ExprKind::HistBucket, take().loc);
  e->args.push_back(std::move(h));
  do e->args.push_back(expression());
  while (accept_op(","));
  expect_op("]");
  return e;
}

// @op(stat) or @hist_linear(stat, lo, hi, step) / @hist_log(stat)
ExprPtr Parser::aggregate_call(const Token &name) {
  auto e = make(ExprKind::Aggregate, name.loc);
  stat_op_of(name.text.substr(1), &e->stat);
  expect_op("(");
  Token var = expect_identifier("a statistics variable");
  ExprPtr v;
  if (accept_op("[")) {
    v = make(ExprKind::Index, var.loc);
    do v->args.push_back(expression());
    while (accept_op(","));
    expect_op("]");
  } else {
    v = make(ExprKind::Var, var.loc);
  }
  v->text = var.text;
  e->args.push_back(std::move(v));
  if (e->stat == StatOp::Variance && accept_op(",")) {
    // @variance(s, N): stap's bit shift for precision with small values.
    if (cur().kind != Tok::Number) fail("a bit shift (a number from 0 to 62)");
    auto n = make(ExprKind::Number, cur().loc);
    n->number = take().number;
    e->args.push_back(std::move(n));
  }
  if (e->stat == StatOp::Percentile) {
    // @percentile(s, P[, D]): the percentile P / D (D is 100 unless given).
    expect_op(",");
    e->args.push_back(expression());
    if (accept_op(",")) e->args.push_back(expression());
  }
  if (e->stat == StatOp::HistLinear) {
    for (int i = 0; i < 3; ++i) {
      expect_op(",");
      bool neg = accept_op("-");
      if (cur().kind != Tok::Number) fail("a number (histogram bounds must be literals)");
      auto n = make(ExprKind::Number, cur().loc);
      n->number = neg ? -take().number : take().number;
      e->args.push_back(std::move(n));
    }
  }
  expect_op(")");
  return e;
}

// @defined(target): whether the probe has that target variable (or the
// @cast type that member); pass 2 decides, per probe location.
ExprPtr Parser::defined(const Token &name) {
  auto e = make(ExprKind::Defined, name.loc);
  expect_op("(");
  // @defined(@entry($x)): whether $x exists, which its entry value shares.
  bool entry = cur().kind == Tok::Identifier && cur().text == "@entry";
  if (entry) {
    take();
    expect_op("(");
  }
  // A target, an autocast (x->member), @choose_defined(...) (whether the
  // chosen one is defined: pass 2 decides), or a plain value (defined).
  e->args.push_back(dwarf_value());
  if (entry) {
    expect_op(")");
    e->text = "@entry";  // 0 where there is no entry (expand_entry)
  }
  expect_op(")");
  return e;
}

// @const("NAME"): a C constant or macro of the kernel, guru mode only.
ExprPtr Parser::const_op(const Token &name) {
  if (!opts_.tapset && !opts_.guru)
    diags_.error("XTP1041", name.loc, "@const needs guru mode").hint =
        "run with -g: @const reads a C name";
  expect_op("(");
  if (cur().kind != Tok::String || cur().text.empty()) fail("a C name in quotes");
  auto e = make(ExprKind::EmbeddedC, name.loc);
  e->text = "/* pure */ (" + string_literal() + ")";
  expect_op(")");
  return e;
}

// @entry(expr): in a .return probe, expr's value when the function was
// entered; pass 2 (expand_entry) arranges the saving and checks the probe.
ExprPtr Parser::entry(const Token &name) {
  auto e = make(ExprKind::Entry, name.loc);
  expect_op("(");
  e->args.push_back(expression());
  expect_op(")");
  return e;
}

// @probewrite(var): in a probe alias's body, whether the body of the probe
// using the alias writes var; pass 2 (expand_aliases) puts 1 or 0 there.
// A call of that name holding the variable or target, until then.
ExprPtr Parser::probewrite(const Token &name) {
  auto e = make(ExprKind::Call, name.loc);
  e->text = name.text;
  expect_op("(");
  if (cur().kind != Tok::Identifier) fail("a variable or target variable");
  if (is_target_head(cur())) {
    Token head = take();
    e->args.push_back(target(head, false));
  } else {
    auto v = make(ExprKind::Var, cur().loc);
    v->text = take().text;
    e->args.push_back(std::move(v));
  }
  expect_op(")");
  return e;
}

// @choose_defined(a, b): a where @defined(a), else b (stap's tapset
// macro), as the conditional expression pass 2 folds per location.
ExprPtr Parser::choose_defined(const Token &name) {
  expect_op("(");
  ExprPtr a = expression();
  expect_op(",");
  ExprPtr b = expression();
  expect_op(")");
  // stap's macro puts the choice in parentheses, so scripts write
  // `@choose_defined($cmd, $SCpnt)->device->sector_size`: the members
  // apply to whichever is chosen (an autocast where it is no target).
  std::vector<TargetComponent> members;
  while (cur().is_op("->")) {
    Location loc = take().loc;
    if (cur().kind != Tok::Identifier && cur().kind != Tok::Keyword)
      fail("a member name after '->'");
    members.push_back({TargetComponent::Kind::Member, take().text, -1, loc});
  }
  // @defined of a plain value is 1: no choice to make.
  if (a->kind != ExprKind::Target && a->kind != ExprKind::Ternary)
    return with_members(std::move(a), members);
  auto cond = make(ExprKind::Defined, name.loc);
  cond->args.push_back(clone(*a));
  auto e = make(ExprKind::Ternary, name.loc);
  e->args.push_back(std::move(cond));
  e->args.push_back(with_members(std::move(a), members));
  e->args.push_back(with_members(std::move(b), members));
  return e;
}

// `v` with `members` appended: to a target's components, to both sides
// of a choice, or as an autocast of any other value.
ExprPtr Parser::with_members(ExprPtr v, const std::vector<TargetComponent> &members) {
  if (members.empty()) return v;
  if (v->kind == ExprKind::Ternary) {
    for (int side : {1, 2}) v->args[side] = with_members(std::move(v->args[side]), members);
    return v;
  }
  if (v->kind != ExprKind::Target || v->target->pretty) {
    Location loc = v->loc;
    v = autocast(std::move(v), false, loc);
  }
  for (const auto &m : members) v->target->components.push_back(m);
  return v;
}

// An "@autocast" target: `->member`, `[index]` and `&` applied to a value
// that is no target variable (a local, a call, a parenthesized
// expression): pass 2 takes the C type from where the value comes from.
ExprPtr Parser::autocast(ExprPtr operand, bool address_of, Location loc) {
  auto e = make(ExprKind::Target, std::move(loc));
  e->target = std::make_unique<TargetRef>(TargetRef{.name = "@autocast", .address_of = address_of});
  e->args.push_back(std::move(operand));
  return e;
}

// A value with stap's typed-pointer operators, which bind tighter than
// any other: an optional `&`, then a target ($var, @cast, @var) with its
// components, or any other value followed by `->member`, `[index]` or a
// pretty-printing `$`/`$$` (an autocast).
ExprPtr Parser::dwarf_value() {
  Location amp;
  bool addr = cur().is_op("&");
  if (addr) amp = take().loc;
  if (is_target_head(cur())) return target(take(), addr);
  ExprPtr v = value();
  if (!addr && !at_component()) return v;
  Location loc = addr ? amp : v->loc;
  ExprPtr e = autocast(std::move(v), addr, loc);
  components(*e);
  return e;
}

// @kderef(size, addr) / @uderef(size, addr): `size` bytes of kernel or
// user memory; @kregister(n) / @uregister(n): register n (DWARF's
// numbering). Guru mode, as in stap; pass 2 turns them into reads.
ExprPtr Parser::raw_access(const Token &name) {
  if (!opts_.guru && !opts_.tapset)
    diags_.error("XTP1043", name.loc, "'" + name.text + "' needs guru mode").hint =
        "run with -g: it reads raw memory or registers";
  auto e = make(ExprKind::Call, name.loc);
  e->text = name.text;
  const bool deref = name.text.ends_with("deref");
  expect_op("(");
  if (cur().kind != Tok::Number)
    fail(deref ? "a size in bytes (1, 2, 4 or 8)" : "a register number");
  e->args.push_back(value());
  if (deref) {
    expect_op(",");
    e->args.push_back(expression());
  }
  expect_op(")");
  return e;
}

// $name, @cast(ptr, "type"[, "module"]) or @var("name"), then `->member`
// and `[index]` components, and an optional pretty-printing `$`/`$$`.
ExprPtr Parser::target(const Token &head, bool address_of) {
  auto e = make(ExprKind::Target, head.loc);
  e->target = std::make_unique<TargetRef>();
  TargetRef &t = *e->target;
  t.address_of = address_of;
  std::string name = head.text;
  if (name == "@cast" || name == "@var") {
    expect_op("(");
    if (name == "@cast") {
      e->args.push_back(expression());
      expect_op(",");
    }
    if (cur().kind != Tok::String)
      fail(name == "@cast" ? "a type name in quotes" : "a variable name in quotes");
    t.cast_type = string_literal();
    if (accept_op(",")) {
      if (cur().kind != Tok::String) fail("a module name in quotes");
      t.cast_module = string_literal();
    }
    expect_op(")");
  } else {
    size_t end = name.find_last_not_of('$');
    if (end != std::string::npos && end + 1 < name.size()) {
      t.pretty = static_cast<int>(name.size() - end - 1);
      name.erase(end + 1);
    }
  }
  t.name = name;
  components(*e);
  return e;
}

// A target's `->member` and `[index]` components, and an optional
// pretty-printing `$`/`$$`.
void Parser::components(Expr &e) {
  TargetRef &t = *e.target;
  while (!t.pretty) {
    if (cur().is_op("->")) {
      Location loc = take().loc;
      if (cur().kind != Tok::Identifier && cur().kind != Tok::Keyword)
        fail("a member name after '->'");
      std::string member = take().text;
      t.components.push_back({TargetComponent::Kind::Member, member, -1, loc});
    } else if (cur().is_op("[")) {
      Location loc = take().loc;
      e.args.push_back(expression());
      expect_op("]");
      t.components.push_back(
          {TargetComponent::Kind::Index, "", static_cast<int>(e.args.size() - 1), loc});
    } else {
      break;
    }
  }
  // `$var->member$` lexes as member then "$": the pretty-printing suffix.
  if (!t.pretty && cur().kind == Tok::Identifier && all_dollars(cur().text) &&
      cur().text.size() <= 2)
    t.pretty = static_cast<int>(take().text.size());
  if (t.pretty > 2) {
    diags_
        .error("XTP1023", e.loc,
               "'" + std::string(t.pretty, '$') + "' is not a pretty-printing suffix")
        .hint = "use $ (one level) or $$ (nested structures)";
    throw ParseError{};
  }
}

ExprPtr Parser::value() {
  const Token &t = cur();
  if (t.kind == Tok::Number) {
    auto e = make(ExprKind::Number, t.loc);
    e->number = t.number;
    e->text = t.text;
    take();
    return e;
  }
  if (t.kind == Tok::EmbeddedC) {
    check_embedded(t);
    auto e = make(ExprKind::EmbeddedC, t.loc);
    e->text = take().text;
    return e;
  }
  if (t.kind == Tok::String) {
    auto e = make(ExprKind::String, t.loc);
    e->text = t.text;
    take();
    // Adjacent literals concatenate, as in C.
    while (cur().kind == Tok::String) {
      if (e->text.size() > kMaxStringLiteral) break;
      e->text += take().text;
    }
    if (e->text.size() > kMaxStringLiteral) {
      diags_
          .error("XTP2271", e->loc,
                 "string literal of " + std::to_string(e->text.size()) + " bytes is longer than " +
                     std::to_string(kMaxStringLiteral) + ", the largest MAXSTRINGLEN")
          .hint =
          "no string of a running script can hold it: read the data at run time, or shorten it";
      while (cur().kind == Tok::String) take();
      e->text.clear();
    }
    return e;
  }
  if (accept_op("(")) {
    ExprPtr e = expression();
    expect_op(")");
    return e;
  }
  if (t.kind == Tok::Identifier) {
    Token name = take();
    if (name.text[0] == '@' && is_aggregate(name.text.substr(1))) return aggregate(name);
    if (name.text == "@defined") return defined(name);
    if (name.text == "@choose_defined") return choose_defined(name);
    if (name.text == "@entry") return entry(name);
    if (name.text == "@const") return const_op(name);
    if (name.text == "@probewrite") return probewrite(name);
    if (name.text[0] == '$' || name.text == "@cast" || name.text == "@var")
      return target(name, false);
    if (name.text == "@kderef" || name.text == "@uderef" || name.text == "@kregister" ||
        name.text == "@uregister")
      return raw_access(name);
    if (name.text[0] == '@') {
      diags_.error("XTP1022", name.loc, "unknown '@' operator '" + name.text + "'").hint =
          "known: @count @sum @min @max @avg @variance @hist_linear @hist_log @percentile "
          "@median @quantiles @defined "
          "@choose_defined @cast @var @entry @probewrite "
          "@kderef @uderef @kregister @uregister, "
          "and @1 @2 ... for script arguments";
      throw ParseError{};
    }
    if (accept_op("(")) {
      auto e = make(ExprKind::Call, name.loc);
      e->text = name.text;
      if (!cur().is_op(")")) {
        do e->args.push_back(expression());
        while (accept_op(","));
      }
      expect_op(")");
      return e;
    }
    if (accept_op("[")) return index_keys(name);
    auto e = make(ExprKind::Var, name.loc);
    e->text = name.text;
    return e;
  }
  fail("an expression");
}

}  // namespace xtap::parse_internal
