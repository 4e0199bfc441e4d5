// The generator's state, shared by script_gen.cpp (declarations, probes)
// and script_gen_body.cpp (statements and expressions).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "script_gen.h"

namespace xtap::fuzz {

struct Rng {
  uint64_t state;
  uint64_t next();
  unsigned below(size_t n) { return n ? static_cast<unsigned>(next() % n) : 0; }
  bool chance(unsigned pct) { return below(100) < pct; }
};

enum class Ty { Long, Str };

struct Var {
  std::string name;
  Ty ty;
};

struct Arr {
  std::string name;
  std::vector<Ty> keys;
  Ty val = Ty::Long;
};

// A statistic: a scalar (keys == 0) or an array of them, with the one
// @hist_linear shape it is printed with.
struct Stat {
  std::string name;
  unsigned keys = 0;
  int lo = 0, hi = 100, step = 10;
  bool linear = false;  // printed with @hist_linear, else with @hist_log (one kind per statistic)
};

struct Func {
  std::string name;
  std::vector<Ty> params;
  Ty ret = Ty::Long;
  int overloads = 1;
};

// What a probe's context offers.
enum class Ctx {
  None,
  SchedSwitch,
  SchedExec,
  SchedFork,
  SysEnter,
  VfsRead,
  VfsReadReturn,
  ProcfsRead,
  ProcfsWrite,
  SyscallOpenat,
  SyscallReturn
};

struct Point {
  std::string text;
  Ctx ctx = Ctx::None;
};

// The body being written: its locals (function-wide, as in stap), loops,
// and the arrays a foreach walks (no writes to those in its body).
struct Body {
  std::vector<Var> locals;
  bool in_function = false;
  Ty ret = Ty::Long;
  Point point;
  int loop_depth = 0;
  int try_depth = 0;
  std::vector<std::string> walked;
  int counter = 0;  // fresh local names
};

class Gen {
 public:
  Gen(uint64_t seed, const GenOptions &o) : rng{seed * 0x2545f4914f6cdd1dull + 1}, opts(o) {}
  std::string script();

 private:
  Rng rng;
  GenOptions opts;
  std::string out;
  std::vector<Var> gscalars;
  std::vector<Arr> arrays;
  std::vector<Stat> stats;
  std::vector<Func> funcs;
  std::set<std::string> procfs_used;
  Body body;
  bool small = false;  // a small script: fewer probes and statements

  std::string name(const std::string &base);
  static std::string ty_name(Ty t);
  std::string long_lit();
  std::string str_lit();
  std::string lit(Ty t);

  void declare_globals();
  void declare_functions();
  void emit_function(const Func &f, int overload);
  void emit_probes();
  void emit_probe();
  std::string cond_expr();
  Point pick_point();
  std::vector<std::pair<std::string, Ty>> context_vars();
  std::string preprocessor_head();
  void near_miss();

  // script_gen_body.cpp
  std::string stmts(int indent, int n);
  std::string stmt(int indent, int depth);
  std::string assign_stmt();
  std::string array_write();
  std::string stat_write();
  std::string print_stmt();
  std::string printf_call(bool to_string);
  std::string foreach_stmt(const Arr &a, int indent, bool dump);
  std::string stat_foreach(const Stat &s, int indent);
  std::string stat_dump(const Stat &s);
  std::string delete_stmt();
  std::string try_stmt(int indent, int depth);
  std::string loop_stmt(int indent, int depth);
  std::string expr(Ty t, int depth);
  std::string long_expr(int depth);
  std::string str_expr(int depth);
  std::string stat_op(int depth);
  std::string stat_ref(const Stat &s, int depth);
  std::string keys_of(const std::vector<Ty> &keys, int depth);
  std::string call(Ty t, int depth);
  std::string tapset_call(Ty t, int depth);
  std::string var_of(Ty t, bool writable);
  std::string new_local(Ty t);
  bool walked(const std::string &a) const;
};

}  // namespace xtap::fuzz
