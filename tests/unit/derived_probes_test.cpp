// resolve_probes and resolve_targets on inline scripts against the test catalog: probe points
// expanded into derived probes, context variables typed per location, and
// target expressions walked into reads (symbols/target_access).
#include <gtest/gtest.h>

#include <set>

#include "codegen/module.h"
#include "helpers.h"
#include "symbols/target_access.h"

namespace xtap {
namespace {

std::vector<std::string> names(const test::Run &r) {
  std::vector<std::string> out;
  for (const auto &dp : r.elab.probes) out.push_back(dp->name());
  return out;
}

// The first target expression of the first probe's body.
const Expr *first_target(const Expr &e) {
  if (e.kind == ExprKind::Target) return &e;
  for (const auto &a : e.args)
    if (const Expr *t = first_target(*a)) return t;
  return nullptr;
}

const Expr *first_target(const Stmt &s) {
  for (const auto *e : {s.expr.get(), s.init.get(), s.step.get()})
    if (e)
      if (const Expr *t = first_target(*e)) return t;
  for (const auto &b : s.body)
    if (const Expr *t = first_target(*b)) return t;
  return nullptr;
}

// The access program of `expr` read in a sched_switch probe, as text:
// "off 32, off 8, load 8u".
std::string access_of(const std::string &expr) {
  auto r = test::run("probe kernel.trace(\"sched_switch\") { x = " + expr + "; print(x) }");
  EXPECT_TRUE(r->ok) << r->printed();
  if (!r->ok) return "";
  const Expr *t = first_target(*r->script->probes[0]->body);
  if (!t || !t->target->access) return "no access";
  std::string s;
  for (const auto &op : t->target->access->ops) {
    if (!s.empty()) s += ", ";
    switch (op.kind) {
      case AccessOp::Kind::Offset: s += "off " + std::to_string(op.offset); break;
      case AccessOp::Kind::Index: s += "index*" + std::to_string(op.size); break;
      case AccessOp::Kind::Load:
        s += "load " + std::to_string(op.size) + (op.is_signed ? "s" : "u");
        if (op.bit_size)
          s += " bits " + std::to_string(op.bit_offset) + "+" + std::to_string(op.bit_size);
        break;
    }
  }
  return s;
}

TEST(DerivedProbes, AWildcardExpandsToOneProbePerTracepoint) {
  auto r = test::run("probe kernel.trace(\"sched:sched_process_*\") { }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(names(*r), (std::vector<std::string>{"kernel.trace(\"sched:sched_process_exec\")",
                                                 "kernel.trace(\"sched:sched_process_fork\")",
                                                 "kernel.trace(\"sched:sched_process_exit\")"}));
  // A body without target variables is one handler for all of them.
  EXPECT_EQ(r->script->probes.size(), 1u);
}

TEST(DerivedProbes, ABodyReadingTargetVariablesIsSplitPerLocation) {
  auto r = test::run(
      "probe kernel.trace(\"sched:sched_process_*\") { if (@defined($p)) print($p->pid) }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_EQ(r->script->probes.size(), 3u);
  std::set<const ProbeDecl *> decls;
  for (const auto &dp : r->elab.probes) decls.insert(dp->decl);
  EXPECT_EQ(decls.size(), 3u);
}

TEST(DerivedProbes, ASufficientPointThatResolvesEndsTheList) {
  auto r =
      test::run("probe kernel.{trace(\"sched_process_exec\")!, trace(\"sched_process_exit\")} { }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(names(*r), (std::vector<std::string>{"kernel.trace(\"sched:sched_process_exec\")"}));
  r = test::run("probe kernel.trace(\"nope\")!, kernel.trace(\"sched_process_exit\") { }");
  ASSERT_TRUE(r->ok) << r->printed();
  EXPECT_EQ(names(*r), (std::vector<std::string>{"kernel.trace(\"sched:sched_process_exit\")"}));
}

TEST(DerivedProbes, ContextVariablesAreTypedByTheTracepointPrototype) {
  auto r = test::run("probe kernel.trace(\"sched_switch\") { }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_EQ(r->elab.probes.size(), 1u);
  const DerivedProbe &dp = *r->elab.probes[0];
  std::string vars;
  for (const auto &v : dp.context_vars())
    vars += "$" + v.name + ":" + dp.types()->spelling(v.type) + " ";
  EXPECT_EQ(vars,
            "$preempt:_Bool $prev:struct task_struct* $next:struct task_struct* "
            "$prev_state:unsigned int ");
}

TEST(DerivedProbes, SyscallEventsTakeTheSyscallsArguments) {
  auto r = test::run("probe kernel.trace(\"syscalls:sys_enter_openat\") { }");
  ASSERT_TRUE(r->ok) << r->printed();
  ASSERT_EQ(r->elab.probes.size(), 1u);
  std::string vars;
  for (const auto &v : r->elab.probes[0]->context_vars()) vars += v.name + " ";
  EXPECT_EQ(vars, "__syscall_nr dfd filename flags mode ");
}

TEST(TargetAccess, MembersThroughPointersAndEmbeddedStructs) {
  EXPECT_EQ(access_of("$prev->pid"), "off 8, load 4s");
  EXPECT_EQ(access_of("$prev->se->vruntime"), "off 32, off 8, load 8u");
  EXPECT_EQ(access_of("$prev->mm->owner->tgid"), "off 48, load 8u, load 8u, off 12, load 4s");
  EXPECT_EQ(access_of("$prev_state"), "");
}

TEST(TargetAccess, ArraysBitfieldsAnonymousMembersAndAddresses) {
  EXPECT_EQ(access_of("$prev->comm"), "off 16");  // an array is its address
  EXPECT_EQ(access_of("$prev->comm[3]"), "off 16, index*1, load 1s");
  EXPECT_EQ(access_of("$prev->prio"), "off 4, load 4s bits 3+7");
  EXPECT_EQ(access_of("$prev->flags"), "off 4, load 4u bits 0+3");
  EXPECT_EQ(access_of("$prev->b"), "off 56, load 8s");
  EXPECT_EQ(access_of("&$prev->se"), "off 32");
  EXPECT_EQ(access_of("@cast($prev, \"task_struct\")->tgid"), "off 12, load 4s");
}

TEST(TargetAccess, MistakesAreReportedWithAHint) {
  auto r = test::run("probe kernel.trace(\"sched_switch\") { print($prev->comn) }");
  EXPECT_EQ(r->first_error(), "XTP2230");
  EXPECT_NE(r->printed().find("did you mean 'comm'?"), std::string::npos) << r->printed();
  r = test::run("probe kernel.trace(\"sched_switch\") { print($nxt) }");
  EXPECT_NE(r->printed().find("did you mean '$next'?"), std::string::npos) << r->printed();
  r = test::run("probe kernel.trace(\"sched_switch\") { print(&$prev) }");
  EXPECT_EQ(r->first_error(), "XTP2230");
}

TEST(TargetAccess, PrettyPrintsBecomeSprintf) {
  auto r = test::run("probe kernel.trace(\"sched_process_fork\") { print($$parms) }");
  ASSERT_TRUE(r->ok) << r->printed();
  std::string c = emit_module(*r->script, r->elab, ModuleOptions{});
  EXPECT_NE(c.find("parent=%#llx child=%#llx"), std::string::npos) << c;
}

TEST(TargetAccess, GeneratedCodeReadsThroughTheNofaultReader) {
  auto r = test::run("probe kernel.trace(\"sched_switch\") { print($prev->pid) }");
  ASSERT_TRUE(r->ok) << r->printed();
  std::string c = emit_module(*r->script, r->elab, ModuleOptions{});
  EXPECT_NE(c.find("xtap_kread(c, "), std::string::npos) << c;
  // The callback has the tracepoint's prototype: bool, two pointers, unsigned int.
  EXPECT_NE(c.find("xtap_tp_callback_0(void *data, u8 a0, const void *a1, const void *a2, u32 a3)"),
            std::string::npos)
      << c;
}

}  // namespace
}  // namespace xtap
