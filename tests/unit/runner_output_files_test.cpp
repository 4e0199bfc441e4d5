// xtap-run -o FILE -S SIZE[,N]: the output file series and its switching.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/file_io.h"
#include "runner/output_files.h"
#include "temp_dir.h"

namespace xtap::runner {
namespace {

TEST(SwitchSpec, SizeAndCount) {
  uint64_t mb = 9;
  unsigned keep = 9;
  std::string err;
  ASSERT_TRUE(parse_switch_spec("2", &mb, &keep, &err)) << err;
  EXPECT_EQ(mb, 2u);
  EXPECT_EQ(keep, 0u);
  ASSERT_TRUE(parse_switch_spec("0,3", &mb, &keep, &err)) << err;
  EXPECT_EQ(mb, 0u);
  EXPECT_EQ(keep, 3u);
  for (const char *bad : {"", "x", "1,", "1,0", "-1", "1,2,3", ",2"}) {
    EXPECT_FALSE(parse_switch_spec(bad, &mb, &keep, &err)) << bad;
    EXPECT_NE(err.find("-S SIZE[,N]"), std::string::npos) << err;
  }
}

TEST(OutputFiles, WithoutSwitchingOneFileAndMarksAreIgnored) {
  test::TempDir d;
  OutputFiles f;
  std::string err;
  ASSERT_TRUE(f.open(d.str("out"), false, 0, 0, &err)) << err;
  ASSERT_TRUE(f.write("a\n", 2));
  ASSERT_TRUE(f.next(&err));
  ASSERT_TRUE(f.write("b\n", 2));
  f.close();
  EXPECT_EQ(read_file(d.str("out")), "a\nb\n");
  EXPECT_FALSE(std::filesystem::exists(d.str("out.1")));
}

TEST(OutputFiles, SizeLimitStartsTheNextFileBetweenRecordsAndKeepsTheLastN) {
  test::TempDir d;
  OutputFiles f;
  std::string err;
  ASSERT_TRUE(f.open(d.str("log"), true, 1, 2, &err)) << err;
  const std::string half(512 * 1024, 'x');
  EXPECT_EQ(f.current(), d.str("log.0"));
  EXPECT_FALSE(f.full_before(0, half.size()));  // an empty file takes any record
  ASSERT_TRUE(f.write(half.data(), half.size()));
  EXPECT_FALSE(f.full_before(0, half.size()));  // exactly 1 MiB still fits
  EXPECT_TRUE(f.full_before(half.size(), 1));   // pending bytes count
  ASSERT_TRUE(f.write(half.data(), half.size()));
  EXPECT_TRUE(f.full_before(0, 1));
  ASSERT_TRUE(f.next(&err)) << err;
  ASSERT_TRUE(f.write("1\n", 2));
  ASSERT_TRUE(f.next(&err)) << err;  // log.2: log.0 is the third file back, removed
  ASSERT_TRUE(f.write("2\n", 2));
  f.close();
  EXPECT_FALSE(std::filesystem::exists(d.str("log.0")));
  EXPECT_EQ(read_file(d.str("log.1")), "1\n");
  EXPECT_EQ(read_file(d.str("log.2")), "2\n");
}

}  // namespace
}  // namespace xtap::runner
