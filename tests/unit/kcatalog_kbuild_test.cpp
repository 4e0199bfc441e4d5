// xtap-kcatalog's reading of Kbuild: the compile command of a .cmd file
// turned into Clang flags, and the syscall table of the generated headers.
#include <gtest/gtest.h>

#include "kbuild/catalog/kernel_flags.h"
#include "kbuild/catalog/syscall_table.h"

namespace xtap::kcatalog {
namespace {

// Shortened from a real 6.12 .xtap_kcatalog_flags.o.cmd.
const char kCmdFile[] =
    "savedcmd_/tmp/w/flags/probe.o := x86_64-linux-gnu-gcc-12 -Wp,-MMD,/tmp/w/flags/.probe.o.d "
    "-nostdinc -I/usr/src/common/arch/x86/include -I./arch/x86/include/generated "
    "-I/usr/src/common/include -I ./include -include /usr/src/common/include/linux/kconfig.h "
    "-D__KERNEL__ -fmacro-prefix-map=/usr/src/common/= -std=gnu11 -fshort-wchar -funsigned-char "
    "-mno-sse -mno-mmx -mno-80387 -mcmodel=kernel -fcf-protection=branch -m64 -O2 -pg "
    "-Werror=implicit-int -Wno-sign-compare -DMODULE "
    "-DKBUILD_BASENAME='\"probe\"' -DKBUILD_MODNAME='\"probe\"' -D__KBUILD_MODNAME=kmod_probe "
    "-c -o /tmp/w/flags/probe.o /tmp/w/flags/probe.c   ; ./tools/objtool/objtool "
    "--hacks=jump_label "
    "--module /tmp/w/flags/probe.o\n"
    "\n"
    "source_/tmp/w/flags/probe.o := /tmp/w/flags/probe.c\n";

TEST(KcatalogFlags, KeepsWhatChangesDeclarationsAndMakesPathsAbsolute) {
  std::string command = command_from_cmd_file(kCmdFile);
  EXPECT_EQ(command.rfind("x86_64-linux-gnu-gcc-12 ", 0), 0u);
  KernelFlags flags;
  std::string error;
  ASSERT_TRUE(clang_flags_from_command(command, "/usr/src/build", &flags, &error)) << error;
  std::vector<std::string> want = {
      "-nostdinc",
      "-I/usr/src/common/arch/x86/include",
      "-I/usr/src/build/arch/x86/include/generated",
      "-I/usr/src/common/include",
      "-I/usr/src/build/include",
      "-include",
      "/usr/src/common/include/linux/kconfig.h",
      "-D__KERNEL__",
      "-std=gnu11",
      "-fshort-wchar",
      "-funsigned-char",
      "-mno-sse",
      "-mno-mmx",
      "-mno-80387",
      "-m64",
      "-DMODULE",
      "-DKBUILD_BASENAME=\"probe\"",
      "-DKBUILD_MODNAME=\"probe\"",
      "-D__KBUILD_MODNAME=kmod_probe",
  };
  EXPECT_EQ(flags.args, want);
  EXPECT_EQ(flags.arch, "x86");
  EXPECT_EQ(flags.include_dirs.size(), 4u);
}

TEST(KcatalogFlags, ABareCommandLineIsItsOwnCommand) {
  EXPECT_EQ(command_from_cmd_file("gcc -I/x -c f.c"), "gcc -I/x -c f.c");
  KernelFlags flags;
  std::string error;
  EXPECT_FALSE(clang_flags_from_command("gcc -c f.c", "/b", &flags, &error));
  EXPECT_NE(error.find("no -I options"), std::string::npos);
}

TEST(KcatalogSyscalls, ReadsNumbersAndEntryPoints) {
  auto numbers = parse_unistd(
      "#ifndef _ASM_UNISTD_64_H\n#define _ASM_UNISTD_64_H\n"
      "#define __NR_read 0\n#define __NR_umount2 166\n#define __NR_openat 257\n"
      "#define __NR_syscalls 451\n#endif\n");
  ASSERT_EQ(numbers.size(), 4u);
  EXPECT_EQ(numbers[1].name, "umount2");
  EXPECT_EQ(numbers[1].nr, 166);
  auto entries = parse_syscall_entries(
      "__SYSCALL(0, sys_read)\n__SYSCALL(166, sys_umount)\n__SYSCALL_NORETURN(60, sys_exit)\n"
      "garbage\n__SYSCALL(x, sys_bad)\n");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].nr, 166);
  EXPECT_EQ(entries[1].entry, "sys_umount");
  EXPECT_EQ(entries[2].entry, "sys_exit");
}

}  // namespace
}  // namespace xtap::kcatalog
