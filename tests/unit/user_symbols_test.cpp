// The user-space symbol tables a module carries for usymname() and
// friends (translator/codegen/user_symbols.h, symbols/user_lines.h): which
// scripts ask for them, the files they come from, and the tables of this
// test program itself, checked against where the kernel mapped it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

#include "codegen/user_symbols.h"
#include "helpers.h"
#include "symbols/elf_symbols.h"
#include "symbols/user_lines.h"
#include "temp_dir.h"

extern "C" __attribute__((noinline, used)) int xtap_user_symbols_target(int x) {
  return x * 5 + 2;  // its first line is the one after the signature
}

namespace xtap {
namespace {

std::string self_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// The file offset of `addr` in this process, from /proc/self/maps.
uint64_t mapped_file_offset(uintptr_t addr) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream ls(line);
    std::string range, perms, off;
    ls >> range >> perms >> off;
    size_t dash = range.find('-');
    uint64_t lo = std::stoull(range.substr(0, dash), nullptr, 16),
             hi = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (addr >= lo && addr < hi) return addr - lo + std::stoull(off, nullptr, 16);
  }
  return 0;
}

TEST(UserSymbols, OnlyScriptsThatSymbolizeUserAddressesAskForTables) {
  auto none = test::run("probe begin { println(symname(0)) }");
  ASSERT_TRUE(none->ok) << none->printed();
  EXPECT_EQ(user_symbol_use(*none->script), UserSymbolUse::None);
  auto syms = test::run("probe begin { print_ustack(ubacktrace()) }");
  ASSERT_TRUE(syms->ok) << syms->printed();
  EXPECT_EQ(user_symbol_use(*syms->script), UserSymbolUse::Symbols);
  auto lines = test::run("probe begin { println(usymname(1), usymfileline(uaddr())) }");
  ASSERT_TRUE(lines->ok) << lines->printed();
  EXPECT_EQ(user_symbol_use(*lines->script), UserSymbolUse::Lines);
}

TEST(UserSymbols, FilesComeFromTheCommandDashDAndLibc) {
  auto r = test::run("probe begin { println(usymname(1)) }");
  ASSERT_TRUE(r->ok) << r->printed();
  UserSymbolSources src;
  src.command = "sh -c true";
  src.modules = {"ext4", "/no/such/program", "/bin/sh"};
  std::vector<std::string> notes;
  auto files = user_symbol_files(r->elab, src, &notes);
  // sh once (-c and -d name the same file), ext4 is a kernel module, libc by default
  ASSERT_GE(files.size(), 2u);
  EXPECT_NE(files[0].find("/sh"), std::string::npos) << files[0];
  EXPECT_NE(files.back().find("libc.so.6"), std::string::npos) << files.back();
  for (const auto &f : files) EXPECT_EQ(f.find("ext4"), std::string::npos);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "-d /no/such/program: no such file; its symbols are left out");
}

TEST(UserSymbols, LddAddsTheSharedLibraries) {
  auto r = test::run("probe begin { println(usymname(1)) }");
  ASSERT_TRUE(r->ok);
  UserSymbolSources src;
  src.modules = {self_path()};
  src.ldd = true;
  std::vector<std::string> notes;
  auto files = user_symbol_files(r->elab, src, &notes);
  bool stdcxx = false;
  for (const auto &f : files) stdcxx |= f.find("libstdc++") != std::string::npos;
  EXPECT_TRUE(stdcxx) << "no libstdc++ among " << files.size() << " files";
}

TEST(UserSymbols, TablesHoldFileOffsets) {
  std::vector<std::string> notes;
  std::string c = emit_user_symbol_tables({self_path()}, {}, "", &notes);
  EXPECT_TRUE(notes.empty()) << notes[0];
  char off[32];
  snprintf(off, sizeof off, "{ 0x%llxULL, ",
           static_cast<unsigned long long>(
               mapped_file_offset(reinterpret_cast<uintptr_t>(&xtap_user_symbols_target))));
  EXPECT_NE(c.find(off), std::string::npos) << off;
  EXPECT_NE(c.find("\"xtap_user_symbols_target\\x00\""), std::string::npos);
  EXPECT_NE(c.find(".path = \"" + self_path() + "\""), std::string::npos);
  EXPECT_EQ(c.find("xtap_ulines_"), std::string::npos);  // no line table asked for
}

// A small program with DWARF, compiled here: twice() spans lines 2-4.
std::string small_program(test::TempDir &dir) {
  std::string src = dir.write(
      "prog.c",
      "int twice(int x)\n{\n\treturn x * 2;\n}\nint main(void)\n{\n\treturn twice(3) != 6;\n}\n");
  std::string exe = dir.str("prog");
  EXPECT_EQ(system(("gcc -O0 -g -o " + exe + " " + src).c_str()), 0);
  return exe;
}

TEST(UserSymbols, LineTablesComeFromTheDwarf) {
  test::TempDir dir;
  std::string exe = small_program(dir);
  std::string why;
  auto elf = ElfSymbols::open(exe, &why);
  ASSERT_TRUE(elf) << why;
  LineTable t;
  ASSERT_TRUE(read_line_table(exe, elf->build_id(), &t, &why)) << why;
  const ElfFunction *f = elf->find("twice");
  ASSERT_TRUE(f);
  std::set<uint32_t> lines;
  for (const auto &row : t.rows)
    if (row.address >= f->address && row.address < f->address + f->size &&
        t.files[row.file].find("prog.c") != std::string::npos)
      lines.insert(row.line);
  EXPECT_EQ(lines, (std::set<uint32_t>{2, 3, 4}));

  std::vector<std::string> notes;
  std::string c = emit_user_symbol_tables({exe}, {true, false}, "", &notes);
  EXPECT_TRUE(notes.empty()) << notes[0];
  EXPECT_NE(c.find("static const struct xtap_uline xtap_ulines_0[]"), std::string::npos);
  EXPECT_NE(c.find(", 0, 3 },"), std::string::npos) << "no row for line 3 of file 0";
  EXPECT_NE(c.find("prog.c\","), std::string::npos);
}

TEST(UserSymbols, AFileWithoutElfIsLeftOutWithAReason) {
  test::TempDir dir;
  std::string text = dir.write("notes.txt", "not a program\n");
  std::vector<std::string> notes;
  EXPECT_EQ(emit_user_symbol_tables({text}, {}, "", &notes), "");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find(text + ": "), std::string::npos);
  EXPECT_NE(notes[0].find("left out"), std::string::npos);
}

}  // namespace
}  // namespace xtap
