// Pass 1's recursive-descent parser, shared by its two halves: parser.cpp
// (declarations, probe points, statements) and parser_expressions.cpp
// (expressions, targets, @-operators). Private to translator/parse.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parse/parser.h"

namespace xtap::parse_internal {

struct ParseError {};  // unwinds to the nearest recovery point

// How many declarations of each kind a script had before a file was parsed
// into it: the file's own are those after (private_names.cpp).
struct FileDecls {
  size_t globals, probes, functions, aliases;
};
FileDecls count_decls(const Script &s);
std::string private_prefix(int file);
// Renames the uses of the file's private names (declared -> mangled) in
// the declarations the file added to `s`.
void hide_private_names(Script &s, const FileDecls &before,
                        const std::map<std::string, std::string> &names);

// How deep statements and expressions may nest (counting each recursive
// step of the parser: a parenthesis costs about three). Every later pass
// walks the tree recursively, so this bounds their stack too; scripts
// people write stay far below it.
inline constexpr int kMaxSyntaxDepth = 1000;
// The longest string literal (after adjacent literals are joined): the
// largest MAXSTRINGLEN a module can be built with (codegen/module.cpp).
inline constexpr size_t kMaxStringLiteral = 65536;

class Parser {
 public:
  Parser(SourceFile &file, Diagnostics &diags, const PreprocessContext &ctx,
         const ParseOptions &opts)
      : file_(file), diags_(diags), opts_(opts) {
    toks_ = preprocess(lex(file, diags), ctx, diags);
  }

  void run(Script &script);

 private:
  // ------------------------------------------------------------ tokens
  const Token &cur() const { return toks_[pos_]; }
  const Token &peek(size_t k = 1) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
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
  static std::string describe(const Token &t);
  // Counts one level of nesting for as long as it lives; past
  // kMaxSyntaxDepth the script is refused (once) rather than left to
  // overflow the stack of this or a later pass.
  class Nesting {
   public:
    Nesting(Parser &p, int levels = 1) : p_(p), levels_(levels) {
      if (p_.depth_ + levels_ > kMaxSyntaxDepth)
        p_.too_deep();  // before counting: no destructor runs
      p_.depth_ += levels_;
    }
    ~Nesting() { p_.depth_ -= levels_; }
    Nesting(const Nesting &) = delete;
    Nesting &operator=(const Nesting &) = delete;

