// The real catalog of an installed kernel, built through ensure_catalog()
// with xtap-kcatalog and cached in the build tree's test cache: facts users
// rely on, and layouts checked against what the kernel's own compiler (gcc,
// through Kbuild) says. Skipped when no kernel headers are installed.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kbuild/kbuild.h"
#include "kbuild/run_make.h"
#include "symbols/catalog.h"

namespace fs = std::filesystem;

namespace xtap {
namespace {

// XTAP_TEST_KERNEL picks a release; otherwise the first one with a build
// directory (the facts below hold for the 6.1 and 6.12 series).
bool test_target(kbuild::Target *t) {
  std::string error;
  if (const char *k = getenv("XTAP_TEST_KERNEL"); k && *k)
    return kbuild::resolve_target(k, t, &error);
  std::vector<std::string> releases;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator("/lib/modules", ec))
    if (fs::exists(e.path() / "build/Makefile")) releases.push_back(e.path().filename().string());
  std::sort(releases.begin(), releases.end());
  return !releases.empty() && kbuild::resolve_target(releases.front(), t, &error);
}

class KernelCatalogTest : public ::testing::Test {
 protected:
  static kbuild::Target target_;
  static std::unique_ptr<KernelCatalog> catalog_;
  static std::string skip_reason_;
  static double load_ms_;

  static void SetUpTestSuite() {
    if (!test_target(&target_)) {
      skip_reason_ = "no kernel build directory under /lib/modules";
      return;
    }
    setenv("XTAP_KCATALOG", XTAP_KCATALOG_PATH, 1);
    kbuild::Env env;
    env.cache_dir = XTAP_TEST_CACHE_DIR;
    env.version = "test";
    std::string path, error;
    if (!kbuild::ensure_catalog(target_, env, &path, &error)) {
      skip_reason_ = "FAIL " + error;
      return;
    }
    auto start = std::chrono::steady_clock::now();
    catalog_ = KernelCatalog::load(path, &error);
    load_ms_ =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!catalog_) skip_reason_ = "FAIL " + error;
  }

  void SetUp() override {
    if (skip_reason_.rfind("FAIL ", 0) == 0) FAIL() << skip_reason_.substr(5);
    if (!catalog_) GTEST_SKIP() << skip_reason_;
  }

  const TypeTable &types() const { return catalog_->types(); }

  // The member at `path` ("se.vruntime") of struct `record`: offset in bits.
  const KMember *member(const std::string &record, const std::string &path, uint64_t *bit_offset) {
    int type = types().find_record(record);
    *bit_offset = 0;
    const KMember *m = nullptr;
    std::istringstream parts(path);
    std::string part;
    while (type >= 0 && std::getline(parts, part, '.')) {
      uint64_t inner = 0;
      m = types().find_member(type, part, &inner);
      if (!m) return nullptr;
      *bit_offset += inner;
      type = m->type;
    }
    return m;
  }
};

kbuild::Target KernelCatalogTest::target_;
std::unique_ptr<KernelCatalog> KernelCatalogTest::catalog_;
std::string KernelCatalogTest::skip_reason_;
double KernelCatalogTest::load_ms_ = 0;

TEST_F(KernelCatalogTest, SchedSwitchHasItsPrototype) {
  const KTracepoint *tp = catalog_->find_tracepoint("sched", "sched_switch");
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp, catalog_->find_tracepoint("", "sched_switch"));
  std::vector<std::pair<std::string, std::string>> args;
  for (const KParam &p : tp->args) args.push_back({p.name, types().spelling(p.type)});
  std::vector<std::pair<std::string, std::string>> want = {{"preempt", "bool"},
                                                           {"prev", "struct task_struct*"},
                                                           {"next", "struct task_struct*"},
                                                           {"prev_state", "unsigned int"}};
  EXPECT_EQ(args, want);
}

TEST_F(KernelCatalogTest, SystemsComeFromTraceSystemNotFileNames) {
  // trace/events/syscalls.h is raw_syscalls; module.h sets its system only
  // under CREATE_TRACE_POINTS; sched.h's bare pelt tracepoints are sched's.
  EXPECT_NE(catalog_->find_tracepoint("raw_syscalls", "sys_enter"), nullptr);
  EXPECT_NE(catalog_->find_tracepoint("module", "module_load"), nullptr);
  EXPECT_NE(catalog_->find_tracepoint("sched", "pelt_cfs_tp"), nullptr);
  EXPECT_NE(catalog_->find_tracepoint("9p", "9p_client_req"), nullptr);
  for (const KTracepoint &tp : catalog_->tracepoints()) EXPECT_FALSE(tp.system.empty()) << tp.name;
  EXPECT_GT(catalog_->tracepoints().size(), 1000u);
}

TEST_F(KernelCatalogTest, TaskStructKnowsPidAndComm) {
  uint64_t offset = 0;
  const KMember *pid = member("task_struct", "pid", &offset);
  ASSERT_NE(pid, nullptr);
  EXPECT_EQ(types().spelling(pid->type), "pid_t");
  const KType &pid_int = types().at(types().strip_typedefs(pid->type));
  EXPECT_EQ(pid_int.kind, KTypeKind::Int);
  EXPECT_EQ(pid_int.name, "int");
  EXPECT_EQ(pid_int.size, 4u);
  EXPECT_TRUE(pid_int.is_signed);
  const KMember *comm = member("task_struct", "comm", &offset);
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(types().spelling(comm->type), "char[16]");
}

