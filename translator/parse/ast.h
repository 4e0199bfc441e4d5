// The abstract syntax tree of a script, with source locations on every node.
//
// Nodes are plain structs with a kind tag; passes switch on the kind. Types
// are filled in by the type pass (pass 2) and read by code generation.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diag/source.h"

namespace xtap {

enum class Type { Unknown, Long, String, Stat };
const char *type_name(Type t);
// A global's or function's name as the script wrote it: without the prefix
// a `private` declaration's name carries (parse/private_names.cpp).
std::string display_name(const std::string &name);

struct Builtin;
struct GlobalDecl;
struct LocalVar;
struct FunctionDecl;

// --------------------------------------------------------------- expressions

enum class ExprKind {
  Number,      // value
  String,      // text
  Var,         // name -> global or local
  Index,       // array[keys]
  Call,        // name(args)
  Unary,       // op operand: - ! ~ +
  Binary,      // lhs op rhs: arithmetic, bitwise, comparison, . (concat)
  Logical,     // && ||
  Ternary,     // cond ? a : b
  Assign,      // lvalue op rhs: = += -= ... .=
  IncDec,      // ++x x++ --x x--
  In,          // [keys] in array
  Aggregate,   // @count(s) ... : stat = the operation, args[0] = the statistic (Var or Index),
               // args[1..] = @hist_linear's lo, hi, step
  HistBucket,  // @hist_log(s)[i]: args[0] = the histogram (an Aggregate), args[1] = the
               // bucket number; its count. With text "in" (`i in @hist_log(s)`): whether
               // that count is not 0
  Target,      // $var, $$parms, @cast(e, "type"): `target` describes it; args = the @cast
               // operand (first) and the [index] expressions of its components
  Defined,     // @defined(target): args[0] the Target; pass 2 replaces it by 0 or 1
  Entry,       // @entry(e) in a .return probe: args[0] = e, evaluated at entry; pass 2
               // (expand_entry) replaces it by a value saved then
  Star,        // `*`, any key, in a slice: [k, *] in a, delete a[k, *], foreach (.. in a[k, *])
  EmbeddedC,   // %{ C expression %} (guru mode): text = the C; a long, or a string
               // when the C holds the /* string */ pragma
};

// What an operator does. Binary, Logical and Unary expressions carry their
// own; an Assign carries the operation it combines the old value with (None
// for `=`, Add for `+=`, Concat for `.=`, StatAdd for `<<<`); an IncDec
// carries Add (`++`) or Sub (`--`).
enum class Op {
  None,
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Shl,
  Shr,
  BitAnd,
  BitOr,
  BitXor,  // on longs
  Concat,  // .
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,  // on longs or strings
  Match,
  NoMatch,  // =~ !~
  And,
  Or,  // && ||
  Neg,
  Plus,
  Not,
  BitNot,   // unary - + ! ~
  StatAdd,  // <<<
};

// The operator's own token: "+" for Add, "=~" for Match, "-" for Neg, "" for None.
const char *op_token(Op op);
bool is_comparison(Op op);
// The binary (or logical) operator a token spells, or Op::None.
Op binary_op_of(const std::string &token);

// A statistic operation: the aggregate an Aggregate expression extracts
// (@count(s) ... @hist_log(s)), and what a foreach sorts a statistic by.
// Count..Variance read one number (the runtime's XTAP_OP_*); the
// histograms and @quantiles print; @percentile and @median read the
// statistic's sketch (runtime-kmod/stat_pct.c).
enum class StatOp {
  Count,
  Sum,
  Min,
  Max,
  Avg,
  Variance,
  HistLinear,
  HistLog,
  Percentile,
  Median,
  Quantiles
};

// Its name as written after the `@`: "count", "hist_linear".
const char *stat_op_name(StatOp op);
// The operation `name` ("sum") spells; false for none.
bool stat_op_of(const std::string &name, StatOp *op);
// What a foreach can sort a statistic by: @count, @sum, @min, @max, @avg.
bool stat_op_sorts(StatOp op);

struct TargetAccess;  // symbols/target_access.h: how pass 3 reads a target expression

// One `->member` or `[index]` after a target variable.
struct TargetComponent {
  enum class Kind { Member, Index } kind = Kind::Member;
  std::string member;  // Member
  int arg = -1;        // Index: its expression in Expr::args
  Location loc;
};

struct TargetRef {
  std::string name;       // "$prev", "$$parms", "@cast"
  std::string cast_type;  // @cast(ptr, "type"[, "module"])
  std::string cast_module;
  std::vector<TargetComponent> components;
  int pretty = 0;           // a trailing $ (1) or $$ (2): pretty-print as a string
  bool address_of = false;  // &$var->member
  // Pass 2: how to read it. Pretty-prints are rewritten into sprintf calls instead.
  std::shared_ptr<const TargetAccess> access;
  std::string spelling() const;  // as written, for messages: "$prev->pid"
};

struct Expr {
  ExprKind kind;
  Location loc;
  Type type = Type::Unknown;

