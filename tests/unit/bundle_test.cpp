// Bundles without a VM: the kernel build-id notes, and how xtap-run picks a
// module from a manifest (docs/fleet.md). The VM side is tests/fleet/.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>

#include "common/build_id.h"
#include "runner/bundle.h"
#include "temp_dir.h"

namespace xtap {
namespace {

std::string note(uint32_t type, std::string_view name, std::string_view desc) {
  Elf64_Nhdr h{static_cast<Elf64_Word>(name.size()), static_cast<Elf64_Word>(desc.size()), type};
  std::string out(reinterpret_cast<const char *>(&h), sizeof h);
  auto padded = [&](std::string_view s) {
    out += s;
    out.append((4 - s.size() % 4) % 4, '\0');
  };
  padded(name);
  padded(desc);
  return out;
}

TEST(BuildId, FoundAmongOtherNotes) {
  // A kernel's .notes holds Xen and Linux notes before the GNU build-id.
  std::string notes = note(18, std::string_view("Xen\0", 4), "\x01\x02\x03") +
                      note(NT_GNU_BUILD_ID, std::string_view("GNU\0", 4), "\xde\xad\xbe\xef\x01");
  EXPECT_EQ(build_id_from_notes(notes), "deadbeef01");
  EXPECT_EQ(build_id_from_notes(note(18, "Xen", "x")), "");
}

TEST(BuildId, MalformedNotesGiveNothing) {
  std::string notes = note(NT_GNU_BUILD_ID, std::string_view("GNU\0", 4), "\xaa\xbb");
  EXPECT_EQ(build_id_from_notes(notes.substr(0, notes.size() - 4)), "");
  EXPECT_EQ(build_id_from_notes("abc"), "");
  Elf64_Nhdr huge{0xffffffffu, 0xffffffffu, NT_GNU_BUILD_ID};
  EXPECT_EQ(
      build_id_from_notes(std::string(reinterpret_cast<const char *>(&huge), sizeof huge) + "GNU"),
      "");
}

TEST(BuildId, TheRunningKernelHasOneWhereSysfsIsReadable) {
  if (access("/sys/kernel/notes", R_OK) != 0) GTEST_SKIP() << "/sys/kernel/notes unreadable";
  EXPECT_EQ(running_kernel_build_id().size(), 40u) << running_kernel_build_id();
}

const char *kManifest = R"({
  "xtap_bundle": 1,
  "module": "xtap_t",
  "modules": [
    {"release": "6.1.0-56-cloud-amd64", "file": "6.1.0-56-cloud-amd64/xtap_t.ko", "kernel_build_id": "aaaa"},
    {"release": "6.12.117+deb12-cloud-amd64", "file": "6.12.117+deb12-cloud-amd64/xtap_t.ko", "kernel_build_id": "bbbb"}
  ]
})";

TEST(Bundle, PicksByReleaseAndBuildId) {
  test::TempDir d;
  d.write("manifest.json", kManifest);
  ASSERT_TRUE(runner::is_bundle(d.str()));
  EXPECT_FALSE(runner::is_bundle(d.str("manifest.json")));
  std::string ko, err;
  ASSERT_TRUE(runner::pick_from_bundle(d.str(), "6.12.117+deb12-cloud-amd64", "bbbb", &ko, &err))
      << err;
  EXPECT_EQ(ko, d.str() + "/6.12.117+deb12-cloud-amd64/xtap_t.ko");
  // Without a readable build-id the release decides.
  ASSERT_TRUE(runner::pick_from_bundle(d.str(), "6.1.0-56-cloud-amd64", "", &ko, &err)) << err;
  EXPECT_EQ(ko, d.str() + "/6.1.0-56-cloud-amd64/xtap_t.ko");
}

TEST(Bundle, NamesWhatItHasForAForeignKernel) {
  test::TempDir d;
  d.write("manifest.json", kManifest);
  std::string ko, err;
  EXPECT_FALSE(runner::pick_from_bundle(d.str(), "6.10.0-1-amd64", "cccc", &ko, &err));
  EXPECT_NE(err.find("has no module for this kernel (6.10.0-1-amd64); it has modules for "
                     "6.1.0-56-cloud-amd64, 6.12.117+deb12-cloud-amd64"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("xtap -p4 --kernels 6.10.0-1-amd64,"), std::string::npos) << err;
}

TEST(Bundle, RefusesAnotherBuildOfTheSameRelease) {
  test::TempDir d;
  d.write("manifest.json", kManifest);
  std::string ko, err;
  EXPECT_FALSE(runner::pick_from_bundle(d.str(), "6.1.0-56-cloud-amd64", "ffff", &ko, &err));
  EXPECT_NE(err.find("for another build of it (kernel build-id aaaa; this kernel's is ffff)"),
            std::string::npos)
      << err;
}

TEST(Bundle, MalformedManifestsAreExplained) {
  test::TempDir d;
  std::string ko, err;
  d.write("manifest.json", "{\"xtap_bundle\": 1, \"modules\": [");
  EXPECT_FALSE(runner::pick_from_bundle(d.str(), "r", "", &ko, &err));
  EXPECT_NE(err.find("is not a bundle manifest: line 1"), std::string::npos) << err;
  d.write("manifest.json", "{\"xtap_bundle\": 7}");
  EXPECT_FALSE(runner::pick_from_bundle(d.str(), "r", "", &ko, &err));
  EXPECT_NE(err.find("xtap_bundle 7, expected 1"), std::string::npos) << err;
  d.write("manifest.json",
          R"({"xtap_bundle": 1, "modules": [{"release": "r", "file": "../../etc/x.ko"}]})");
  EXPECT_FALSE(runner::pick_from_bundle(d.str(), "r", "", &ko, &err));
  EXPECT_NE(err.find("malformed module entry"), std::string::npos) << err;
}

}  // namespace
}  // namespace xtap