TEST_F(KernelCatalogTest, OpenatHasItsNumberAndPrototype) {
  const KSyscall *sc = catalog_->find_syscall("openat");
  ASSERT_NE(sc, nullptr);
  EXPECT_EQ(sc->nr, 257);
  std::vector<std::pair<std::string, std::string>> args;
  for (const KParam &p : sc->args) args.push_back({p.name, types().spelling(p.type)});
  std::vector<std::pair<std::string, std::string>> want = {
      {"dfd", "int"}, {"filename", "const char*"}, {"flags", "int"}, {"mode", "umode_t"}};
  EXPECT_EQ(args, want);
  // The number's entry point, not its name: umount2 is sys_umount(name, flags).
  const KSyscall *umount2 = catalog_->find_syscall("umount2");
  ASSERT_NE(umount2, nullptr);
  EXPECT_EQ(umount2->args.size(), 2u);
  EXPECT_GT(catalog_->syscalls().size(), 300u);
}

TEST_F(KernelCatalogTest, LoadsQuickly) {
  // It is loaded on every run that uses tracepoints; generous for a loaded
  // CI machine, it is a few tens of ms on an idle one (docs/catalog.md).
  EXPECT_LT(load_ms_, 1000.0);
  std::cout << "catalog of " << target_.release << ": " << catalog_->types().size() << " types, "
            << catalog_->tracepoints().size() << " tracepoints, " << catalog_->syscalls().size()
            << " syscalls, loaded in " << load_ms_ << " ms\n";
}

// Offsets as gcc lays them out for the kernel, read back from the assembly
// of a tiny Kbuild object (the kernel's own asm-offsets technique).
std::map<std::string, uint64_t> gcc_offsets(
    const kbuild::Target &t, const std::vector<std::pair<std::string, std::string>> &fields,
    std::string *error) {
  fs::path dir = fs::path(XTAP_TEST_CACHE_DIR) / ("offsets-" + t.release);
  fs::create_directories(dir);
  std::string c =
      "#include <linux/sched.h>\n#include <linux/skbuff.h>\n#include <linux/fs.h>\n"
      "#define OFFSET(name, value) asm volatile(\"\\n.ascii \\\"->\" name \" %c0\\\"\" : : "
      "\"i\"(value))\n"
      "void xtap_offsets(void);\nvoid xtap_offsets(void)\n{\n";
  for (const auto &[record, path] : fields)
    c += "\tOFFSET(\"" + record + "." + path + "\", offsetof(struct " + record + ", " + path +
         "));\n";
  c += "\tOFFSET(\"sizeof.task_struct\", sizeof(struct task_struct));\n}\n";
  std::ofstream(dir / "offsets.c") << c;
  std::ofstream(dir / "Kbuild") << "obj-m := offsets.o\n";
  std::string log = (dir / "make.log").string();
  std::string make_error;
  int rc = kbuild::run_make({"-C", t.build_dir, "M=" + dir.string(), "offsets.s"}, log, false,
                            &make_error);
  std::ifstream s(dir / "offsets.s");
  if (rc != 0 || !s) {
    std::ifstream l(log);
    std::stringstream ss;
    ss << l.rdbuf();
    *error = "make offsets.s failed: " + ss.str();
    return {};
  }
  std::map<std::string, uint64_t> out;
  std::string line;
  while (std::getline(s, line)) {
    size_t at = line.find("->");
    if (at == std::string::npos) continue;
    std::istringstream fields_in(line.substr(at + 2));
    std::string name;
    uint64_t value = 0;
    if (fields_in >> name >> value) out[name] = value;
  }
  return out;
}

TEST_F(KernelCatalogTest, LayoutsAgreeWithTheKernelsCompiler) {
  std::vector<std::pair<std::string, std::string>> fields = {{"task_struct", "pid"},
                                                             {"task_struct", "tgid"},
                                                             {"task_struct", "comm"},
                                                             {"task_struct", "__state"},
                                                             {"task_struct", "se.vruntime"},
                                                             {"task_struct", "mm"},
                                                             {"sk_buff", "len"},
                                                             {"sk_buff", "dev"},
                                                             {"file", "f_flags"},
                                                             {"file", "f_pos"},
                                                             {"mm_struct", "start_brk"}};
  std::string error;
  auto gcc = gcc_offsets(target_, fields, &error);
  ASSERT_FALSE(gcc.empty()) << error;
  for (const auto &[record, path] : fields) {
    uint64_t bits = 0;
    ASSERT_NE(member(record, path, &bits), nullptr) << record << "." << path;
    EXPECT_EQ(bits % 8, 0u);
    EXPECT_EQ(bits / 8, gcc[record + "." + path]) << record << "." << path;
  }
  EXPECT_EQ(types().at(types().find_record("task_struct")).size, gcc["sizeof.task_struct"]);
}

}  // namespace
}  // namespace xtap
