// The script generator (script_gen.h): globals, functions and probes
// first, then bodies whose every expression has a known type, so that
// pass 2's type inference agrees with the generator's.
#include "script_gen.h"

#include <algorithm>
#include <set>
#include <vector>

#include "script_gen_impl.h"

namespace xtap::fuzz {

uint64_t Rng::next() {
  // splitmix64: small, fast and the same on every platform.
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string Gen::name(const std::string &base) { return opts.prefix + base; }

std::string Gen::ty_name(Ty t) { return t == Ty::Long ? "long" : "string"; }

// Integer literals, with the forms the lexer reads: decimal, hex, octal,
// negative, the extremes.
std::string Gen::long_lit() {
  switch (rng.below(10)) {
    case 0: return "0x" + std::to_string(rng.below(0x1000));
    case 1: return "0" + std::to_string(rng.below(8)) + std::to_string(rng.below(8));
    case 2: return rng.chance(50) ? "9223372036854775807" : "-9223372036854775807";
    case 3: return "-" + std::to_string(rng.below(100));
    default: return std::to_string(rng.below(rng.chance(70) ? 20 : 100000));
  }
}

// String literals with the escapes stap knows.
std::string Gen::str_lit() {
  static const char *words[] = {"",    "a",   "xtap", "hello world", "\\n", "\\t",   "tab\\there",
                                "%d",  "%%",  "\\\"", "\\\\",        "é",   "\\x41", "\\101",
                                "abc", "key", "0",    "-1",          " ",   "z\\r"};
  std::string s = "\"";
  int n = 1 + rng.below(2);
  for (int i = 0; i < n; ++i) s += words[rng.below(std::size(words))];
  return s + "\"";
}

std::string Gen::lit(Ty t) { return t == Ty::Long ? long_lit() : str_lit(); }

// ---- declarations -------------------------------------------------------

void Gen::declare_globals() {
  int n = rng.below(6);
  for (int i = 0; i < n; ++i) {
    Var v{name("g" + std::to_string(i)), rng.chance(60) ? Ty::Long : Ty::Str};
    std::string init = rng.chance(40) ? " = " + lit(v.ty) : "";
    out += "global " + v.name + init + "\n";
    gscalars.push_back(v);
  }
  n = rng.below(5);
  for (int i = 0; i < n; ++i) {
    Arr a;
    a.name = name("a" + std::to_string(i));
    int nk = 1 + (rng.chance(30) ? rng.below(4) : 0);
    for (int k = 0; k < nk; ++k) a.keys.push_back(rng.chance(60) ? Ty::Long : Ty::Str);
    a.val = rng.chance(60) ? Ty::Long : Ty::Str;
    std::string size = rng.chance(30) ? "[" + std::to_string(1 + rng.below(5000)) + "]" : "";
    std::string wrap = rng.chance(15) ? "%" : "";
    out += "global " + a.name + wrap + size + "\n";
    arrays.push_back(a);
  }
  n = rng.below(4);
  for (int i = 0; i < n; ++i) {
    Stat s;
    s.name = name("s" + std::to_string(i));
    s.keys = rng.chance(50) ? 0 : 1 + rng.below(2);
    s.lo = static_cast<int>(rng.below(10));
    s.hi = s.lo + 10 + static_cast<int>(rng.below(1000));
    s.step = 1 + static_cast<int>(rng.below(50));
    s.linear = rng.chance(40);
    out += "global " + s.name + (rng.chance(20) ? "[1000]" : "") + "\n";
    stats.push_back(s);
  }
}

void Gen::declare_functions() {
  int n = rng.below(4);
  for (int i = 0; i < n; ++i) {
    Func f;
    f.name = name("f" + std::to_string(i));
    int np = rng.below(4);
    for (int k = 0; k < np; ++k) f.params.push_back(rng.chance(60) ? Ty::Long : Ty::Str);
    f.ret = rng.chance(60) ? Ty::Long : Ty::Str;
    f.overloads = rng.chance(20) ? 2 : 1;
    funcs.push_back(f);
  }
  // Bodies after all signatures, so that functions call each other (and
  // themselves: recursion bounded by a depth parameter).
  for (size_t i = 0; i < funcs.size(); ++i)
    for (int o = 0; o < funcs[i].overloads; ++o) emit_function(funcs[i], o);
}

void Gen::emit_function(const Func &f, int overload) {
  Body b;
  b.in_function = true;
  b.ret = f.ret;
  std::string sig = "function " + f.name;
  if (rng.chance(50)) sig += ":" + ty_name(f.ret);
  sig += "(";
  for (size_t k = 0; k < f.params.size(); ++k) {
    std::string p = "p" + std::to_string(k);
    b.locals.push_back({p, f.params[k]});
    sig += (k ? ", " : "") + p + (rng.chance(50) ? ":" + ty_name(f.params[k]) : "");
  }
  sig += ")";
  body = b;
  std::string text = sig + " {\n";
  // An overload other than the last one passes to the next with `next`.
  if (f.overloads > 1 && overload == 0) text += "  if (" + expr(Ty::Long, 2) + ") next\n";
  text += stmts(1, 1 + rng.below(4));
  text += "  return " + expr(f.ret, 2) + "\n}\n";
  out += text;
}

// ---- probes -------------------------------------------------------------

void Gen::emit_probes() {
  // Every array and statistic gets a value with literal keys once: their
  // key types are then known even when the random code never writes them.
  std::string init;
  for (const auto &a : arrays) {
    init += "  " + a.name + "[";
    for (size_t i = 0; i < a.keys.size(); ++i) init += (i ? ", " : "") + lit(a.keys[i]);
    init += "] = " + lit(a.val) + "\n";
  }
  for (const auto &st : stats) {
    init += "  " + st.name;
    if (st.keys) {
      init += "[";
      for (unsigned i = 0; i < st.keys; ++i) init += (i ? ", " : "") + long_lit();
      init += "]";
    }
    init += " <<< " + long_lit() + "\n";
  }
  if (!init.empty()) out += "probe begin {\n" + init + "}\n";
  // Most scripts small (more of them per second), some large.
  int n = 1 + rng.below(small ? 2 : 4);
  for (int i = 0; i < n; ++i) emit_probe();
  // Every global is read at the end with its type: pass 2 then always
  // infers it, and the printing code of every kind is generated.
  body = Body{};
  std::string text = "probe end {\n";
  for (const auto &v : gscalars)
    text +=
        std::string("  printf(\"") + (v.ty == Ty::Long ? "%d" : "%s") + "\\n\", " + v.name + ")\n";
  for (const auto &a : arrays) text += "  " + foreach_stmt(a, 1, true);
  for (const auto &s : stats) text += "  " + stat_dump(s);
  out += text + "}\n";
}

void Gen::emit_probe() {
  body = Body{};
  body.point = pick_point();
  std::string point = body.point.text;
  // Alternatives and optional points: `?` marks an optional one, `!` stops
  // at the first that resolves.
  if (rng.chance(10)) point = "kernel.trace(\"no_such_tracepoint\") ?, " + point;
  if (rng.chance(5)) point = "kernel.trace(\"no_such_tp\") !, " + point;
  std::string cond = rng.chance(8) && !gscalars.empty() ? " if (" + cond_expr() + ")" : "";
  out += "probe " + point + cond + " {\n" + stmts(1, 1 + rng.below(small ? 3 : 6)) + "}\n";
}

// A global scalar of type long for a probe condition.
std::string Gen::cond_expr() {
  for (const auto &v : gscalars)
    if (v.ty == Ty::Long) return v.name + " >= 0";
  return "1";
}

Point Gen::pick_point() {
  static const std::vector<Point> points = {
      {"begin", Ctx::None},
      {"begin(-1)", Ctx::None},
      {"end", Ctx::None},
      {"timer.ms(100)", Ctx::None},
      {"timer.s(1)", Ctx::None},
      {"timer.jiffies(10).randomize(2)", Ctx::None},
      {"timer.profile", Ctx::None},
      {"kernel.trace(\"sched_switch\")", Ctx::SchedSwitch},
      {"kernel.trace(\"sched:sched_switch\")", Ctx::SchedSwitch},
      {"kernel.trace(\"sched:sched_process_exec\")", Ctx::SchedExec},
      {"kernel.trace(\"sched:sched_process_f*\")", Ctx::SchedFork},
      {"kernel.trace(\"raw_syscalls:sys_enter\")", Ctx::SysEnter},
      {"procfs(\"xtapfuzz\").read", Ctx::ProcfsRead},
      {"procfs(\"xtapfuzz\").write", Ctx::ProcfsWrite},
      {"process(\"/bin/sh\").begin", Ctx::None},
      {"process(\"/bin/sh\").end", Ctx::None},
  };
  static const std::vector<Point> tapset_points = {
      {"syscall.openat", Ctx::SyscallOpenat},
      {"syscall.openat.return", Ctx::SyscallReturn},
      {"syscall.getppid", Ctx::None},
  };
  // kernel.function needs the kernel's BTF or DWARF: not in every build.
  static const std::vector<Point> kfunc_points = {
      {"kernel.function(\"vfs_read\")", Ctx::VfsRead},
      {"kernel.function(\"vfs_read\").return", Ctx::VfsReadReturn},
      {"kernel.function(\"vfs_re*\").call", Ctx::None},
  };
  if (opts.tapsets && rng.chance(30)) return tapset_points[rng.below(tapset_points.size())];
  if (opts.kernel_functions && rng.chance(20)) return kfunc_points[rng.below(kfunc_points.size())];
  Point p = points[rng.below(points.size())];
  // One procfs file per script and per mode: two .read probes on one file are an error.
  if (p.ctx == Ctx::ProcfsRead || p.ctx == Ctx::ProcfsWrite) {
    std::string file = "\"" + name("xtapfuzz") + (p.ctx == Ctx::ProcfsRead ? "r" : "w") + "\"";
    if (!procfs_used.insert(file).second) return points[0];
    p.text = "procfs(" + file + (p.ctx == Ctx::ProcfsRead ? ").read" : ").write");
  }
  return p;
}

// The context variables of the probe's point, as (expression, type) pairs.
std::vector<std::pair<std::string, Ty>> Gen::context_vars() {
  switch (body.point.ctx) {
    case Ctx::SchedSwitch:
      return {{"$prev->pid", Ty::Long},
              {"$next->tgid", Ty::Long},
              {"$prev_state", Ty::Long},
              {"$next->prio", Ty::Long},
              {"kernel_string($prev->comm)", Ty::Str},
              {"$preempt", Ty::Long},
              {"$next->se->vruntime", Ty::Long},
              {"@defined($prev->mm) ? 1 : 0", Ty::Long},
              {"$prev$", Ty::Str},
              {"$$parms", Ty::Str}};
    case Ctx::SchedExec:
      return {{"$p->pid", Ty::Long}, {"$old_pid", Ty::Long}, {"$bprm->filename", Ty::Long}};
    case Ctx::SchedFork: return {{"@defined($p) ? 1 : 2", Ty::Long}, {"$$name", Ty::Str}};
    case Ctx::SysEnter: return {{"$id", Ty::Long}, {"$regs->di", Ty::Long}};
    case Ctx::VfsRead:
      return {{"$count", Ty::Long},
              {"$file->f_flags", Ty::Long},
              {"$file->f_pos", Ty::Long},
              {"@defined($nosuchvar) ? $nosuchvar : 7", Ty::Long},
              {"@cast($file, \"file\")->f_flags", Ty::Long},
              {"$$parms$", Ty::Str}};
    case Ctx::VfsReadReturn:
      return {
          {"$return", Ty::Long}, {"@entry($count)", Ty::Long}, {"@entry($file->f_pos)", Ty::Long}};
    case Ctx::ProcfsWrite: return {{"$value", Ty::Str}};
    case Ctx::SyscallOpenat: return {{"filename", Ty::Str}, {"flags", Ty::Long}, {"dfd", Ty::Long}};
    case Ctx::SyscallReturn: return {{"retval", Ty::Long}, {"retstr", Ty::Str}};
    default: return {};
  }
}

std::string Gen::script() {
  small = rng.chance(70);
  if (rng.chance(15)) out += preprocessor_head();
  declare_globals();
  declare_functions();
  emit_probes();
  if (opts.near_miss_one_in && rng.below(opts.near_miss_one_in) == 0) near_miss();
  return out;
}

// The preprocessor's conditionals around a probe: kernel version, arch,
// CONFIG_ options, script arguments, macros.
std::string Gen::preprocessor_head() {
  static const char *conds[] = {
      "kernel_v >= \"5.0\"", "arch == \"x86_64\"",      "CONFIG_SMP == \"y\"",   "$# >= 1",
      "kernel_vr != \"1\"",  "CONFIG_NO_SUCH == \"y\"", "systemtap_v >= \"4.0\""};
  std::string c = conds[rng.below(std::size(conds))];
  std::string m = name("M");
  return "@define " + m + "(x) %( @x + 1 %)\n%( " + c + " %? probe begin { println(@" + m +
         "(1)) } %: probe begin { println(2) } %)\n";
}

// A deliberate near-miss: a small, local change that makes the script
// wrong in one way pass 1 or 2 must diagnose.
void Gen::near_miss() {
  switch (rng.below(6)) {
    case 0: out += "probe begin { x = 1; x = \"s\" }\n"; break;
    case 1: out += "probe begin { println(no_such_function(1)) }\n"; break;
    case 2: out += "probe begin { printf(\"%d %s\\n\", \"a\", 1) }\n"; break;
    case 3:
      if (!out.empty()) out.erase(out.size() / 2 + rng.below(out.size() / 2 + 1), 1);
      break;
    case 4: out += "probe kernel.trace(\"sched_switch\") { println($no_such_arg) }\n"; break;
    default: out += "probe begin { foreach (k in nosuch) println(k) }\n"; break;
  }
}

std::string generate_script(uint64_t seed, const GenOptions &opts) {
  Gen g(seed, opts);
  return g.script();
}

}  // namespace xtap::fuzz
