// The DWARF reader (translator/symbols/dwarf.h) on the fixture that
// tests/CMakeLists.txt compiles from btf_fixture.c with clang -g -O0: an
// ET_REL object like a kernel module, so it goes through the same libdwfl
// relocation path as a module's debuginfo. Skipped without the fixture.
#include <gtest/gtest.h>

#include <algorithm>

#include "symbols/dwarf.h"
#include "temp_dir.h"

namespace xtap {
namespace {

#ifdef XTAP_BTF_FIXTURE
const char *kFixture = XTAP_BTF_FIXTURE;
#else
const char *kFixture = nullptr;
#endif

#define NEED_FIXTURE() \
  if (!kFixture) GTEST_SKIP() << "no DWARF fixture in this build"

std::unique_ptr<KernelDwarf> open_fixture(const std::string &cache = "") {
  std::string error;
  auto d = KernelDwarf::open(kFixture, "btf_fixture", cache, &error);
  EXPECT_TRUE(d) << error;
  return d;
}

const DwarfFunction *only(const KernelDwarf &d, const std::string &name) {
  auto m = d.match(name, "");
  return m.size() == 1 ? m[0] : nullptr;
}

TEST(DwarfFiles, RelativePatternsMatchAfterAnyDirectory) {
  EXPECT_TRUE(KernelDwarf::file_matches("fs/open.c", "fs/open.c"));
  EXPECT_TRUE(KernelDwarf::file_matches("open.c", "fs/open.c"));
  EXPECT_FALSE(KernelDwarf::file_matches("open.c", "fs/xopen.c"));
  EXPECT_TRUE(KernelDwarf::file_matches("fs/proc*.c", "fs/proc/base.c"));
  EXPECT_TRUE(KernelDwarf::file_matches("*/socket.c", "net/socket.c"));
  EXPECT_FALSE(KernelDwarf::file_matches("mm/*.c", "fs/open.c"));
}

TEST(DwarfFunctions, ByNameAndSourceFile) {
  NEED_FIXTURE();
  auto d = open_fixture();
  ASSERT_TRUE(d);
  const DwarfFunction *f = only(*d, "vfs_read");
  ASSERT_TRUE(f);
  EXPECT_NE(f->file.find("btf_fixture.c"), std::string::npos) << f->file;
  EXPECT_GT(f->line, 0);
  EXPECT_EQ(f->symbol, "vfs_read");
  auto both = d->match("vfs_*", "*btf_fixture.c");
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0]->name, "vfs_read");
  EXPECT_EQ(both[1]->name, "vfs_write");
  EXPECT_TRUE(d->match("vfs_read", "fs/other.c").empty());
}

TEST(DwarfFunctions, PrototypeWithDwarfTypes) {
  NEED_FIXTURE();
  auto d = open_fixture();
  ASSERT_TRUE(d);
  std::vector<KParam> params;
  int ret = -1;
  ASSERT_TRUE(d->prototype(*only(*d, "vfs_read"), &params, &ret));
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0].name, "file");
  EXPECT_EQ(d->types().spelling(params[0].type), "struct file*");
  EXPECT_EQ(d->types().spelling(params[2].type), "size_t");
  EXPECT_EQ(d->types().spelling(ret), "long");  // clang's name for it
  // The struct behind the pointer has its members, bitfields included.
  const TypeTable &t = d->types();
  int file = t.at(params[0].type).target;
  uint64_t bits = 0;
  const KMember *m = t.find_member(file, "f_ready", &bits);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->bit_size, 1u);
  EXPECT_TRUE(t.find_member(file, "f_pos", &bits));
}

TEST(DwarfLines, RowsOfOneFunctionAndWhereItsVariablesAre) {
  NEED_FIXTURE();
  auto d = open_fixture();
  ASSERT_TRUE(d);
  const DwarfFunction *f = only(*d, "vfs_read");
  ASSERT_TRUE(f);
  auto lines = d->lines(*f, 1, 1 << 30);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_GE(lines.front().line, f->line);  // the declaration or its opening brace
  EXPECT_EQ(lines.front().addr, f->entry);
  const DwarfLine &body = lines[1];
  EXPECT_GT(body.addr, f->entry);
  std::string symbol;
  uint64_t offset = 0;
  d->kprobe_site(*f, body.addr, &symbol, &offset);
  EXPECT_EQ(symbol, "btf_fixture:vfs_read");
  EXPECT_EQ(offset, body.addr - f->entry);
  // clang -O0 keeps parameters in the frame: DW_OP_fbreg from rbp.
  auto vars = d->variables_at(*f, body.addr);
  auto file =
      std::find_if(vars.begin(), vars.end(), [](const DwarfVar &v) { return v.name == "file"; });
  ASSERT_NE(file, vars.end());
  EXPECT_TRUE(file->parameter);
  EXPECT_EQ(file->where, DwarfVar::Where::Memory) << file->why;
  EXPECT_EQ(file->reg, 6);
  EXPECT_LT(file->offset, 0);
}

TEST(DwarfIndex, SecondOpenReadsTheCachedIndex) {
  NEED_FIXTURE();
  test::TempDir dir;
  auto first = open_fixture(dir.path().string());
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->index_from_cache());
  auto again = open_fixture(dir.path().string());
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->index_from_cache());
  ASSERT_EQ(again->functions().size(), first->functions().size());
  const DwarfFunction *f = only(*again, "do_sys_openat2");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->entry, only(*first, "do_sys_openat2")->entry);
  EXPECT_EQ(f->line, only(*first, "do_sys_openat2")->line);
}

TEST(DwarfDiscovery, ModulePathsAndMissingDebuginfo) {
  std::string error;
  auto none = find_debuginfo("0.0-no-such-release", {}, "", &error);
  EXPECT_TRUE(none.empty());
  EXPECT_NE(error.find("/usr/lib/debug/boot/vmlinux-0.0-no-such-release"), std::string::npos)
      << error;
  EXPECT_NE(error.find("the package linux-image-0.0-no-such-release-dbg"), std::string::npos)
      << error;
  if (!kFixture) return;
  auto by_path = find_debuginfo("0.0-no-such-release", {}, kFixture, &error);
  ASSERT_EQ(by_path.size(), 1u);
  EXPECT_EQ(by_path[0].first, "btf_fixture");
}

}  // namespace
}  // namespace xtap
