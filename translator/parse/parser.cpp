// Pass 1: declarations, probe points and statements (parser_impl.h).
#include "parse/parser.h"

#include <algorithm>
#include <initializer_list>
#include <optional>

#include "parse/lexer.h"
#include "parse/parser_impl.h"

namespace xtap {
namespace parse_internal {

void Parser::run(Script &script) {
  before_ = count_decls(script);
  while (!at_end()) {
    try {
      top_level(script);
    } catch (ParseError &) {
      recover_top_level();
    }
  }
  if (!private_names_.empty()) hide_private_names(script, before_, private_names_);
}

bool Parser::declared_here(const Script &s, const std::string &name) const {
  for (size_t i = before_.globals; i < s.globals.size(); ++i)
    if (s.globals[i]->name == name) return true;
  return false;
}

std::string Parser::private_name(Script &s, const std::string &name) {
  if (private_file_ == 0) private_file_ = ++s.private_files;
  std::string mangled = private_prefix(private_file_) + name;
  private_names_[name] = mangled;
  return mangled;
}

std::string Parser::describe(const Token &t) {
  switch (t.kind) {
    case Tok::End: return "end of input";
    case Tok::Number: return "number '" + t.text + "'";
    case Tok::String: return "string \"" + t.text + "\"";
    case Tok::Identifier: return "identifier '" + t.text + "'";
    case Tok::Keyword: return "keyword '" + t.text + "'";
    case Tok::Operator: return "'" + t.text + "'";
    case Tok::EmbeddedC: return "embedded C";
  }
  return "token";
}

[[noreturn]] void Parser::too_deep() {
  if (!reported_too_deep_) {
    reported_too_deep_ = true;
    diags_
        .error("XTP2270", cur().loc,
               "the script nests too deeply here (more than " + std::to_string(kMaxSyntaxDepth) +
                   " levels of statements and expressions)")
        .hint = "split the expression or the nested blocks into functions";
  }
  // Nothing of this declaration is kept: skip to the next one.
  throw ParseError{};
}

Token Parser::expect_identifier(const char *what) {
  if (cur().kind != Tok::Identifier) {
    if (cur().kind == Tok::Keyword) fail(what, "this name is a reserved word of the language");
    fail(what);
  }
  return take();
}

void Parser::recover_top_level() {
  // `probe`, `global` and `function` only start declarations, so the next
  // one is a safe place to go on from.
  take();
  while (!at_end() && !cur().is_kw("probe") && !cur().is_kw("global") && !cur().is_kw("function") &&
         !cur().is_kw("private"))
    take();
}

void Parser::top_level(Script &s) {
  if (cur().kind == Tok::EmbeddedC) {
    check_embedded(cur());
    s.embedded_c.push_back(take().text);
    return;
  }
  if (accept_kw("global")) return global_decl(s);
  if (cur().is_kw("probe")) return probe_decl(s);
  if (accept_kw("private")) {
    // `private global x`, `private function f`, and stap's short form
    // `private x` for a private global: names seen in this file only.
    private_ = true;
    struct Reset {
      bool &flag;
      ~Reset() { flag = false; }
    } reset{private_};
    if (accept_kw("global") || cur().kind == Tok::Identifier) return global_decl(s);
    if (cur().is_kw("function")) return function_decl(s);
    fail("'global', 'function' or a variable name after 'private'");
  }
  if (cur().is_kw("function")) return function_decl(s);
  if (accept_op(";")) return;
  fail("'probe', 'global' or 'function'");
}

void Parser::global_decl(Script &s) {
  do {
    Token name = expect_identifier("a global variable name");
    if (name.text[0] == '$' || name.text[0] == '@') {
      diags_.error("XTP1011", name.loc, "invalid global variable name '" + name.text + "'");
      throw ParseError{};
    }
    auto g = std::make_unique<GlobalDecl>();
    g->from_tapset = opts_.tapset;
    g->name = private_ ? private_name(s, name.text) : name.text;
    g->loc = name.loc;
    if (cur().is_op("%")) {
      g->wrap = true;
      g->wrap_loc = take().loc;
    }
    if (accept_op("[")) {
      g->is_array = true;
      if (cur().kind != Tok::Number) fail("an array size");
      Token n = take();
      // stap's bound; the runtime refuses, when the session starts, an
      // array the machine has no memory for.
      if (n.number < 1 || n.number > INT32_MAX) {
        diags_.error("XTP1019", n.loc, "array size " + n.text + " is out of range").hint =
            "sizes go from 1 to 2147483647 entries";
        throw ParseError{};
      }
      g->max_entries = n.number;
      expect_op("]");
    } else if (accept_op("=")) {
      bool neg = accept_op("-");
      Token v = take();
      if (v.kind == Tok::Number) {
        g->init = std::make_unique<Expr>(ExprKind::Number, v.loc);
        g->init->number = neg ? -v.number : v.number;
      } else if (v.kind == Tok::String && !neg) {
        g->init = std::make_unique<Expr>(ExprKind::String, v.loc);
        g->init->text = v.text;
        while (cur().kind == Tok::String) g->init->text += take().text;
      } else {
        --pos_;
        fail("a number or string literal as initializer");
      }
    }
    if (private_ != private_names_.count(name.text) || (private_ && declared_here(s, name.text))) {
      // stap: within a file, a name is either private or global.
      diags_.error("XTP1012", name.loc,
                   "'" + name.text + "' is declared both global and private in this file");
    } else if (s.find_global(g->name)) {
      diags_.error("XTP1012", name.loc, "duplicate global variable '" + name.text + "'");
    } else {
      g->index = static_cast<int>(s.globals.size());
      s.globals.push_back(std::move(g));
    }
  } while (accept_op(","));
  accept_op(";");
}

void Parser::probe_decl(Script &s) {
  auto p = std::make_unique<ProbeDecl>();
  p->from_tapset = opts_.tapset;
  p->loc = take().loc;
  p->points = probe_points();
  if ((cur().is_op("=") || cur().is_op("+=")) && p->points.size() == 1)
    return alias_decl(s, std::move(p->points[0]), p->loc);
  while (accept_op(",")) append(p->points, probe_points());
  if (!cur().is_op("{")) fail("'{' to start the probe body");
  p->body = block();
  s.probes.push_back(std::move(p));
}

void Parser::alias_decl(Script &s, ProbePoint name, Location loc) {
  auto a = std::make_unique<AliasDecl>();
  a->from_tapset = opts_.tapset;
  a->epilogue = take().text == "+=";
  for (const auto &c : name.components)
    if (c.has_arg) {
      diags_.error("XTP1018", c.loc, "a probe alias name cannot have arguments");
      throw ParseError{};
    }
  a->name = std::move(name);
  a->loc = std::move(loc);
  do append(a->points, probe_points());
  while (accept_op(","));
  if (!cur().is_op("{")) fail("'{' to start the alias body");
  a->body = block();
  // `= points { prologue }, { epilogue }`: both at once, as in stap.
  if (cur().is_op(",") && peek().is_op("{")) {
    if (a->epilogue) {
      diags_
          .error("XTP1010", cur().loc,
                 "an alias defined with '+=' has only an epilogue, not a second body")
          .hint = "define it with '=' to give both a prologue and an epilogue";
      throw ParseError{};
    }
    take();
    a->epilogue_body = block();
  }
  s.aliases.push_back(std::move(a));
}

Type Parser::type_annotation() {
  Token t = expect_identifier("a type (long or string)");
  if (t.text == "long") return Type::Long;
  if (t.text == "string") return Type::String;
  auto &d = diags_.error("XTP1014", t.loc, "unknown type '" + t.text + "'");
  d.hint = "types are 'long' and 'string'";
  throw ParseError{};
}

void Parser::function_decl(Script &s) {
  auto f = std::make_unique<FunctionDecl>();
  take();
  Token name = expect_identifier("a function name");
  f->name = private_ ? private_name(s, name.text) : name.text;
  f->loc = name.loc;
  if (accept_op(":")) f->declared_return = type_annotation();
  expect_op("(");
  if (!cur().is_op(")")) {
    do {
      Token p = expect_identifier("a parameter name");
      for (auto *q : f->params)
        if (q->name == p.text)
          diags_.error("XTP1015", p.loc, "duplicate parameter '" + p.text + "'");
      f->locals.push_back(std::make_unique<LocalVar>(LocalVar{p.text, p.loc}));
      if (accept_op(":")) f->locals.back()->declared = type_annotation();
      f->params.push_back(f->locals.back().get());
    } while (accept_op(","));
  }
  expect_op(")");
  f->from_tapset = opts_.tapset;
  f->priority = opts_.tapset ? 1 : 0;
  // `function f():N`: its place among the functions of its name and arity.
  if (accept_op(":")) {
    bool neg = accept_op("-");
    if (cur().kind != Tok::Number) fail("a priority number after ':'");
    f->priority = static_cast<int>(neg ? -take().number : take().number);
  }
  if (cur().kind == Tok::EmbeddedC) {
    check_embedded(cur());
    f->embedded = true;
    f->embedded_c = take().text;
    f->body = std::make_unique<Stmt>(StmtKind::Block, f->loc);
  } else {
    if (!cur().is_op("{")) fail("'{' or '%{' to start the function body");
    f->body = block();
  }
  // Functions are overloaded by their number of parameters, as in stap;
  // several of one arity are overloaded at run time (link_overloads).
  if (FunctionDecl *old = s.find_function(f->name, f->params.size())) {
    // The script is parsed before the tapsets: its own function wins.
    if (opts_.tapset && !old->from_tapset) return;
  }
  for (const auto &other : s.functions)
    if (other->name == f->name) f->overload = std::max(f->overload, other->overload + 1);
  f->index = static_cast<int>(s.functions.size());
  s.functions.push_back(std::move(f));
}

ProbePointComponent Parser::probe_component() {
  ProbePointComponent c;
  c.loc = cur().loc;
  // A name may hold wildcards, as in syscall.* and syscall.open*: its
  // pieces are the adjacent words, numbers and '*' tokens.
  // An @word left after preprocessing is an operator, not a name, as in stap.
  auto piece = [&] {
    return (cur().kind == Tok::Identifier && cur().text[0] != '@') || cur().kind == Tok::Keyword ||
           cur().is_op("*");
  };
  if (!piece()) fail("a probe point name (such as begin, kprobe.function(\"name\"))");
  Location last = cur().loc;
  c.name = take().text;
  while ((piece() || cur().kind == Tok::Number) && cur().loc.line == last.line &&
         cur().loc.column == last.column + last.length) {
    last = cur().loc;
    c.name += cur().kind == Tok::Number ? std::to_string(cur().number) : cur().text;
    take();
  }
  c.loc.length = last.column + last.length - c.loc.column;
  if (accept_op("(")) {
    c.has_arg = true;
    if (cur().kind == Tok::String) {
      c.arg_is_string = true;
      // Adjacent literals, also those a macro or @1 put there: @1 "@*:*"
      c.str_arg = string_literal();
    } else if (cur().kind == Tok::Number) {
      c.num_arg = take().number;
    } else if (cur().is_op("-") && peek().kind == Tok::Number) {
      take();
      // Negated as unsigned: -(-2^63) wraps to itself, as in the runtime's arithmetic.
      c.num_arg = static_cast<int64_t>(0 - static_cast<uint64_t>(take().number));
    } else {
      fail("a string or number as probe point argument");
    }
    expect_op(")");
  }
  return c;
}

// A probe point, or several when it holds alternatives in braces, as in
// kernel.{trace("a")!, function("b")}: one point per alternative, each
// with its own ? or !, and the ? or ! after the whole to all of them.
std::vector<ProbePoint> Parser::probe_points() {
  std::vector<ProbePoint> out(1);
  out[0].loc = cur().loc;
  do {
    if (cur().is_op("{")) {
      take();
      std::vector<ProbePoint> alts;
      do append(alts, probe_points());
      while (accept_op(","));
      expect_op("}");
      std::vector<ProbePoint> product;
      for (const auto &head : out)
        for (const auto &alt : alts) {
          ProbePoint pp = head;
          for (const auto &c : alt.components) pp.components.push_back(c);
          pp.optional = alt.optional;
          pp.condition = alt.condition;
          pp.sufficient = alt.sufficient;
          product.push_back(std::move(pp));
        }
      out = std::move(product);
    } else {
      ProbePointComponent c = probe_component();
      for (auto &pp : out) pp.components.push_back(c);
    }
  } while (accept_op("."));
  bool optional = accept_op("?"), sufficient = !optional && accept_op("!");
  // `POINT if (cond)`: the condition of this point alone, as in stap.
  std::shared_ptr<const Expr> condition;
  if (accept_kw("if")) {
    expect_op("(");
    condition = expression();
    expect_op(")");
  }
  for (auto &pp : out) {
    if (condition) pp.condition = condition;
    const auto &last = pp.components.back().loc;
    pp.loc.length =
        last.line == pp.loc.line ? std::max(1, last.column + last.length - pp.loc.column) : 1;
    pp.optional |= optional || sufficient;
    pp.sufficient |= sufficient;
  }
  return out;
}

// ------------------------------------------------------------ statements
StmtPtr Parser::block() {
  auto b = std::make_unique<Stmt>(StmtKind::Block, expect_op("{").loc);
  while (!cur().is_op("}")) {
    if (at_end()) {
      diags_.error("XTP1013", b->loc, "unclosed '{'").hint = "add the missing '}'";
      throw ParseError{};
    }
    b->body.push_back(statement());
  }
  take();
  return b;
}

StmtPtr Parser::statement() {
  Nesting nesting(*this);
  Location loc = cur().loc;
  if (cur().is_op("{")) return block();
  if (accept_op(";")) return std::make_unique<Stmt>(StmtKind::Empty, loc);
  if (accept_kw("if")) {
    auto s = std::make_unique<Stmt>(StmtKind::If, loc);
    expect_op("(");
    s->expr = expression();
    expect_op(")");
    s->body.push_back(statement());
    if (accept_kw("else")) s->body.push_back(statement());
    return s;
  }
  if (accept_kw("while")) {
    auto s = std::make_unique<Stmt>(StmtKind::While, loc);
    expect_op("(");
    s->expr = expression();
    expect_op(")");
    s->body.push_back(statement());
    return s;
  }
  if (accept_kw("for")) {
    auto s = std::make_unique<Stmt>(StmtKind::For, loc);
    expect_op("(");
    if (!cur().is_op(";")) s->init = expression();
    expect_op(";");
    if (!cur().is_op(";")) s->expr = expression();
    expect_op(";");
    if (!cur().is_op(")")) s->step = expression();
    expect_op(")");
    s->body.push_back(statement());
    return s;
  }
  if (accept_kw("foreach")) return foreach_stmt(loc);
  if (accept_kw("try")) {
    auto s = std::make_unique<Stmt>(StmtKind::Try, loc);
    if (!cur().is_op("{")) fail("'{' after 'try'");
    s->body.push_back(block());
    if (!accept_kw("catch")) fail("'catch' after the try block");
    if (accept_op("(")) {
      Token v = expect_identifier("a variable for the error message");
      s->catch_clause->var = v.text;
      s->catch_clause->var_loc = v.loc;
      expect_op(")");
    }
    if (!cur().is_op("{")) fail("'{' to start the catch block");
    s->body.push_back(block());
    return s;
  }
  if (accept_kw("delete")) {
    auto s = std::make_unique<Stmt>(StmtKind::Delete, loc);
    s->expr = unary();
    accept_op(";");
    return s;
  }
  if (accept_kw("next")) return simple(StmtKind::Next, loc);
  if (accept_kw("break")) return simple(StmtKind::Break, loc);
  if (accept_kw("continue")) return simple(StmtKind::Continue, loc);
  if (accept_kw("return")) {
    auto s = std::make_unique<Stmt>(StmtKind::Return, loc);
    if (!cur().is_op(";") && !cur().is_op("}")) s->expr = expression();
    accept_op(";");
    return s;
  }
  auto s = std::make_unique<Stmt>(StmtKind::Expr, loc);
  s->expr = expression();
  accept_op(";");
  return s;
}

// foreach ([v[+-] =] [k1[+-], k2...] in array|@hist_x(s) [@op] [+-] [limit N]) statement
StmtPtr Parser::foreach_stmt(const Location &loc) {
  auto s = std::make_unique<Stmt>(StmtKind::Foreach, loc);
  expect_op("(");
  // The value variable may carry the sort mark itself: foreach (v- = k in a).
  bool marked_value = (peek().is_op("+") || peek().is_op("-")) && peek(2).is_op("=");
  if (cur().kind == Tok::Identifier && (peek().is_op("=") || marked_value)) {
    Token value = take();
    s->foreach->value = value.text;
    s->foreach->value_loc = value.loc;
  }
  auto sort_mark = [&](int column) {
    if (!cur().is_op("+") && !cur().is_op("-")) return;
    Token t = take();
    if (s->foreach->sort_column >= 0) {
      diags_.error("XTP1017", t.loc, "foreach can sort by one column only");
      return;
    }
    s->foreach->sort_column = column;
    s->foreach->sort_desc = t.text == "-";
  };
  if (!s->foreach->value.empty()) {
    sort_mark(0);
    expect_op("=");
  }
  auto key = [&] {
    Token t = expect_identifier("a loop variable name");
    s->foreach->keys.push_back(t.text);
    s->foreach->key_locs.push_back(t.loc);
    sort_mark(static_cast<int>(s->foreach->keys.size()));
  };
  if (accept_op("[")) {
    do key();
    while (accept_op(","));
    expect_op("]");
  } else {
    key();
  }
  if (!accept_kw("in")) fail("'in'");
  if (at_histogram()) {  // foreach ([i] in @hist_log(s)): its buckets
    s->foreach->array_loc = cur().loc;
    s->expr = aggregate_call(take());
  } else {
    Token arr = expect_identifier("an array name");
    s->foreach->array = arr.text;
    s->foreach->array_loc = arr.loc;
    if (accept_op("[")) s->expr = index_keys(arr);
  }
  if (cur().kind == Tok::Identifier && cur().text[0] == '@') {
    Token op = take();
    StatOp stat;
    if (stat_op_of(op.text.substr(1), &stat)) s->foreach->sort_stat = stat;
    else s->foreach->sort_stat_unknown = op.text.substr(1);
  }
  sort_mark(0);
  if (accept_kw("limit")) s->foreach->limit = expression();
  expect_op(")");
  s->body.push_back(statement());
  return s;
}

}  // namespace parse_internal

void parse_into(Script &script, SourceFile &file, Diagnostics &diags, const PreprocessContext *ctx,
                const ParseOptions &opts) {
  static const PreprocessContext kDefault;
  parse_internal::Parser(file, diags, ctx ? *ctx : kDefault, opts).run(script);
}

std::unique_ptr<Script> parse_script(SourceFile &file, Diagnostics &diags,
                                     const PreprocessContext *ctx, const ParseOptions &opts) {
  auto script = std::make_unique<Script>();
  script->file = &file;
  script->guru = opts.guru;
  parse_into(*script, file, diags, ctx, opts);
  return script;
}

}  // namespace xtap
