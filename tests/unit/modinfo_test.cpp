// .modinfo of a real module built by xtap, of files that are not modules,
// and xtap-run's refusal of a module built for another kernel.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

#include "common/file_io.h"
#include "common/modinfo.h"
#include "real_module.h"
#include "runner/kmod.h"
#include "temp_dir.h"

namespace xtap {
namespace {

TEST(ModInfo, ReadsARealModule) {
  XTAP_NEED_REAL_MODULE(m);
  std::string err;
  auto mi = read_modinfo(m.path, &err);
  ASSERT_TRUE(mi) << err;
  EXPECT_EQ(mi->name, "t_unit_real");
  EXPECT_EQ(mi->release(), m.release);
  EXPECT_NE(mi->vermagic.find(" SMP "), std::string::npos) << mi->vermagic;
  ASSERT_EQ(mi->wildcards.size(), 1u);
  EXPECT_EQ(mi->wildcards[0], std::make_pair(0, std::string("vfs_rea*")));
}

TEST(ModInfo, ARenamedFileKeepsTheModulesName) {
  XTAP_NEED_REAL_MODULE(m);
  test::TempDir dir;
  std::string copy = dir.write("other-name.ko", read_file(m.path));
  std::string err;
  auto mi = read_modinfo(copy, &err);
  ASSERT_TRUE(mi) << err;
  EXPECT_EQ(mi->name, "t_unit_real");
}

TEST(ModInfo, RefusesASectionOutsideTheFile) {
  // Section 1's offset far past the end: the kernel would say "invalid
  // module format", which reads as the wrong kernel.
  XTAP_NEED_REAL_MODULE(m);
  std::string bytes = read_file(m.path);
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  ASSERT_GT(eh.e_shnum, 1);
  std::memset(bytes.data() + eh.e_shoff + sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_offset),
              0xff, 8);
  test::TempDir dir;
  std::string broken = dir.write("broken.ko", bytes);
  std::string err;
  EXPECT_FALSE(read_modinfo(broken, &err));
  EXPECT_EQ(
      err,
      broken + " is not a kernel module (corrupt ELF headers: section 1 lies outside the file)");
}

TEST(ModInfo, ExplainsWhatIsNotAModule) {
  std::string err;
  EXPECT_FALSE(read_modinfo("/no/such.ko", &err));
  EXPECT_EQ(err, "cannot open /no/such.ko: No such file or directory");

  test::TempDir dir;
  std::string text = dir.write("text.ko", "not a module\n");
  EXPECT_FALSE(read_modinfo(text, &err));
  EXPECT_EQ(err, text + " is not a kernel module (not an ELF file)");

  using namespace std::string_literals;
  std::string xz = dir.write("m.ko.xz", "\xfd\x37zXZ\0\0\4\xe6"s);
  EXPECT_FALSE(read_modinfo(xz, &err));
  EXPECT_EQ(err,
            xz + " is xz-compressed: decompress it first (xtap-run reads modules as plain ELF)");

  std::string program = std::string(XTAP_BINARY_DIR) + "/cli/xtap-run";
  EXPECT_FALSE(read_modinfo(program, &err));
  EXPECT_EQ(err, program + " has no .modinfo section: not a kernel module");
}

TEST(ModInfo, ParsesEntries) {
  using namespace std::string_literals;  // "..."s keeps the NULs
  std::string sec =
      "license=GPL\0name=t_x\0xtap_wildcard=0:vfs_*\0xtap_wildcard=2:do_sys_*\0"
      "xtap_wildcard=bad\0vermagic=6.1.0-56-cloud-amd64 SMP mod_unload modversions "s;
  ModInfo mi = parse_modinfo(sec, "/x/t_x.ko");
  EXPECT_EQ(mi.name, "t_x");
  EXPECT_EQ(mi.release(), "6.1.0-56-cloud-amd64");
  ASSERT_EQ(mi.wildcards.size(), 2u);
  EXPECT_EQ(mi.wildcards[1], std::make_pair(2, std::string("do_sys_*")));
}

TEST(ModInfo, NameFromThePathAsTheKernelDoes) {
  EXPECT_EQ(module_name_from_path("/a/b/my-mod.ko"), "my_mod");
  EXPECT_EQ(module_name_from_path("plain"), "plain");
  EXPECT_EQ(parse_modinfo(std::string_view("vermagic=6.1 ", 13), "/d/x-y.ko").name, "x_y");
}

TEST(WrongKernel, RefusesAModuleBuiltForAnotherKernelNamingBoth) {
  XTAP_NEED_REAL_MODULE(m);
  std::string err;
  auto mi = read_modinfo(m.path, &err);
  ASSERT_TRUE(mi) << err;
  EXPECT_EQ(runner::wrong_kernel(*mi, m.path, m.release), "");
  EXPECT_EQ(runner::wrong_kernel(*mi, m.path, "6.99.0-1-amd64"),
            "module t_unit_real.ko was built for kernel " + m.release +
                ", but this kernel is 6.99.0-1-amd64 (build it for this kernel with xtap -r "
                "6.99.0-1-amd64)");
}

TEST(WrongKernel, ComparesWholeReleases) {
  ModInfo mi;
  mi.vermagic = "6.1.0-56-cloud-amd64 SMP preempt mod_unload modversions ";
  EXPECT_NE(runner::wrong_kernel(mi, "m.ko", "6.1.0-5"), "");
  EXPECT_NE(runner::wrong_kernel(mi, "m.ko", "6.1.0-56-cloud-amd64-rt"), "");
}

}  // namespace
}  // namespace xtap
