#include "parse/parser.h"

#include <algorithm>
#include <initializer_list>
#include <optional>

#include "parse/lexer.h"

namespace xtap {
namespace {

struct ParseError {};  // unwinds to the nearest recovery point

// How deep statements and expressions may nest (counting each recursive
// step of the parser: a parenthesis costs about three). Every later pass
// walks the tree recursively, so this bounds their stack too; scripts
// people write stay far below it.
constexpr int kMaxSyntaxDepth = 1000;
// The longest string literal (after adjacent literals are joined): the
// largest MAXSTRINGLEN a module can be built with (codegen/module.cpp).
constexpr size_t kMaxStringLiteral = 65536;

class Parser {
 public:
  Parser(SourceFile &file, Diagnostics &diags, const PreprocessContext &ctx, const ParseOptions &opts)
      : file_(file), diags_(diags), opts_(opts) {
    toks_ = preprocess(lex(file, diags), ctx, diags);
  }

  void run(Script &script) {
    while (!at_end()) {
      try {
        top_level(script);
      } catch (ParseError &) {
        recover_top_level();
      }
    }
  }

 private:
  // ------------------------------------------------------------ tokens
  const Token &cur() const { return toks_[pos_]; }
  const Token &peek(size_t k = 1) const {
    return toks_[std::min(pos_ + k, toks_.size() - 1)];
  }
  bool at_end() const { return cur().kind == Tok::End; }
  Token take() {
    Token t = cur();
    if (!at_end()) ++pos_;
    return t;
  }
  bool accept_op(const char *op) {
    if (!cur().is_op(op)) return false;
    ++pos_;
    return true;
  }
  bool accept_kw(const char *kw) {
    if (!cur().is_kw(kw)) return false;
    ++pos_;
    return true;
  }
  static std::string describe(const Token &t) {
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
  // Counts one level of nesting for as long as it lives; past
  // kMaxSyntaxDepth the script is refused (once) rather than left to
  // overflow the stack of this or a later pass.
  class Nesting {
   public:
    Nesting(Parser &p, int levels = 1) : p_(p), levels_(levels) {
      if (p_.depth_ + levels_ > kMaxSyntaxDepth) p_.too_deep();  // before counting: no destructor runs
      p_.depth_ += levels_;
    }
    ~Nesting() { p_.depth_ -= levels_; }
    Nesting(const Nesting &) = delete;
    Nesting &operator=(const Nesting &) = delete;

   private:
    Parser &p_;
    int levels_;
  };
  [[noreturn]] void too_deep() {
    if (!reported_too_deep_) {
      reported_too_deep_ = true;
      diags_.error("XTP2270", cur().loc,
                   "the script nests too deeply here (more than " + std::to_string(kMaxSyntaxDepth) +
                       " levels of statements and expressions)")
          .hint = "split the expression or the nested blocks into functions";
    }
    // Nothing of this declaration is kept: skip to the next one.
    throw ParseError{};
  }
  [[noreturn]] void fail(const std::string &expected, const char *hint = nullptr) {
    auto &d = diags_.error("XTP1010", cur().loc, "expected " + expected + ", found " + describe(cur()));
    if (hint) d.hint = hint;
    throw ParseError{};
  }
  Token expect_op(const char *op) {
    if (!cur().is_op(op)) fail(std::string("'") + op + "'");
    return take();
  }
  // A string literal and those adjacent to it, joined ("a" "b" is "ab").
  std::string string_literal() {
    std::string text = take().text;
    while (cur().kind == Tok::String && text.size() <= kMaxStringLiteral) text += take().text;
    return text;
  }
  Token expect_identifier(const char *what) {
    if (cur().kind != Tok::Identifier) {
      if (cur().kind == Tok::Keyword)
        fail(what, "this name is a reserved word of the language");
      fail(what);
    }
    return take();
  }

  void recover_top_level() {
    // `probe`, `global` and `function` only start declarations, so the next
    // one is a safe place to go on from.
    take();
    while (!at_end() && !cur().is_kw("probe") && !cur().is_kw("global") && !cur().is_kw("function"))
      take();
  }

  // ------------------------------------------------------------ top level
  // Embedded C is for tapsets and guru mode (-g) only.
  void check_embedded(const Token &t) {
    if (opts_.tapset || opts_.guru) return;
    diags_.error("XTP1041", t.loc, "embedded C code needs guru mode").hint =
        "run with -g if you trust this C code to run in the kernel";
  }

  void top_level(Script &s) {
    if (cur().kind == Tok::EmbeddedC) {
      check_embedded(cur());
      s.embedded_c.push_back(take().text);
      return;
    }
    if (accept_kw("global")) return global_decl(s);
    if (cur().is_kw("probe")) return probe_decl(s);
    if (accept_kw("private")) {
      // A single-file script has nothing to hide from: accept and go on.
      if (!cur().is_kw("global") && !cur().is_kw("function"))
        fail("'global' or 'function' after 'private'");
      return top_level(s);
    }
    if (cur().is_kw("function")) return function_decl(s);
    if (accept_op(";")) return;
    fail("'probe', 'global' or 'function'");
  }

  void global_decl(Script &s) {
    do {
      Token name = expect_identifier("a global variable name");
      if (name.text[0] == '$' || name.text[0] == '@') {
        diags_.error("XTP1011", name.loc, "invalid global variable name '" + name.text + "'");
        throw ParseError{};
      }
      auto g = std::make_unique<GlobalDecl>();
      g->from_tapset = opts_.tapset;
      g->name = name.text;
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
          diags_.error("XTP1019", n.loc, "array size " + n.text + " is out of range")
              .hint = "sizes go from 1 to 2147483647 entries";
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
      if (s.find_global(g->name)) {
        diags_.error("XTP1012", name.loc, "duplicate global variable '" + name.text + "'");
      } else {
        g->index = static_cast<int>(s.globals.size());
        s.globals.push_back(std::move(g));
      }
    } while (accept_op(","));
    accept_op(";");
  }

  void probe_decl(Script &s) {
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

  void alias_decl(Script &s, ProbePoint name, Location loc) {
    auto a = std::make_unique<AliasDecl>();
    a->from_tapset = opts_.tapset;
    a->epilogue = take().text == "+=";
    for (const auto &c : name.components)
      if (c.has_arg) {
        diags_.error("XTP1018", c.loc, "a probe alias name cannot have arguments");
        throw ParseError{};
      }
    a->name = std::move(name);
    a->loc = loc;
    do append(a->points, probe_points());
    while (accept_op(","));
    if (!cur().is_op("{")) fail("'{' to start the alias body");
    a->body = block();
    s.aliases.push_back(std::move(a));
  }

  Type type_annotation() {
    Token t = expect_identifier("a type (long or string)");
    if (t.text == "long") return Type::Long;
    if (t.text == "string") return Type::String;
    auto &d = diags_.error("XTP1014", t.loc, "unknown type '" + t.text + "'");
    d.hint = "types are 'long' and 'string'";
    throw ParseError{};
  }

  void function_decl(Script &s) {
    auto f = std::make_unique<FunctionDecl>();
    take();
    Token name = expect_identifier("a function name");
    f->name = name.text;
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
    if (cur().kind == Tok::EmbeddedC) {
      check_embedded(cur());
      f->embedded = true;
      f->embedded_c = take().text;
      f->body = std::make_unique<Stmt>(StmtKind::Block, f->loc);
    } else {
      if (!cur().is_op("{")) fail("'{' or '%{' to start the function body");
      f->body = block();
    }
    // Functions are overloaded by their number of parameters, as in stap.
    if (FunctionDecl *old = s.find_function(f->name, f->params.size())) {
      // The script is parsed before the tapsets: its own function wins.
      if (opts_.tapset && !old->from_tapset) return;
      diags_.error("XTP1016", name.loc,
                   "function '" + f->name + "' with " + std::to_string(f->params.size()) +
                       " parameter(s) is defined twice")
          .hint = "the other definition is at " + old->loc.str();
      return;
    }
    for (const auto &other : s.functions)
      if (other->name == f->name) f->overload = std::max(f->overload, other->overload + 1);
    f->index = static_cast<int>(s.functions.size());
    s.functions.push_back(std::move(f));
  }

  static void append(std::vector<ProbePoint> &to, std::vector<ProbePoint> from) {
    for (auto &pp : from) to.push_back(std::move(pp));
  }

  ProbePointComponent probe_component() {
    ProbePointComponent c;
    c.loc = cur().loc;
    // A name may hold wildcards, as in syscall.* and syscall.open*: its
    // pieces are the adjacent words, numbers and '*' tokens.
    auto piece = [&] { return cur().kind == Tok::Identifier || cur().kind == Tok::Keyword || cur().is_op("*"); };
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
        c.num_arg = -take().number;
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
  std::vector<ProbePoint> probe_points() {
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
      pp.loc.length = last.line == pp.loc.line ? std::max(1, last.column + last.length - pp.loc.column) : 1;
      pp.optional |= optional || sufficient;
      pp.sufficient |= sufficient;
    }
    return out;
  }

  // ------------------------------------------------------------ statements
  StmtPtr block() {
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

  StmtPtr statement() {
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
        s->catch_var = v.text;
        s->catch_var_loc = v.loc;
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

  StmtPtr simple(StmtKind k, Location loc) {
    accept_op(";");
    return std::make_unique<Stmt>(k, loc);
  }

  // foreach ([v =] [k1[+-], k2...] in array [@op] [+-] [limit N]) statement
  StmtPtr foreach_stmt(Location loc) {
    auto s = std::make_unique<Stmt>(StmtKind::Foreach, loc);
    expect_op("(");
    if (cur().kind == Tok::Identifier && peek().is_op("=")) {
      Token v = take();
      take();
      s->foreach_value = v.text;
      s->foreach_value_loc = v.loc;
    }
    auto sort_mark = [&](int column) {
      if (!cur().is_op("+") && !cur().is_op("-")) return;
      Token t = take();
      if (s->sort_column >= 0) {
        diags_.error("XTP1017", t.loc, "foreach can sort by one column only");
        return;
      }
      s->sort_column = column;
      s->sort_desc = t.text == "-";
    };
    auto key = [&] {
      Token t = expect_identifier("a loop variable name");
      s->foreach_keys.push_back(t.text);
      s->foreach_key_locs.push_back(t.loc);
      sort_mark(static_cast<int>(s->foreach_keys.size()));
    };
    if (accept_op("[")) {
      do key();
      while (accept_op(","));
      expect_op("]");
    } else {
      key();
    }
    if (!accept_kw("in")) fail("'in'");
    Token arr = expect_identifier("an array name");
    s->foreach_array = arr.text;
    s->foreach_array_loc = arr.loc;
    if (accept_op("[")) s->expr = index_keys(arr);
    if (cur().kind == Tok::Identifier && cur().text[0] == '@') {
      Token op = take();
      s->sort_stat = op.text.substr(1);
    }
    sort_mark(0);
    if (accept_kw("limit")) s->limit = expression();
    expect_op(")");
    s->body.push_back(statement());
    return s;
  }

  // ------------------------------------------------------------ expressions
  ExprPtr make(ExprKind k, Location l) { return std::make_unique<Expr>(k, l); }
  ExprPtr binary(ExprKind k, Op op, const Token &tok, ExprPtr l, ExprPtr r) {
    auto e = make(k, tok.loc);
    e->op = op;
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return e;
  }
  bool at_any_op(std::initializer_list<const char *> ops) const {
    for (const char *o : ops)
      if (cur().is_op(o)) return true;
    return false;
  }

  ExprPtr expression() { return assignment(); }

  ExprPtr assignment() {
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

  ExprPtr ternary() {
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
  ExprPtr left_assoc(ExprKind kind, std::initializer_list<const char *> ops, Next next) {
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

  ExprPtr logical_or() { return left_assoc(ExprKind::Logical, {"||"}, &Parser::logical_and); }
  ExprPtr logical_and() { return left_assoc(ExprKind::Logical, {"&&"}, &Parser::bit_or); }
  ExprPtr bit_or() { return left_assoc(ExprKind::Binary, {"|"}, &Parser::bit_xor); }
  ExprPtr bit_xor() { return left_assoc(ExprKind::Binary, {"^"}, &Parser::bit_and); }
  ExprPtr bit_and() { return left_assoc(ExprKind::Binary, {"&"}, &Parser::array_in); }

  // A key, or `*` for any key in a slice (pass 2 says where slices may be).
  ExprPtr slice_key() {
    if (cur().is_op("*") && (peek().is_op(",") || peek().is_op("]")))
      return make(ExprKind::Star, take().loc);
    return expression();
  }

  // array[k1, k2, ...], after the '['.
  ExprPtr index_keys(const Token &name) {
    auto e = make(ExprKind::Index, name.loc);
    e->text = name.text;
    do e->args.push_back(slice_key());
    while (accept_op(","));
    expect_op("]");
    return e;
  }

  ExprPtr array_in() {
    if (cur().is_op("[")) {
      // [k1, k2] in array
      auto e = make(ExprKind::In, take().loc);
      do e->args.push_back(slice_key());
      while (accept_op(","));
      expect_op("]");
      if (!accept_kw("in")) fail("'in' after a key list");
      Token arr = expect_identifier("an array name");
      e->text = arr.text;
      e->loc = arr.loc;
      return e;
    }
    ExprPtr lhs = comparison();
    if (cur().is_kw("in")) {
      take();
      Token arr = expect_identifier("an array name");
      auto e = make(ExprKind::In, arr.loc);
      e->text = arr.text;
      e->args.push_back(std::move(lhs));
      return e;
    }
    return lhs;
  }

  ExprPtr comparison() {
    return left_assoc(ExprKind::Binary, {"==", "!=", "<=", ">=", "<", ">", "=~", "!~"},
                      &Parser::shift);
  }
  ExprPtr shift() { return left_assoc(ExprKind::Binary, {"<<", ">>"}, &Parser::concat); }
  ExprPtr concat() { return left_assoc(ExprKind::Binary, {"."}, &Parser::additive); }
  ExprPtr additive() { return left_assoc(ExprKind::Binary, {"+", "-"}, &Parser::multiplicative); }
  ExprPtr multiplicative() { return left_assoc(ExprKind::Binary, {"*", "/", "%"}, &Parser::unary); }

  ExprPtr unary() {
    Nesting nesting(*this);
    if (cur().is_op("&")) return dwarf_value();
    if (at_any_op({"-", "+", "!", "~"})) {
      Token tok = take();
      auto e = make(ExprKind::Unary, tok.loc);
      e->op = tok.is_op("-") ? Op::Neg : tok.is_op("+") ? Op::Plus : tok.is_op("!") ? Op::Not : Op::BitNot;
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

  static bool is_aggregate(const std::string &n) {
    for (const char *a : {"count", "sum", "min", "max", "avg", "variance", "hist_linear", "hist_log"})
      if (n == a) return true;
    return false;
  }

  // @op(stat) or @hist_linear(stat, lo, hi, step) / @hist_log(stat)
  ExprPtr aggregate(const Token &name) {
    auto e = make(ExprKind::Aggregate, name.loc);
    e->text = name.text.substr(1);
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
    if (e->text == "variance" && accept_op(",")) {
      // @variance(s, N): stap's bit shift for precision with small values.
      if (cur().kind != Tok::Number) fail("a bit shift (a number from 0 to 62)");
      auto n = make(ExprKind::Number, cur().loc);
      n->number = take().number;
      e->args.push_back(std::move(n));
    }
    if (e->text == "hist_linear") {
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
  ExprPtr defined(const Token &name) {
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
    if (entry) expect_op(")");
    expect_op(")");
    return e;
  }

  // @const("NAME"): a C constant or macro of the kernel, guru mode only.
  ExprPtr const_op(const Token &name) {
    if (!opts_.tapset && !opts_.guru)
      diags_.error("XTP1041", name.loc, "@const needs guru mode").hint = "run with -g: @const reads a C name";
    expect_op("(");
    if (cur().kind != Tok::String || cur().text.empty()) fail("a C name in quotes");
    auto e = make(ExprKind::EmbeddedC, name.loc);
    e->text = "/* pure */ (" + string_literal() + ")";
    expect_op(")");
    return e;
  }

  // @entry(expr): in a .return probe, expr's value when the function was
  // entered; pass 2 (expand_entry) arranges the saving and checks the probe.
  ExprPtr entry(const Token &name) {
    auto e = make(ExprKind::Entry, name.loc);
    expect_op("(");
    e->args.push_back(expression());
    expect_op(")");
    return e;
  }

  // @choose_defined(a, b): a where @defined(a), else b (stap's tapset
  // macro), as the conditional expression pass 2 folds per location.
  ExprPtr choose_defined(const Token &name) {
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
      if (cur().kind != Tok::Identifier && cur().kind != Tok::Keyword) fail("a member name after '->'");
      members.push_back({TargetComponent::Kind::Member, take().text, -1, loc});
    }
    // @defined of a plain value is 1: no choice to make.
    if (a->kind != ExprKind::Target && a->kind != ExprKind::Ternary) return with_members(std::move(a), members);
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
  ExprPtr with_members(ExprPtr v, const std::vector<TargetComponent> &members) {
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
  ExprPtr autocast(ExprPtr operand, bool address_of, Location loc) {
    auto e = make(ExprKind::Target, loc);
    e->target = std::make_unique<TargetRef>(TargetRef{.name = "@autocast", .address_of = address_of});
    e->args.push_back(std::move(operand));
    return e;
  }

  static bool is_target_head(const Token &t) {
    return t.kind == Tok::Identifier && (t.text[0] == '$' || t.text == "@cast" || t.text == "@var");
  }
  bool at_component() const {
    return cur().is_op("->") || cur().is_op("[") ||
           (cur().kind == Tok::Identifier && all_dollars(cur().text) && cur().text.size() <= 2);
  }

  // A value with stap's typed-pointer operators, which bind tighter than
  // any other: an optional `&`, then a target ($var, @cast, @var) with its
  // components, or any other value followed by `->member`, `[index]` or a
  // pretty-printing `$`/`$$` (an autocast).
  ExprPtr dwarf_value() {
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
  ExprPtr raw_access(const Token &name) {
    if (!opts_.guru && !opts_.tapset)
      diags_.error("XTP1043", name.loc, "'" + name.text + "' needs guru mode").hint =
          "run with -g: it reads raw memory or registers";
    auto e = make(ExprKind::Call, name.loc);
    e->text = name.text;
    const bool deref = name.text.ends_with("deref");
    expect_op("(");
    if (cur().kind != Tok::Number) fail(deref ? "a size in bytes (1, 2, 4 or 8)" : "a register number");
    e->args.push_back(value());
    if (deref) {
      expect_op(",");
      e->args.push_back(expression());
    }
    expect_op(")");
    return e;
  }

  static bool all_dollars(const std::string &s) {
    return !s.empty() && s.find_first_not_of('$') == std::string::npos;
  }

  // $name, @cast(ptr, "type"[, "module"]) or @var("name"), then `->member`
  // and `[index]` components, and an optional pretty-printing `$`/`$$`.
  ExprPtr target(const Token &head, bool address_of) {
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
      if (cur().kind != Tok::String) fail(name == "@cast" ? "a type name in quotes" : "a variable name in quotes");
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
  void components(Expr &e) {
    TargetRef &t = *e.target;
    while (!t.pretty) {
      if (cur().is_op("->")) {
        Location loc = take().loc;
        if (cur().kind != Tok::Identifier && cur().kind != Tok::Keyword) fail("a member name after '->'");
        std::string member = take().text;
        t.components.push_back({TargetComponent::Kind::Member, member, -1, loc});
      } else if (cur().is_op("[")) {
        Location loc = take().loc;
        e.args.push_back(expression());
        expect_op("]");
        t.components.push_back({TargetComponent::Kind::Index, "", static_cast<int>(e.args.size() - 1), loc});
      } else {
        break;
      }
    }
    // `$var->member$` lexes as member then "$": the pretty-printing suffix.
    if (!t.pretty && cur().kind == Tok::Identifier && all_dollars(cur().text) && cur().text.size() <= 2)
      t.pretty = static_cast<int>(take().text.size());
    if (t.pretty > 2) {
      diags_.error("XTP1023", e.loc, "'" + std::string(t.pretty, '$') + "' is not a pretty-printing suffix")
          .hint = "use $ (one level) or $$ (nested structures)";
      throw ParseError{};
    }
  }

  ExprPtr value() {
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
        diags_.error("XTP2271", e->loc,
                     "string literal of " + std::to_string(e->text.size()) + " bytes is longer than " +
                         std::to_string(kMaxStringLiteral) + ", the largest MAXSTRINGLEN")
            .hint = "no string of a running script can hold it: read the data at run time, or shorten it";
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
      if (name.text[0] == '$' || name.text == "@cast" || name.text == "@var") return target(name, false);
      if (name.text == "@kderef" || name.text == "@uderef" || name.text == "@kregister" || name.text == "@uregister")
        return raw_access(name);
      if (name.text[0] == '@') {
        diags_.error("XTP1022", name.loc, "unknown '@' operator '" + name.text + "'")
            .hint = "known: @count @sum @min @max @avg @variance @hist_linear @hist_log @defined @choose_defined @cast @var @entry "
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

  SourceFile &file_;
  Diagnostics &diags_;
  ParseOptions opts_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;                   // Nesting levels open now
  bool reported_too_deep_ = false;  // XTP2270 once per file
};

}  // namespace

void parse_into(Script &script, SourceFile &file, Diagnostics &diags, const PreprocessContext *ctx,
                const ParseOptions &opts) {
  static const PreprocessContext kDefault;
  Parser(file, diags, ctx ? *ctx : kDefault, opts).run(script);
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
