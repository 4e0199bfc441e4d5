// mod_object_source (kbuild/mod_object.h): a script module's NAME.mod.c is
// written without headers only when it differs from the template's in its
// CRC list alone. describe_mod_object is checked against Kbuild's objects by
// the DirectBuild test, on every installed kernel.
#include "kbuild/mod_object.h"

#include <gtest/gtest.h>

namespace xtap::kbuild {
namespace {

const char *kTemplate =
    "#include <linux/module.h>\n"
    "MODULE_INFO(name, KBUILD_MODNAME);\n"
    "\n"
    "static const struct modversion_info ____versions[]\n"
    "__used __section(\"__versions\") = {\n"
    "\t{ 0x281823c5, \"__kfifo_out_peek\" },\n"
    "\t{ 0xa351f379, \"module_layout\" },\n"
    "};\n"
    "\n"
    "MODULE_INFO(depends, \"\");\n";

const char *kSkeleton =
    "/* xtap mod object: name field 56 */\n"
    "static const char n[] = \"name={{XTAP_NAME}}\";\n"
    "static const struct modversion_info ____versions[] = {\n{{XTAP_VERSIONS}}};\n"
    "char this_module_name[56] = \"{{XTAP_NAME}}\";\n";

std::string module_modc(const std::string &versions, const std::string &depends = "") {
  return "#include <linux/module.h>\n"
         "MODULE_INFO(name, KBUILD_MODNAME);\n"
         "\n"
         "static const struct modversion_info ____versions[]\n"
         "__used __section(\"__versions\") = {\n" +
         versions +
         "};\n"
         "\n"
         "MODULE_INFO(depends, \"" +
         depends + "\");\n";
}

TEST(ModObject, FillsInTheNameAndTheModulesOwnCrcs) {
  auto src = mod_object_source(
      kSkeleton, kTemplate,
      module_modc("\t{ 0x1, \"vfs_read\" },\n\t{ 0xa351f379, \"module_layout\" },\n"), "opens");
  ASSERT_TRUE(src);
  EXPECT_EQ(*src,
            "/* xtap mod object: name field 56 */\n"
            "static const char n[] = \"name=opens\";\n"
            "static const struct modversion_info ____versions[] = {\n"
            "\t{ 0x1, \"vfs_read\" },\n\t{ 0xa351f379, \"module_layout\" },\n};\n"
            "char this_module_name[56] = \"opens\";\n");
}

TEST(ModObject, AnyOtherDifferenceCompilesKbuildsModC) {
  // A dependency on another module changes .modinfo.
  EXPECT_FALSE(mod_object_source(
      kSkeleton, kTemplate, module_modc("\t{ 0x1, \"nf_conntrack_find_get\" },\n", "nf_conntrack"),
      "m"));
  // No CRC list, or one xtap cannot read.
  EXPECT_FALSE(mod_object_source(kSkeleton, kTemplate, module_modc(""), "m"));
  EXPECT_FALSE(
      mod_object_source(kSkeleton, kTemplate, module_modc("\t{ 0x1, \"a\\\"b\" },\n"), "m"));
  EXPECT_FALSE(
      mod_object_source(kSkeleton, kTemplate, "MODULE_INFO(name, KBUILD_MODNAME);\n", "m"));
}

TEST(ModObject, NamesThatDoNotFitTheNameFieldAreLeftToKbuild) {
  const std::string crcs = "\t{ 0x1, \"vfs_read\" },\n";
  EXPECT_TRUE(mod_object_source(kSkeleton, kTemplate, module_modc(crcs), std::string(55, 'a')));
  EXPECT_FALSE(mod_object_source(kSkeleton, kTemplate, module_modc(crcs), std::string(56, 'a')));
  EXPECT_FALSE(mod_object_source(kSkeleton, kTemplate, module_modc(crcs), "a\"b"));
  EXPECT_FALSE(mod_object_source("no header", kTemplate, module_modc(crcs), "m"));
}

}  // namespace
}  // namespace xtap::kbuild
