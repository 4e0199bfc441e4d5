// The minimal ELF reader (common/elf_file.h) on real files: the static
// xtap-run of this build, a dynamically linked system program, a module
// built by xtap, and broken copies of them.
#include <gtest/gtest.h>

#include <elf.h>

#include <cstring>

#include "common/elf_file.h"
#include "common/file_io.h"
#include "real_module.h"
#include "temp_dir.h"

namespace xtap {
namespace {

const std::string kStaticRunner = std::string(XTAP_BINARY_DIR) + "/cli/xtap-run";
const std::string kDynamicProgram = std::string(XTAP_BINARY_DIR) + "/cli/xtap";

TEST(ElfFile, TellsStaticFromDynamicPrograms) {
  EXPECT_FALSE(is_dynamically_linked(kStaticRunner));
  EXPECT_TRUE(is_dynamically_linked(kDynamicProgram));
  EXPECT_FALSE(is_dynamically_linked(std::string(XTAP_SOURCE_DIR) + "/README.md"));
  EXPECT_FALSE(is_dynamically_linked("/no/such/file"));
}

TEST(ElfFile, FindsSectionsByName) {
  std::string err;
  auto elf = ElfFile::open(kStaticRunner, &err);
  ASSERT_TRUE(elf) << err;
  auto text = elf->section(".text");
  ASSERT_TRUE(text);
  EXPECT_GT(text->size(), 1000u);
  EXPECT_FALSE(elf->section(".modinfo"));
  EXPECT_FALSE(elf->section(".tex"));  // a prefix of a name is not the name
}

TEST(ElfFile, ReadsAModulesModinfo) {
  XTAP_NEED_REAL_MODULE(m);
  std::string err;
  auto elf = ElfFile::open(m.path, &err);
  ASSERT_TRUE(elf) << err;
  EXPECT_FALSE(elf->has_interpreter());
  auto mi = elf->section(".modinfo");
  ASSERT_TRUE(mi);
  EXPECT_NE(mi->find("vermagic=" + m.release + " "), std::string_view::npos);
}

TEST(ElfFile, RefusesWhatIsNotELF64) {
  std::string why;
  EXPECT_FALSE(ElfFile::parse("#!/bin/sh\n", &why));
  EXPECT_EQ(why, "not an ELF file");
  std::string elf32 = read_file(kStaticRunner).substr(0, 64);
  elf32[4] = 1;  // EI_CLASS = ELFCLASS32
  EXPECT_FALSE(ElfFile::parse(elf32, &why));
  EXPECT_EQ(why, "not a 64-bit ELF file");
  std::string err;
  EXPECT_FALSE(ElfFile::open("/no/such/file", &err));
  EXPECT_EQ(err, "cannot open /no/such/file: No such file or directory");
}

TEST(ElfFile, SurvivesTruncatedAndCorruptFiles) {
  std::string whole = read_file(kStaticRunner);
  std::string why;
  // Cut where the section headers are (at the end of the file).
  EXPECT_FALSE(ElfFile::parse(whole.substr(0, whole.size() - 100), &why));
  EXPECT_EQ(why, "corrupt ELF headers");
  // Every prefix either parses or is refused; none may read out of bounds
  // (run under ASan to be sure).
  for (size_t len : {0ul, 16ul, 63ul, 64ul, 65ul, 1000ul, whole.size() / 2})
    if (auto elf = ElfFile::parse(whole.substr(0, len), &why)) elf->section(".text");
  // A section whose contents would lie past the end of the file is not
  // returned: point every section header's offset past the end.
  std::string broken = whole;
  Elf64_Ehdr eh;
  std::memcpy(&eh, broken.data(), sizeof eh);
  for (size_t i = 0; i < eh.e_shnum; i++) {
    Elf64_Shdr sh;
    char *at = broken.data() + eh.e_shoff + i * sizeof sh;
    std::memcpy(&sh, at, sizeof sh);
    sh.sh_offset = broken.size() - 1;
    std::memcpy(at, &sh, sizeof sh);
  }
  auto elf = ElfFile::parse(broken, &why);
  ASSERT_TRUE(elf) << why;
  EXPECT_FALSE(elf->section(".text"));
  EXPECT_TRUE(elf->section_outside_file());
  EXPECT_FALSE(ElfFile::parse(whole, &why)->section_outside_file());
}

}  // namespace
}  // namespace xtap