  long long number = 0;
  std::string text;             // string literal, variable/function/array name
  Op op = Op::None;             // Unary, Binary, Logical, Assign, IncDec: see Op
  StatOp stat = StatOp::Count;  // Aggregate
  // Tables of the module (collect_tables): a Binary =~ or !~'s pattern's
  // index in Script::regexes; a printf's format's 1-based index in
  // Script::formats when the runner may format it from a binary record
  // (0: formatted in the kernel).
  int regex = -1;
  int format = 0;
  bool postfix = false;

  std::vector<std::unique_ptr<Expr>> args;  // operands, keys, call args
  // Resolution (pass 2): the variable or array this name refers to.
  GlobalDecl *global = nullptr;
  LocalVar *local = nullptr;
  FunctionDecl *function = nullptr;   // Call of a script function
  const Builtin *builtin = nullptr;   // Call of a builtin (builtins/builtins.h)
  std::unique_ptr<TargetRef> target;  // Target

  Expr(ExprKind k, Location l) : kind(k), loc(l) {}
  Expr *arg(size_t i) const { return args[i].get(); }
  std::string op_spelling() const;  // as written: "+=", "++", "<<<", "-"
};

using ExprPtr = std::unique_ptr<Expr>;

// @hist_log(...) or @hist_linear(...): an Aggregate whose value is a histogram.
bool is_histogram(const Expr &e);
// A histogram or @quantiles(s): text for print and sprint, not a value.
bool is_printed_aggregate(const Expr &e);
// @percentile, @median or @quantiles: reads the statistic's percentile sketch.
bool is_percentile(const Expr &e);

// --------------------------------------------------------------- statements

enum class StmtKind {
  Block,
  Expr,
  If,
  While,
  For,
  Foreach,
  Delete,
  Next,
  Break,
  Continue,
  Return,
  Empty,
  Try,  // body[0] try block, body[1] catch block; catch_clause: the message variable, if any
};

// What only a `foreach ([k1, k2] in array ...)` has. A payload per kind
// rather than a node class per kind: the statements share their operands
// (body, expr) and most passes walk every kind alike, so they keep one
// recursion over one struct and reach the payload only where they handle
// that kind.
struct ForeachData {
  std::vector<std::string> keys;
  std::vector<Location> key_locs;
  std::vector<LocalVar *> vars;
  std::string array;
  Location array_loc;
  // Stmt::expr: foreach (... in a[k, *]): the slice, an Index of the array
  // whose Star keys match any key; foreach ([i] in @hist_log(s)): the
  // histogram (an Aggregate), with `array` empty
  GlobalDecl *global = nullptr;
  std::string value;  // foreach (v = [k] in a): v
  Location value_loc;
  LocalVar *value_var = nullptr;
  int sort_column = -1;  // -1 unsorted, 0 by value, N by key N (1-based)
  bool sort_desc = false;
  // foreach (k in s @sum -): the aggregate to sort by; an `@name` that is
  // no statistic operation keeps its spelling for pass 2 to report.
  std::optional<StatOp> sort_stat;
  std::string sort_stat_unknown;
  std::unique_ptr<Expr> limit;  // foreach (... limit N)
};

// What only a `try { } catch (msg) { }` has.
struct CatchData {
  // The variable that receives the error message (empty: none).
  std::string var;
  Location var_loc;
  LocalVar *local = nullptr;
};

struct Stmt {
  StmtKind kind;
  Location loc;

