// procfs("name").read and procfs("name").write (procfs.read / procfs.write
// name the file "command", as in stap), each optionally followed by
// .umask(N) and .maxsize(N): a file under /proc/xtap/MODULE/ whose reads
// run the read probe (which sets the contents through $value) and whose
// writes run the write probe (which finds the bytes written in $value).
// The runtime side is runtime-kmod/probes/procfs.c.
//
// $value is no target variable of a location: derive() rewrites the
// probe's uses of it into calls of tapsets/procfs.stp, which reach the
// buffer of the run at hand.
#include "probes/provider.h"

namespace xtap {
namespace {

constexpr long long kDefaultReadSize = 0;  // 0: MAXSTRINGLEN, decided by the runtime limits
constexpr long long kMaxSize = 16 << 20;

class ProcfsProbe : public DerivedProbe {
 public:
  std::string file;
  bool is_write = false;
  long long maxsize = kDefaultReadSize;
  long long umask = 0;
};

ExprPtr call(const char *fn, const Location &loc) {
  auto c = std::make_unique<Expr>(ExprKind::Call, loc);
  c->text = fn;
  return c;
}

bool is_value(const Expr &e) {
  return e.kind == ExprKind::Target && e.target && e.target->name == "$value" &&
         e.target->components.empty() && !e.target->pretty && !e.target->address_of;
}

// As in stap, a read probe only fills $value and a write probe only reads
// what was written: the other direction has no buffer behind it.
void wrong_direction(const Expr &value, bool is_write, Diagnostics &diags) {
  diags
      .error("XTP2184", value.loc,
             is_write ? "$value is read-only in a procfs write probe"
                      : "$value cannot be read in a procfs read probe")
      .hint = is_write ? "a write probe receives the written text in $value"
                       : "a read probe sets the file's contents with $value = ... or $value .= ...";
}

// $value = e -> _xtap_procfs_set(e); $value .= e -> _xtap_procfs_append(e);
// other reads of $value -> _xtap_procfs_value().
void rewrite_value(ExprPtr &e, bool is_write, Diagnostics &diags) {
  // @defined($value): the probe has it, whatever the rewrite makes of it.
  if (e->kind == ExprKind::Defined && !e->args.empty() && is_value(*e->args[0])) {
    auto one = std::make_unique<Expr>(ExprKind::Number, e->loc);
    one->number = 1;
    e = std::move(one);
    return;
  }
  if (e->kind == ExprKind::Assign && is_value(*e->args[0]) && is_write) {
    wrong_direction(*e->args[0], is_write, diags);
    return;
  }
  if (e->kind == ExprKind::Assign && is_value(*e->args[0]) &&
      (e->op == Op::None || e->op == Op::Concat)) {
    auto c = call(e->op == Op::None ? "_xtap_procfs_set" : "_xtap_procfs_append", e->loc);
    c->args.push_back(std::move(e->args[1]));
    e = std::move(c);
  }
  for (auto &a : e->args) rewrite_value(a, is_write, diags);
  if (is_value(*e) && !is_write) return wrong_direction(*e, is_write, diags);
  if (is_value(*e)) e = call("_xtap_procfs_value", e->loc);
}

void rewrite_value(Stmt &s, bool is_write, Diagnostics &diags) {
  for (auto *e : s.operand_slots())
    if (*e) rewrite_value(*e, is_write, diags);
  for (auto &b : s.body) rewrite_value(*b, is_write, diags);
}

class ProcfsProvider : public ProbeProvider {
 public:
  std::vector<std::string> spellings() const override {
    return {"procfs(\"name\").read",
            "procfs(\"name\").write",
            "procfs.read",
            "procfs.write",
            "procfs(\"name\").read.maxsize(N)",
            "procfs(\"name\").umask(N).write"};
  }

  bool matches(const ProbePoint &pp) const override {
    return pp.components.front().name == "procfs";
  }

  void derive(const ProbePoint &pp, ProbeDecl &decl, const ProbeEnv &, DerivedProbes &out,
              Diagnostics &diags) const override {
    const auto &cs = pp.components;
    auto dp = std::make_unique<ProcfsProbe>();
    dp->file = "command";
    if (cs[0].has_arg) {
      if (!cs[0].arg_is_string)
        return bad(pp, cs[0].loc, "procfs takes a file name in quotes", diags);
      dp->file = cs[0].str_arg;
      if (dp->file.empty() || dp->file.find('/') != std::string::npos || dp->file == "." ||
          dp->file == ".." || dp->file.size() > 200)
        return bad(pp, cs[0].loc, "'" + dp->file + "' is not a file name for procfs", diags);
    }
    int ops = 0;
    for (size_t i = 1; i < cs.size(); ++i) {
      const auto &c = cs[i];
      if ((c.name == "read" || c.name == "write") && !c.has_arg) {
        ++ops;
        dp->is_write = c.name == "write";
      } else if ((c.name == "umask" || c.name == "maxsize") && c.has_arg && !c.arg_is_string) {
        long long lo = c.name == "umask" ? 0 : 1, hi = c.name == "umask" ? 0777 : kMaxSize;
        if (c.num_arg < lo || c.num_arg > hi)
          return bad(pp, c.loc,
                     c.name + "(" + std::to_string(c.num_arg) + ") is out of range (" +
                         std::to_string(lo) + " to " + std::to_string(hi) + ")",
                     diags);
        (c.name == "umask" ? dp->umask : dp->maxsize) = c.num_arg;
      } else {
        return bad(pp, c.loc, "unknown procfs probe point '" + pp.str() + "'", diags);
      }
    }
    if (ops != 1)
      return bad(pp, pp.loc, "a procfs probe needs exactly one of .read and .write", diags);
    rewrite_value(*decl.body, dp->is_write, diags);
    out.push_back(std::move(dp));
  }

  void emit(CWriter &w, const std::vector<const DerivedProbe *> &mine,
            ScriptTables &out) const override {
    if (mine.empty()) return;
    emit_probe_array(w, "xtap_procfs_probes", mine);
    w.open("static const struct xtap_procfs_spec xtap_procfs[] = {");
    for (size_t i = 0; i < mine.size(); ++i) {
      const auto &p = *static_cast<const ProcfsProbe *>(mine[i]);
      w.line("{ .probe = &xtap_procfs_probes[" + std::to_string(i) + "], .name = " +
             c_string_literal(p.file) + ", .is_write = " + (p.is_write ? "1" : "0") +
             ", .maxsize = " + std::to_string(p.maxsize) + ", .umask = " + std::to_string(p.umask) +
             " },");
    }
    w.close("};");
    out.groups.push_back(probe_group("xtap_procfs_ops_family", "xtap_procfs", mine.size()));
  }

 private:
  static void bad(const ProbePoint &, const Location &loc, const std::string &msg,
                  Diagnostics &diags) {
    diags.error("XTP2175", loc, msg).hint =
        "use procfs(\"name\").read or procfs(\"name\").write, optionally with .umask(N) and "
        ".maxsize(N); procfs.read and procfs.write name the file \"command\"";
  }
};

}  // namespace

const ProbeProvider *procfs_provider() {
  static ProcfsProvider p;
  return &p;
}

}  // namespace xtap