   private:
    Parser &p_;
    int levels_;
  };
  [[noreturn]] void too_deep();
  [[noreturn]] void fail(const std::string &expected, const char *hint = nullptr) {
    auto &d =
        diags_.error("XTP1010", cur().loc, "expected " + expected + ", found " + describe(cur()));
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
  Token expect_identifier(const char *what);

  void recover_top_level();

  // ------------------------------------------------------------ top level
  // Embedded C is for tapsets and guru mode (-g) only.
  void check_embedded(const Token &t) {
    if (opts_.tapset || opts_.guru) return;
    diags_.error("XTP1041", t.loc, "embedded C code needs guru mode").hint =
        "run with -g if you trust this C code to run in the kernel";
  }

  void top_level(Script &s);

  void global_decl(Script &s);

  void probe_decl(Script &s);

  void alias_decl(Script &s, ProbePoint name, Location loc);

  Type type_annotation();

  void function_decl(Script &s);

  static void append(std::vector<ProbePoint> &to, std::vector<ProbePoint> from) {
    for (auto &pp : from) to.push_back(std::move(pp));
  }

  ProbePointComponent probe_component();

  // A probe point, or several when it holds alternatives in braces, as in
  // kernel.{trace("a")!, function("b")}: one point per alternative, each
  // with its own ? or !, and the ? or ! after the whole to all of them.
  std::vector<ProbePoint> probe_points();

  // ------------------------------------------------------------ statements
  StmtPtr block();

  StmtPtr statement();

  StmtPtr simple(StmtKind k, Location loc) {
    accept_op(";");
    return std::make_unique<Stmt>(k, loc);
  }

  // foreach ([v =] [k1[+-], k2...] in array [@op] [+-] [limit N]) statement
  StmtPtr foreach_stmt(const Location &loc);

  // ------------------------------------------------------------ expressions
  ExprPtr make(ExprKind k, Location l) { return std::make_unique<Expr>(k, l); }
  ExprPtr binary(ExprKind k, Op op, const Token &tok, ExprPtr l, ExprPtr r);
  bool at_any_op(std::initializer_list<const char *> ops) const {
    for (const char *o : ops)
      if (cur().is_op(o)) return true;
    return false;
  }

  ExprPtr expression() { return assignment(); }

  ExprPtr assignment();

  ExprPtr ternary();

  template <typename Next>
  ExprPtr left_assoc(ExprKind kind, std::initializer_list<const char *> ops, Next next);

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
  ExprPtr index_keys(const Token &name);

  ExprPtr array_in();

  ExprPtr comparison() {
    return left_assoc(ExprKind::Binary, {"==", "!=", "<=", ">=", "<", ">", "=~", "!~"},
                      &Parser::shift);
  }
  ExprPtr shift() { return left_assoc(ExprKind::Binary, {"<<", ">>"}, &Parser::concat); }
  ExprPtr concat() { return left_assoc(ExprKind::Binary, {"."}, &Parser::additive); }
  ExprPtr additive() { return left_assoc(ExprKind::Binary, {"+", "-"}, &Parser::multiplicative); }
  ExprPtr multiplicative() { return left_assoc(ExprKind::Binary, {"*", "/", "%"}, &Parser::unary); }

  ExprPtr unary();

  static bool is_aggregate(const std::string &n) {
    StatOp op;
    return stat_op_of(n, &op);
  }

  // @op(stat) or @hist_linear(stat, lo, hi, step) / @hist_log(stat), and a
  // histogram's bucket: @hist_log(stat)[i]
  ExprPtr aggregate(const Token &name);
  // The aggregate alone, without a bucket index.
  ExprPtr aggregate_call(const Token &name);
  bool at_histogram() const {
    return cur().kind == Tok::Identifier &&
           (cur().text == "@hist_log" || cur().text == "@hist_linear");
  }
  ExprPtr bucket_in(std::vector<ExprPtr> keys);

  // @defined(target): whether the probe has that target variable (or the
  // @cast type that member); pass 2 decides, per probe location.
  ExprPtr defined(const Token &name);

  // @const("NAME"): a C constant or macro of the kernel, guru mode only.
  ExprPtr const_op(const Token &name);

  // @entry(expr): in a .return probe, expr's value when the function was
  // entered; pass 2 (expand_entry) arranges the saving and checks the probe.
  ExprPtr entry(const Token &name);

  // @probewrite(var): whether the probe using an alias writes var.
  ExprPtr probewrite(const Token &name);

  // @choose_defined(a, b): a where @defined(a), else b (stap's tapset
  // macro), as the conditional expression pass 2 folds per location.
  ExprPtr choose_defined(const Token &name);

  // `v` with `members` appended: to a target's components, to both sides
  // of a choice, or as an autocast of any other value.
  ExprPtr with_members(ExprPtr v, const std::vector<TargetComponent> &members);

  // An "@autocast" target: `->member`, `[index]` and `&` applied to a value
  // that is no target variable (a local, a call, a parenthesized
  // expression): pass 2 takes the C type from where the value comes from.
  ExprPtr autocast(ExprPtr operand, bool address_of, Location loc);

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
  ExprPtr dwarf_value();

  // @kderef(size, addr) / @uderef(size, addr): `size` bytes of kernel or
  // user memory; @kregister(n) / @uregister(n): register n (DWARF's
  // numbering). Guru mode, as in stap; pass 2 turns them into reads.
  ExprPtr raw_access(const Token &name);

  static bool all_dollars(const std::string &s) {
    return !s.empty() && s.find_first_not_of('$') == std::string::npos;
  }

  // $name, @cast(ptr, "type"[, "module"]) or @var("name"), then `->member`
  // and `[index]` components, and an optional pretty-printing `$`/`$$`.
  ExprPtr target(const Token &head, bool address_of);

  // A target's `->member` and `[index]` components, and an optional
  // pretty-printing `$`/`$$`.
  void components(Expr &e);

  ExprPtr value();

  SourceFile &file_;
  Diagnostics &diags_;
  ParseOptions opts_;
  std::vector<Token> toks_;
  size_t pos_ = 0;
  int depth_ = 0;         // Nesting levels open now
  FileDecls before_{};    // the script's declarations before this file
  bool private_ = false;  // parsing a `private` declaration
  bool declared_here(const Script &s, const std::string &name) const;  // a plain global
  int private_file_ = 0;  // this file's number in private names (0: none yet)
  std::map<std::string, std::string> private_names_;  // declared name -> its name in the AST
  // A private declaration's name in the AST: `name` with a prefix unique to
  // this file, so that other files do not see it (and may reuse the name).
  std::string private_name(Script &s, const std::string &name);
  bool reported_too_deep_ = false;  // XTP2270 once per file
};

}  // namespace xtap::parse_internal
