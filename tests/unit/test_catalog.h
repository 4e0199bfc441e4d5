// A small kernel catalog for tests that need tracepoints and C types
// without a kernel: a few sched tracepoints, the raw syscall tracepoints,
// openat and getppid, and the structs they reach, with layouts of our own
// (a real kernel's catalog is tested in catalog_test.cpp).
#pragma once

#include <memory>

#include "probes/provider.h"
#include "symbols/btf.h"
#include "symbols/catalog.h"

namespace xtap::test {

inline std::unique_ptr<KernelCatalog> make_test_catalog() {
  TypeTable t;
  auto ty = [&](KTypeKind k, std::string name, uint64_t size = 0, bool sign = false,
                int target = -1, uint64_t count = 0) {
    KType x;
    x.kind = k;
    x.name = std::move(name);
    x.size = size;
    x.is_signed = sign;
    x.target = target;
    x.count = count;
    return t.add(std::move(x));
  };
  auto record = [&](std::string name, uint64_t size, std::vector<KMember> members,
                    bool is_union = false) {
    KType x;
    x.kind = is_union ? KTypeKind::Union : KTypeKind::Struct;
    x.name = std::move(name);
    x.size = size;
    x.members = std::move(members);
    return t.add(std::move(x));
  };
  int t_bool = ty(KTypeKind::Int, "_Bool", 1);
  int t_int = ty(KTypeKind::Int, "int", 4, true);
  int t_uint = ty(KTypeKind::Int, "unsigned int", 4);
  int t_long = ty(KTypeKind::Int, "long", 8, true);
  int t_char = ty(KTypeKind::Int, "char", 1, true);
  int t_ushort = ty(KTypeKind::Int, "unsigned short", 2);
  int t_pid = ty(KTypeKind::Typedef, "pid_t", 0, false, t_int);
  int t_u64 = ty(KTypeKind::Typedef, "u64", 0, false, ty(KTypeKind::Int, "unsigned long long", 8));
  int t_umode = ty(KTypeKind::Typedef, "umode_t", 0, false, t_ushort);
  int t_comm = ty(KTypeKind::Array, "", 0, false, t_char, 16);
  int t_charp = ty(KTypeKind::Pointer, "", 8, false, t_char);
  int t_se = record("sched_entity", 16, {{"load", t_long, 0, 0}, {"vruntime", t_u64, 64, 0}});
  KType mm_decl;
  mm_decl.kind = KTypeKind::Struct;
  mm_decl.name = "mm_struct";
  int t_mm = t.add(mm_decl);
  int t_mmp = ty(KTypeKind::Pointer, "", 8, false, t_mm);
  KType file;
  file.kind = KTypeKind::Struct;
  file.name = "file";
  file.complete = false;
  int t_filep = ty(KTypeKind::Pointer, "", 8, false, t.add(file));
  int t_anon = record("", 8, {{"a", t_long, 0, 0}, {"b", t_long, 0, 0}}, true);
  int t_task = record("task_struct", 96,
                      {{"__state", t_uint, 0, 0},
                       {"flags", t_uint, 32, 3},
                       {"prio", t_int, 35, 7},
                       {"pid", t_pid, 64, 0},
                       {"tgid", t_pid, 96, 0},
                       {"comm", t_comm, 128, 0},
                       {"se", t_se, 256, 0},
                       {"mm", t_mmp, 384, 0},
                       {"", t_anon, 448, 0},
                       {"file", t_filep, 512, 0}});
  int t_taskp = ty(KTypeKind::Pointer, "", 8, false, t_task);
  t.mutable_at(t_mm).size = 8;
  t.mutable_at(t_mm).members = {{"owner", t_taskp, 0, 0}};
  int t_bprm = record("linux_binprm", 8, {{"filename", t_charp, 0, 0}});
  int t_bprmp = ty(KTypeKind::Pointer, "", 8, false, t_bprm);
  int t_regs = record("pt_regs", 168, {{"di", t_long, 896, 0}});
  int t_regsp = ty(KTypeKind::Pointer, "", 8, false, t_regs);
  // Records known by a typedef: a tagged one (refcount_t) and an anonymous one (atomic_t).
  int t_atomic =
      ty(KTypeKind::Typedef, "atomic_t", 0, false, record("", 4, {{"counter", t_int, 0, 0}}));
  ty(KTypeKind::Typedef, "refcount_t", 0, false,
     record("refcount_struct", 4, {{"refs", t_atomic, 0, 0}}));
  KType cchar;
  cchar.kind = KTypeKind::Pointer;
  cchar.size = 8;
  cchar.target = t_char;
  cchar.is_const = true;
  int t_ccharp = t.add(cchar);

  std::vector<KTracepoint> tps = {
      {"sched",
       "sched_switch",
       {{"preempt", t_bool}, {"prev", t_taskp}, {"next", t_taskp}, {"prev_state", t_uint}}},
      {"sched", "sched_process_exec", {{"p", t_taskp}, {"old_pid", t_pid}, {"bprm", t_bprmp}}},
      {"sched", "sched_process_fork", {{"parent", t_taskp}, {"child", t_taskp}}},
      {"sched", "sched_process_exit", {{"p", t_taskp}}},
      {"raw_syscalls", "sys_enter", {{"regs", t_regsp}, {"id", t_long}}},
      {"raw_syscalls", "sys_exit", {{"regs", t_regsp}, {"ret", t_long}}},
      {"xtaptest", "struct_by_value", {{"se", t_se}}},
  };
  std::vector<KSyscall> scs = {
      {"openat",
       257,
       {{"dfd", t_int}, {"filename", t_ccharp}, {"flags", t_int}, {"mode", t_umode}}},
      {"getppid", 110, {}},
  };
  return std::make_unique<KernelCatalog>("test", std::move(t), std::move(tps), std::move(scs));
}

// The BTF fixture (btf_fixture.c, built by pahole at test-build time), or
// null with *error when this build has none.
inline const KernelBtf *test_btf(std::string *error) {
#ifdef XTAP_BTF_FIXTURE
  static std::string load_error;
  static std::shared_ptr<KernelBtf> btf = KernelBtf::load(XTAP_BTF_FIXTURE, &load_error);
  if (!btf) *error = load_error;
  return btf.get();
#else
  *error = "this test build has no BTF fixture (clang or pahole missing)";
  return nullptr;
#endif
}

// A ProbeEnv whose catalog is the test catalog and whose BTF is the fixture.
inline ProbeEnv test_probe_env() {
  static std::shared_ptr<KernelCatalog> cat = make_test_catalog();
  ProbeEnv env;
  env.catalog = [](std::string *) -> const KernelCatalog * { return cat.get(); };
  env.btf = test_btf;
  return env;
}

}  // namespace xtap::test
