// The call-frame information a module carries for user stacks
// (translator/symbols/user_cfi.h, codegen/user_symbols.h): rows read from
// small programs compiled here with and without frame pointers, from libc,
// and which scripts ask for them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "codegen/user_symbols.h"
#include "helpers.h"
#include "symbols/elf_symbols.h"
#include "symbols/user_cfi.h"
#include "temp_dir.h"

namespace xtap {
namespace {

// deep() has a stack frame of its own (it calls use()); built with `flags`.
std::string program(test::TempDir &dir, const std::string &flags) {
  std::string src = dir.write("prog.c",
                              "__attribute__((noipa)) long use(volatile long *p) { return p[0]; }\n"
                              "__attribute__((noipa)) long deep(long x)\n"
                              "{\n\tvolatile long pad[9] = { x };\n\treturn use(pad) + pad[8];\n}\n"
                              "int main(void)\n{\n\treturn deep(3) != 3;\n}\n");
  std::string exe = dir.str("prog");
  EXPECT_EQ(system(("gcc -O2 " + flags + " -o " + exe + " " + src).c_str()), 0);
  return exe;
}

// The rows of `exe` that cover deep(), in order.
std::vector<CfiRow> deep_rows(const std::string &exe) {
  std::string why;
  auto elf = ElfSymbols::open(exe, &why);
  EXPECT_TRUE(elf) << why;
  const ElfFunction *f = elf ? elf->find("deep") : nullptr;
  EXPECT_TRUE(f);
  std::vector<CfiRow> rows, out;
  CfiStats stats;
  EXPECT_TRUE(read_user_cfi(exe, &rows, &stats, &why)) << why;
  if (!f) return out;
  for (size_t i = 0; i < rows.size(); ++i) {
    uint64_t end = i + 1 < rows.size() ? rows[i + 1].address : UINT64_MAX;
    if (end > f->address && rows[i].address < f->address + f->size) out.push_back(rows[i]);
  }
  return out;
}

TEST(UserCfi, WithoutFramePointersTheCfaIsRspPlusTheFrameSize) {
  test::TempDir dir;
  auto rows = deep_rows(program(dir, "-fomit-frame-pointer"));
  ASSERT_FALSE(rows.empty());
  // at its first instruction only the return address is on the stack
  EXPECT_EQ(rows[0].kind, CfiKind::Rsp);
  EXPECT_EQ(rows[0].cfa_offset, 8);
  EXPECT_EQ(rows[0].rbp_offset, 0);
  // after `sub $N, %rsp`: a larger offset from rsp
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const CfiRow &r) {
    return r.kind == CfiKind::Rsp && r.cfa_offset > 64;
  }));
}

TEST(UserCfi, WithFramePointersTheCfaIsRbpAndRbpIsSaved) {
  test::TempDir dir;
  auto rows = deep_rows(program(dir, "-fno-omit-frame-pointer"));
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [](const CfiRow &r) {
    return r.kind == CfiKind::Rbp && r.cfa_offset == 16 && r.rbp_offset == -16;
  }));
}

TEST(UserCfi, StartIsTheOutermostFrame) {
  test::TempDir dir;
  std::string exe = program(dir, "");
  std::string why;
  auto elf = ElfSymbols::open(exe, &why);
  ASSERT_TRUE(elf) << why;
  const ElfFunction *start = elf->find("_start");
  ASSERT_TRUE(start);
  std::vector<CfiRow> rows;
  CfiStats stats;
  ASSERT_TRUE(read_user_cfi(exe, &rows, &stats, &why)) << why;
  // crt1's _start marks its return address undefined
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(), [&](const CfiRow &r) {
    return r.kind == CfiKind::End && r.address >= start->address &&
           r.address < start->address + start->size;
  }));
}

TEST(UserCfi, LibcRowsAreInOrder) {
  const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
  std::vector<CfiRow> rows;
  CfiStats stats;
  std::string why;
  if (!ElfSymbols::open(libc, &why)) GTEST_SKIP() << libc << ": " << why;
  ASSERT_TRUE(read_user_cfi(libc, &rows, &stats, &why)) << why;
  EXPECT_GT(stats.fdes, 1000u);
  // the signal trampoline (__restore_rt) is a signal frame
  EXPECT_TRUE(std::any_of(rows.begin(), rows.end(),
                          [](const CfiRow &r) { return r.kind == CfiKind::Signal; }));
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end(), [](const CfiRow &a, const CfiRow &b) {
    return a.address < b.address;
  }));
}

TEST(UserCfi, AFileWithoutElfHasNone) {
  test::TempDir dir;
  std::vector<CfiRow> rows;
  CfiStats stats;
  std::string why;
  EXPECT_FALSE(read_user_cfi(dir.write("notes.txt", "text\n"), &rows, &stats, &why));
  EXPECT_NE(why.find("frame pointers"), std::string::npos) << why;
}

TEST(UserCfi, OnlyScriptsThatWalkUserStacksCarryIt) {
  auto names = test::run("probe begin { println(usymname(1)) }");
  ASSERT_TRUE(names->ok) << names->printed();
  EXPECT_FALSE(user_stack_use(*names->script));
  auto stack = test::run("probe begin { print_ubacktrace() }");
  ASSERT_TRUE(stack->ok) << stack->printed();
  EXPECT_TRUE(user_stack_use(*stack->script));
  auto callers = test::run("probe begin { println(ucallers(2)) }");
  ASSERT_TRUE(callers->ok) << callers->printed();
  EXPECT_TRUE(user_stack_use(*callers->script));

  test::TempDir dir;
  std::string exe = program(dir, "-fomit-frame-pointer");
  std::vector<std::string> notes;
  UserTableParts parts;
  parts.cfi = true;
  std::string c = emit_user_symbol_tables({exe}, parts, "", &notes);
  EXPECT_TRUE(notes.empty()) << notes[0];
  EXPECT_NE(c.find("static const struct xtap_ucfi xtap_ucfi_0[]"), std::string::npos);
  EXPECT_NE(c.find("XTAP_UCFI_RSP },"), std::string::npos);
  EXPECT_NE(c.find(".cfi = xtap_ucfi_0, .ncfi = "), std::string::npos);
  EXPECT_EQ(emit_user_symbol_tables({exe}, {}, "", &notes).find("xtap_ucfi_"), std::string::npos);
}

}  // namespace
}  // namespace xtap
