// The user-space symbol reader behind process("PATH").function("SYM")
// (translator/symbols/elf_symbols.h): symbols and file offsets of this test
// program itself (checked against where the kernel mapped it), the
// .dynsym of a stripped shared library, and broken input.
#include <gtest/gtest.h>

#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "symbols/elf_symbols.h"
#include "temp_dir.h"

extern "C" __attribute__((noinline, used)) int xtap_elf_symbols_probe_target(int x) {
  return x * 3 + 1;
}

namespace xtap {
namespace {

std::string self_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

std::string read_all(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The file offset of `addr` in this process, from /proc/self/maps.
uint64_t mapped_file_offset(uintptr_t addr) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long start, end, off;
    char perms[8];
    if (sscanf(line.c_str(), "%lx-%lx %7s %lx", &start, &end, perms, &off) != 4) continue;
    if (addr >= start && addr < end) return addr - start + off;
  }
  return 0;
}

TEST(ElfSymbols, FindsAFunctionAndItsFileOffset) {
  std::string why;
  auto elf = ElfSymbols::open(self_path(), &why);
  ASSERT_TRUE(elf) << why;
  EXPECT_EQ(elf->table(), ".symtab");
  const ElfFunction *f = elf->find("xtap_elf_symbols_probe_target");
  ASSERT_TRUE(f);
  EXPECT_GT(f->size, 0u);
  auto off = elf->file_offset(f->address);
  ASSERT_TRUE(off);
  // Where the kernel really mapped it: a uprobe at this offset fires there.
  EXPECT_EQ(*off, mapped_file_offset(reinterpret_cast<uintptr_t>(&xtap_elf_symbols_probe_target)));
  EXPECT_EQ(xtap_elf_symbols_probe_target(1), 4);
  EXPECT_FALSE(elf->find("xtap_elf_symbols_probe_targe"));  // a prefix is not the name
  EXPECT_FALSE(elf->file_offset(~uint64_t(0) - 16));        // in no segment
  EXPECT_FALSE(elf->build_id().empty());
}

// The module compares the bytes at build_id_offset() of the file on the
// target with build_id(): they must be the note's descriptor.
TEST(ElfSymbols, BuildIdOffsetPointsAtItsBytes) {
  std::string why;
  auto elf = ElfSymbols::open(self_path(), &why);
  ASSERT_TRUE(elf) << why;
  std::string id = elf->build_id();
  ASSERT_FALSE(id.empty());
  uint64_t off = elf->build_id_offset();
  ASSERT_GT(off, 0u);
  std::ifstream f(self_path(), std::ios::binary);
  f.seekg(static_cast<std::streamoff>(off));
  std::string raw(id.size() / 2, '\0');
  f.read(raw.data(), static_cast<std::streamsize>(raw.size()));
  std::string hex;
  for (unsigned char ch : raw) {
    static const char digits[] = "0123456789abcdef";
    hex += digits[ch >> 4];
    hex += digits[ch & 15];
  }
  EXPECT_EQ(hex, id);
}

TEST(ElfSymbols, FunctionsAreSortedAndUnique) {
  std::string why;
  auto elf = ElfSymbols::open(self_path(), &why);
  ASSERT_TRUE(elf) << why;
  const auto &fs = elf->functions();
  ASSERT_GT(fs.size(), 100u);
  for (size_t i = 1; i < fs.size(); ++i) EXPECT_LT(fs[i - 1].name, fs[i].name);
}

TEST(ElfSymbols, StrippedLibraryFallsBackToDynsym) {
  const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
  if (access(libc, R_OK) != 0) GTEST_SKIP() << "no " << libc;
  std::string why;
  auto elf = ElfSymbols::open(libc, &why);
  ASSERT_TRUE(elf) << why;
  EXPECT_TRUE(elf->is_shared_object());
  EXPECT_EQ(elf->table(), ".dynsym");
  const ElfFunction *f = elf->find("malloc");
  ASSERT_TRUE(f);
  EXPECT_TRUE(elf->file_offset(f->address));
}

TEST(ElfSymbols, RefusesWhatIsNoProgram) {
  std::string why;
  EXPECT_FALSE(ElfSymbols::parse("#!/bin/sh\necho hi\n", &why));
  EXPECT_EQ(why, "not an ELF file");
  EXPECT_FALSE(ElfSymbols::parse("", &why));
  EXPECT_FALSE(ElfSymbols::open("/no/such/file", &why));
  EXPECT_NE(why.find("No such file"), std::string::npos);

  std::string bytes = read_all(self_path());
  ASSERT_GT(bytes.size(), sizeof(Elf64_Ehdr));
  // A relocatable object: no program headers, no addresses to probe.
  std::string object = bytes;
  Elf64_Half rel = ET_REL;
  std::memcpy(&object[offsetof(Elf64_Ehdr, e_type)], &rel, sizeof rel);
  EXPECT_FALSE(ElfSymbols::parse(object, &why));
  EXPECT_NE(why.find("not a program or shared library"), std::string::npos);
  // Truncated: program headers beyond the end.
  EXPECT_FALSE(ElfSymbols::parse(bytes.substr(0, sizeof(Elf64_Ehdr)), &why));
  // Cut in the middle: whatever survives is bounds-checked (no crash).
  for (size_t cut : {bytes.size() / 2, bytes.size() - 1, size_t(4096)}) {
    auto elf = ElfSymbols::parse(bytes.substr(0, cut), &why);
    if (elf) (void)elf->build_id();
  }
}

// The USDT workload of the runtime tests, compiled here: its notes as
// readelf -n shows them (skipped without gcc or sys/sdt.h).
TEST(ElfSymbols, ReadsUsdtNotes) {
  if (access("/usr/include/x86_64-linux-gnu/sys/sdt.h", R_OK) != 0 &&
      access("/usr/include/sys/sdt.h", R_OK) != 0)
    GTEST_SKIP() << "no sys/sdt.h (systemtap-sdt-dev)";
  test::TempDir dir;
  std::string exe = (dir.path() / "usdt_n").string();
  std::string cmd = "gcc -O2 -o " + exe + " " + std::string(XTAP_SOURCE_DIR) +
                    "/tests/runtime/workloads/usdt_n.c 2>/dev/null";
  if (system(cmd.c_str()) != 0) GTEST_SKIP() << "cannot compile the USDT workload";
  std::string why;
  auto elf = ElfSymbols::open(exe, &why);
  ASSERT_TRUE(elf) << why;
  auto notes = elf->sdt_notes();
  ASSERT_EQ(notes.size(), 3u);
  std::map<std::string, SdtNote> by_name;
  for (const auto &n : notes) {
    EXPECT_EQ(n.provider, "xtap");
    EXPECT_TRUE(elf->file_offset(n.pc)) << n.name;
    EXPECT_NE(n.semaphore, 0u) << n.name;  // _SDT_HAS_SEMAPHORES
    by_name[n.name] = n;
  }
  ASSERT_TRUE(by_name.count("tick") && by_name.count("guarded") && by_name.count("hello"));
  std::istringstream tick(by_name["tick"].args);
  std::string spec;
  int nargs = 0;
  while (tick >> spec) {
    ++nargs;
    EXPECT_NE(spec.find('@'), std::string::npos) << spec;
  }
  EXPECT_EQ(nargs, 3);
  EXPECT_EQ(by_name["hello"].args.substr(0, 2), "8@");
}

}  // namespace
}  // namespace xtap
