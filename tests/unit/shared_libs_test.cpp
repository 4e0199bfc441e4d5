// What a program needs to run (common/shared_libs.h) and what `xtap --vm`
// carries for it (cli/vm/carry.h): this machine's ld.so.cache and ls
// against ldd(1), and small programs and libraries compiled here with an
// RPATH, a RUNPATH ($ORIGIN), a missing library, a #! script.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

#include "common/elf_file.h"
#include "common/shared_libs.h"
#include "temp_dir.h"
#include "vm/carry.h"

namespace xtap {
namespace {

namespace fs = std::filesystem;

std::string real(const std::string &p) {
  std::error_code ec;
  auto r = fs::canonical(p, ec);
  return ec ? p : r.string();
}

// The files ldd(1) lists for `exe` (interpreter included), by real path.
std::set<std::string> ldd_files(const std::string &exe) {
  std::set<std::string> out;
  std::unique_ptr<FILE, int (*)(FILE *)> p(popen(("ldd " + exe + " 2>/dev/null").c_str(), "r"),
                                           pclose);
  if (!p) return out;
  char line[1024];
  while (fgets(line, sizeof line, p.get())) {
    std::string l = line;
    size_t arrow = l.find("=> ");
    size_t start = l.find('/', arrow == std::string::npos ? 0 : arrow);
    if (start == std::string::npos) continue;
    out.insert(real(l.substr(start, l.find(" (", start) - start)));
  }
  return out;
}

std::set<std::string> real_set(const std::vector<std::string> &v) {
  std::set<std::string> out;
  for (const auto &f : v) out.insert(real(f));
  return out;
}

bool gcc(const std::string &args) { return system(("gcc " + args + " 2>/dev/null").c_str()) == 0; }

TEST(SharedLibs, CacheKnowsLibc) {
  if (!fs::exists("/etc/ld.so.cache")) GTEST_SKIP() << "no /etc/ld.so.cache";
  LdSoCache c = LdSoCache::read("/etc/ld.so.cache");
  EXPECT_GT(c.size(), 10u);
  std::string libc = c.find("libc.so.6");
  ASSERT_FALSE(libc.empty());
  EXPECT_EQ(real(libc), real("/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_EQ(c.find("libno-such-library.so.9"), "");
  EXPECT_EQ(LdSoCache::read("/no/such/cache").size(), 0u);
  EXPECT_EQ(LdSoCache::read("/proc/self/exe").size(), 0u);  // not a cache
}

TEST(SharedLibs, LsAsLddSeesIt) {
  for (const char *exe : {"/usr/bin/ls", "/usr/bin/ssh", "/usr/bin/python3"}) {
    if (!fs::exists(exe)) continue;
    std::set<std::string> theirs = ldd_files(exe);
    if (theirs.empty()) GTEST_SKIP() << "no ldd";
    LoadClosure c = load_closure({exe}, "");
    EXPECT_TRUE(c.missing.empty()) << exe;
    EXPECT_EQ(real_set(c.files), theirs) << exe;
  }
}

TEST(SharedLibs, InterpreterAndDynamic) {
  std::string err;
  auto elf = ElfFile::open("/usr/bin/ls", &err);
  ASSERT_TRUE(elf) << err;
  EXPECT_EQ(elf->interpreter(), "/lib64/ld-linux-x86-64.so.2");
  ElfFile::Dynamic d = elf->dynamic();
  EXPECT_NE(std::find(d.needed.begin(), d.needed.end(), "libc.so.6"), d.needed.end());
}

// A program needing libone (in lib/, by RUNPATH $ORIGIN/lib), which needs
// libtwo (in its own dir, by the program's RPATH when the program has no
// RUNPATH: the old tags). Each layout as ld.so resolves it, by ldd.
TEST(SharedLibs, RpathRunpathAndOrigin) {
  test::TempDir d;
  std::string two = d.write("two/two.c", "int two(void) { return 2; }\n");
  std::string one = d.write("lib/one.c", "int two(void);\nint one(void) { return two() + 1; }\n");
  std::string main = d.write("main.c", "int one(void);\nint main(void) { return one() - 3; }\n");
  ASSERT_TRUE(gcc("-shared -fPIC -o " + d.str("two/libtwo.so") + " " + two));
  ASSERT_TRUE(gcc("-shared -fPIC -o " + d.str("lib/libone.so") + " " + one + " -L" + d.str("two") +
                  " -ltwo"));
  // RUNPATH: libone's own lookups do not see the program's RUNPATH, so
  // libtwo is not found (as ld.so fails to load it).
  ASSERT_TRUE(gcc("-o " + d.str("new") + " " + main + " -L" + d.str("lib") + " -lone -L" +
                  d.str("two") + " -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib:" + d.str("two") +
                  "'"));
  LoadClosure c = load_closure({d.str("new")}, "");
  EXPECT_TRUE(real_set(c.files).count(real(d.str("lib/libone.so"))));
  ASSERT_EQ(c.missing.size(), 1u);
  EXPECT_NE(c.missing[0].find("libtwo.so"), std::string::npos);
  // RPATH: inherited by the libraries the program loads.
  ASSERT_TRUE(gcc("-o " + d.str("old") + " " + main + " -L" + d.str("lib") + " -lone -L" +
                  d.str("two") + " -Wl,--disable-new-dtags,-rpath,'$ORIGIN/lib:" + d.str("two") +
                  "'"));
  c = load_closure({d.str("old")}, "");
  EXPECT_TRUE(c.missing.empty());
  std::set<std::string> theirs = ldd_files(d.str("old"));
  if (!theirs.empty()) {
    EXPECT_EQ(real_set(c.files), theirs);
  }
  EXPECT_EQ(system((d.str("old") + " >/dev/null 2>&1").c_str()), 0);
}

TEST(CarryPlan, FilesOnceSymlinksForOtherNames) {
  vm::CarryPlan plan;
  vm::CarryError err;
  // The loader is also a probed library (ltrace.stp's library("*")), by
  // another of its names: the program's PT_INTERP name must still exist.
  ASSERT_TRUE(vm::plan_carry({{"/usr/bin/ls", "-c", true},
                              {"/bin/ls", "probe", false},
                              {"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "probe", false}},
                             "", 1ull << 30, &plan, &err))
      << err.why;
  std::set<std::string> guest;
  for (const auto &[host, g] : plan.files) EXPECT_TRUE(guest.insert(g).second) << g;
  EXPECT_TRUE(guest.count(real("/usr/bin/ls")));
  EXPECT_TRUE(guest.count("/etc/ld.so.cache"));
  EXPECT_TRUE(guest.count(real("/lib64/ld-linux-x86-64.so.2")));
  bool loader_link = false;
  for (const auto &[at, to] : plan.symlinks) {
    EXPECT_TRUE(guest.count(to)) << at << " -> " << to;
    loader_link |= at == "/lib64/ld-linux-x86-64.so.2";
  }
  if (real("/lib64/ld-linux-x86-64.so.2") != "/lib64/ld-linux-x86-64.so.2") {
    EXPECT_TRUE(loader_link);
  }
  EXPECT_GT(plan.bytes, 100000u);
}

TEST(CarryPlan, ClearErrors) {
  test::TempDir d;
  vm::CarryPlan plan;
  vm::CarryError err;
  EXPECT_FALSE(vm::plan_carry({{d.str("none"), "-c", true}}, "", 1ull << 30, &plan, &err));
  EXPECT_EQ(err.why, "no such file");
  EXPECT_EQ(err.named_by, "-c");
  std::string text = d.write("notes.txt", "hello\n");
  EXPECT_FALSE(vm::plan_carry({{text, "-d x", false}}, "", 1ull << 30, &plan, &err));
  EXPECT_EQ(err.why, "neither an ELF program nor a #! script");
  EXPECT_FALSE(vm::plan_carry({{"/bin/sh", "probe", false}}, "", 1ull << 30, &plan, &err));
  EXPECT_NE(err.why.find("guest keeps"), std::string::npos);
  EXPECT_FALSE(vm::plan_carry({{"/usr/bin/ls", "-c", true}}, "", 1000, &plan, &err));
  EXPECT_NE(err.why.find("more than"), std::string::npos);
}

TEST(CarryPlan, ScriptBringsItsInterpreter) {
  test::TempDir d;
  std::string script = d.write("run.sh", "#!/usr/bin/dash -e\necho hi\n");
  std::string shell = d.write("sh.sh", "#!/bin/sh\necho hi\n");
  vm::CarryPlan plan;
  vm::CarryError err;
  ASSERT_TRUE(
      vm::plan_carry({{script, "-c", true}, {shell, "-c", true}}, "", 1ull << 30, &plan, &err))
      << err.why;
  std::set<std::string> guest;
  for (const auto &[host, g] : plan.files) guest.insert(g);
  EXPECT_TRUE(guest.count(script));
  EXPECT_TRUE(guest.count(real("/usr/bin/dash")));
  EXPECT_TRUE(guest.count(real("/lib/x86_64-linux-gnu/libc.so.6")));
  // #!/bin/sh: the guest's own shell runs it.
  EXPECT_EQ(plan.notes.size(), 1u);
}

}  // namespace
}  // namespace xtap