  std::vector<std::unique_ptr<Stmt>> body;  // Block: statements; If: then[, else]; loops: [body]
  ExprPtr expr;                             // Expr/If/While cond/Delete target/Return value
  ExprPtr init, step;                       // For
  // The payload of its kind: set exactly when kind is Foreach or Try
  // (the constructor makes it), so a pass that switched on the kind
  // reads it without a test.
  std::unique_ptr<ForeachData> foreach;
  std::unique_ptr<CatchData> catch_clause;

  Stmt(StmtKind k, Location l);
  // foreach over a histogram's buckets rather than an array's entries.
  bool foreach_histogram() const {
    return kind == StmtKind::Foreach && expr && expr->kind == ExprKind::Aggregate;
  }
  // The expressions it evaluates, in the order expr, init, step, limit;
  // null where absent. For walkers that treat every kind alike.
  std::array<Expr *, 4> operands() const;
  // Their slots, for walkers that replace an operand: limit's only in a
  // foreach.
  std::vector<ExprPtr *> operand_slots();
};

using StmtPtr = std::unique_ptr<Stmt>;

// Deep copies (alias bodies are pasted into every probe that uses them).
// With `via`, the copies' locations remember that expansion.
ExprPtr clone(const Expr &e, const std::shared_ptr<const Expansion> &via = nullptr);
StmtPtr clone(const Stmt &s, const std::shared_ptr<const Expansion> &via = nullptr);

// --------------------------------------------------------------- declarations

struct LocalVar {
  std::string name;
  Location loc;
  Type type = Type::Unknown;
  Type declared = Type::Unknown;       // parameter annotation, as in f(x:string)
  bool read = false, written = false;  // for the unused-local warning
};

struct GlobalDecl {
  std::string name;
  Location loc;
  ExprPtr init;  // optional initializer (literal)
  long long max_entries = 0;
  bool wrap = false;  // `global a%`: when full, the oldest entry makes room
  Location wrap_loc;
  bool is_array = false;      // used with [..] anywhere
  int arity = -1;             // number of keys, once known
  Type type = Type::Unknown;  // scalar type or array value type
  std::vector<Type> key_types;
  bool read = false, written = false;  // usage, for locking and warnings
  // Statistics: the histogram all @hist_* uses agree on (runtime xtap_stat_desc).
  int hist = 0;  // 0 none, 1 linear, 2 log
  long long hist_lo = 0, hist_hi = 0, hist_step = 0;
  Location hist_loc;
  bool percentiles = false;    // @percentile/@median/@quantiles: keep a sketch
  int variance_shift = -1;     // @variance(s, N); -1: not given (0)
  bool uses_variance = false;  // some @variance reads it
  Location variance_loc;
  int index = 0;  // declaration order: lock table index
  bool from_tapset = false;
};

struct ProbePointComponent {
  std::string name;
  bool has_arg = false;
  bool arg_is_string = false;
  std::string str_arg;
  long long num_arg = 0;
  Location loc;
};

struct ProbePoint {
  std::vector<ProbePointComponent> components;
  Location loc;
  bool optional = false;  // pp? : skip silently if it cannot be resolved or registered
  bool sufficient =
      false;  // pp! : optional, and once it resolves the probe's later points are skipped
  // pp if (cond): this point's own condition, as in stap; pass 2
  // (expand_aliases) moves it into the probe's, splitting the probe.
  std::shared_ptr<const Expr> condition;
  // xtap's .budget(NS) as the point's last component, taken off it in pass
  // 2 (extract_budgets): handler ns per second per CPU; 0: none.
  unsigned long long budget_ns = 0;
  std::string str() const;  // canonical spelling, e.g. kprobe.function("x").return
};

// What probes and functions share: a body with its own locals, and the
// globals it uses (directly or through the functions it calls) for its lock set.
struct Body {
  StmtPtr body;
  Location loc;
  std::vector<std::unique_ptr<LocalVar>> locals;
  std::vector<GlobalDecl *> globals_read, globals_written;
  std::vector<FunctionDecl *> calls;             // script functions called directly
  std::vector<GlobalDecl *> globals_aggregated;  // only added to with <<< (shared lock)
};

struct ProbeDecl : Body {
  std::vector<ProbePoint> points;
  std::string
      alias;  // the probe alias the script's point named, as matched (syscall.openat), for -l/-L
  ExprPtr condition;  // probe ... if (cond): the body runs only while cond holds
  // @entry (pass 2, expand_entry): a .return probe and the probe synthesized
  // to save its @entry values share a non-zero group; the saving probe has
  // entry_half set, and for kretprobe points it runs from the kretprobe's
  // entry handler instead of being registered on its own.
  int entry_group = 0;
  bool entry_half = false;
  // Declared in a tapset file: it runs only when the script uses something
  // that file defines (prune_tapset_probes).
  bool from_tapset = false;
};

// probe NAME = points { prologue }  /  probe NAME += points { epilogue }
// probe NAME = points { prologue }, { epilogue }
struct AliasDecl {
  ProbePoint name;
  std::vector<ProbePoint> points;
  StmtPtr body;
  StmtPtr epilogue_body;  // the second body of `= points { }, { }`, or null
  bool epilogue = false;
  Location loc;
  bool from_tapset = false;
};

struct FunctionDecl : Body {
  std::string name;
  std::vector<LocalVar *> params;        // owned by locals, first in order
  Type declared_return = Type::Unknown;  // from `function f:long(...)`
  Type return_type = Type::Unknown;
  bool returns_value = false;  // has a `return expr`
  int index = 0;
  int overload = 0;  // f(a) and f(a, b): 0 for the first, then 1, 2 ...
  // Run-time overloading, as in stap: functions of one name and arity form
  // a chain ordered by priority (`function f():N`; script 0, tapsets 1),
  // then declaration. Calls go to the head; `next` (STAP_NEXT in C) passes
  // the call's arguments on to the next one (link_overloads).
  int priority = 0;
  FunctionDecl *next_overload = nullptr;
  bool overload_tail = false;  // not the head: calls never name it
  bool from_tapset = false;
  bool embedded = false;  // body is C: `function f:long(x:long) %{ ... %}`
  std::string embedded_c;
  // Whether the body can hand its call on to next_overload: `next` in a
  // script body, STAP_NEXT in embedded C.
  bool passes_on() const;
};

// A statement of the script's own code that pass 2 dropped as without
// effect (elide_pure_code), kept so that the uses of names in it are still
// checked, as stap resolves names before its optimizer drops anything
// (check_dropped_code). `params`: those of the function it was in.
struct DroppedStmt {
  StmtPtr stmt;
  std::vector<std::string> params;
};

struct Script {
  SourceFile *file = nullptr;
  std::vector<std::unique_ptr<SourceFile>> tapset_files;  // kept alive for locations
  std::vector<std::string>
      pruned_functions;  // tapset functions dropped as unused (for suggestions)
  std::vector<std::unique_ptr<GlobalDecl>> globals;
  std::vector<std::unique_ptr<ProbeDecl>> probes;
  std::vector<std::unique_ptr<FunctionDecl>> functions;
  std::vector<std::unique_ptr<AliasDecl>> aliases;
  std::vector<std::string> regexes;  // =~ patterns (Expr::regex)
  // printf formats the runner may format from binary records (no %m/%M;
  // Expr::format).
  std::vector<std::string> formats;
  std::vector<std::string> embedded_c;  // top-level %{ %} blocks (guru mode, tapsets)
  bool guru = false;                    // -g: target variables may be assigned
  std::vector<DroppedStmt> dropped;     // pass 2: code dropped unchecked (DroppedStmt)
  int private_files = 0;  // files with private declarations so far (parse/private_names.cpp)

  GlobalDecl *find_global(const std::string &name) const;
  FunctionDecl *find_function(const std::string &name) const;  // the first of that name
  FunctionDecl *find_function(const std::string &name, size_t arity) const;
  // The functions a call of `name` with `arity` arguments may run first:
  // the head of that arity's overload chain, or, when no function of the
  // name has that arity, all of them (the call is then reported with the
  // arities there are). The rest of a chain runs only through `next`
  // (FunctionDecl::passes_on).
  std::vector<FunctionDecl *> call_targets(const std::string &name, size_t arity) const;
};

}  // namespace xtap
