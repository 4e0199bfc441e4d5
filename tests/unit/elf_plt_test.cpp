// The PLT reader behind process("PATH").plt("NAME")
// (translator/symbols/elf_plt.h): a small program compiled here in each
// PLT layout GNU ld emits (lazy .plt, -z now, IBT's .plt.sec, and a static
// program), its entries checked against objdump's <NAME@plt> labels.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

#include "symbols/elf_plt.h"
#include "temp_dir.h"

namespace xtap {
namespace {

// Calls through the PLT: puts, getpid, getppid (also taken by address:
// a GLOB_DAT slot beside its JUMP_SLOT), printf, atoi.
const char *kFixture =
    "#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n"
    "int (*fp)(void) = getppid;\n"
    "int main(int argc, char **argv)\n{\n"
    "\tputs(\"x\");\n\tprintf(\"%d %d %d\\n\", getpid(), getppid(), fp());\n\treturn "
    "atoi(argv[0]);\n}\n";

std::string compile(const test::TempDir &dir, const std::string &name, const std::string &flags) {
  std::string src = dir.write("plt.c", kFixture), exe = dir.str(name);
  int rc = system(("gcc -O0 " + flags + " -o " + exe + " " + src + " 2>/dev/null").c_str());
  return rc == 0 ? exe : "";
}

// objdump's "0000000000001030 <puts@plt>:" labels: name -> address.
std::map<std::string, uint64_t> objdump_plt(const std::string &exe) {
  std::map<std::string, uint64_t> out;
  std::unique_ptr<FILE, int (*)(FILE *)> p(popen(("objdump -d " + exe).c_str(), "r"), pclose);
  if (!p) return out;
  char line[512];
  while (fgets(line, sizeof line, p.get())) {
    unsigned long long addr;
    char name[256];
    if (strstr(line, "@plt>:") && sscanf(line, "%llx <%255[^@>]", &addr, name) == 2)
      out[name] = addr;
  }
  return out;
}

void expect_like_objdump(const std::string &exe) {
  ASSERT_FALSE(exe.empty()) << "gcc failed";
  std::string why;
  auto l = read_elf_linkage(exe, &why);
  ASSERT_TRUE(l) << why;
  std::map<std::string, uint64_t> mine;
  for (const auto &e : l->plt) {
    mine[e.name] = e.address;
    // A PIE's sections lie at their offsets (the first segment at 0).
    EXPECT_EQ(e.offset, e.address) << e.name;
  }
  auto theirs = objdump_plt(exe);
  if (theirs.empty()) GTEST_SKIP() << "no objdump";
  EXPECT_EQ(mine, theirs);
  for (const char *f : {"puts", "getpid", "getppid", "printf", "atoi"})
    EXPECT_TRUE(mine.count(f)) << f;
  EXPECT_EQ(l->needed, std::vector<std::string>{"libc.so.6"});
}

TEST(ElfPlt, LazyPlt) {
  test::TempDir dir;
  expect_like_objdump(compile(dir, "lazy", "-fcf-protection=none"));
}

TEST(ElfPlt, BindNow) {
  test::TempDir dir;
  expect_like_objdump(compile(dir, "now", "-fcf-protection=none -Wl,-z,now"));
}

TEST(ElfPlt, IbtPltSec) {
  test::TempDir dir;
  std::string exe = compile(dir, "ibt", "-fcf-protection -Wl,-z,ibtplt -Wl,-z,now");
  expect_like_objdump(exe);
  std::string why;
  auto l = read_elf_linkage(exe, &why);
  ASSERT_TRUE(l);
  // The probed stub starts with endbr64 (.plt.sec), not the lazy .plt's.
  for (const auto &e : l->plt)
    if (e.name == "puts") {
      FILE *f = fopen(exe.c_str(), "rb");
      ASSERT_TRUE(f);
      unsigned char b[4] = {};
      fseek(f, static_cast<long>(e.offset), SEEK_SET);
      EXPECT_EQ(fread(b, 1, 4, f), 4u);
      fclose(f);
      EXPECT_EQ(b[0], 0xf3);
      EXPECT_EQ(b[3], 0xfa);
    }
}

TEST(ElfPlt, StaticProgramHasNoEntries) {
  test::TempDir dir;
  std::string exe = compile(dir, "static", "-static");
  if (exe.empty()) GTEST_SKIP() << "no static libc";
  std::string why;
  auto l = read_elf_linkage(exe, &why);
  ASSERT_TRUE(l) << why;
  EXPECT_TRUE(l->plt.empty());  // its .plt holds IRELATIVE slots only: no symbol
  EXPECT_TRUE(l->needed.empty());
}

TEST(ElfPlt, NotElf) {
  test::TempDir dir;
  std::string why;
  EXPECT_FALSE(read_elf_linkage(dir.write("x.txt", "hello, not ELF\n"), &why));
  EXPECT_EQ(why, "not an ELF file");
  EXPECT_FALSE(read_elf_linkage(dir.str("missing"), &why));
  EXPECT_EQ(why, "No such file or directory");
}

}  // namespace
}  // namespace xtap
