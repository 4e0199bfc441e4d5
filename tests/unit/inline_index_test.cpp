// The inline-instance index's format (symbols/inline_index.h): lookups by
// literal name, by glob and by file, and that a damaged or foreign file is
// refused (the caller then rebuilds it) rather than read.
#include "symbols/inline_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/file_io.h"
#include "temp_dir.h"

namespace xtap {
namespace {

std::vector<InlineRow> sample() {
  return {
      {"d_inode", "include/linux/dcache.h", 520, 0x3000, 30, 3},
      {"d_backing_inode", "include/linux/dcache.h", 540, 0x2000, 20, 2},
      {"d_inode", "include/linux/dcache.h", 520, 0x1000, 10, 1},
      {"d", "a.c", 1, 0x10, 1, 1},
      {"zap", "mm/memory.c", 7, 0x4000, 40, 4},
  };
}

std::vector<std::string> found(const InlineIndex &x, const std::string &glob,
                               const std::string &file = "") {
  std::vector<std::string> out;
  x.match(
      glob, [&](const char *f) { return file.empty() || file == f; },
      [&](uint32_t i) {
        InlineRow r = x.row(i);
        out.push_back(r.name + "@" + std::to_string(r.entry));
      });
  return out;
}

TEST(InlineIndex, FindsByLiteralNameGlobAndFile) {
  auto x = InlineIndex::from_bytes(InlineIndex::serialize(sample()));
  ASSERT_TRUE(x);
  EXPECT_EQ(x->size(), 5u);
  EXPECT_EQ(found(*x, "d_inode"), (std::vector<std::string>{"d_inode@4096", "d_inode@12288"}));
  EXPECT_EQ(found(*x, "d"), (std::vector<std::string>{"d@16"}));
  EXPECT_EQ(found(*x, "d_*inode"),
            (std::vector<std::string>{"d_backing_inode@8192", "d_inode@4096", "d_inode@12288"}));
  EXPECT_EQ(found(*x, "*", "mm/memory.c"), (std::vector<std::string>{"zap@16384"}));
  EXPECT_TRUE(found(*x, "nosuch").empty());
  InlineRow r = x->row(0);
  EXPECT_EQ(r.name, "d");
  EXPECT_EQ(r.file, "a.c");
  EXPECT_EQ(r.outer, 1u);
}

TEST(InlineIndex, EmptyIndexIsValid) {
  auto x = InlineIndex::from_bytes(InlineIndex::serialize({}));
  ASSERT_TRUE(x);
  EXPECT_TRUE(found(*x, "*").empty());
}

TEST(InlineIndex, RefusesDamagedFiles) {
  std::string good = InlineIndex::serialize(sample());
  EXPECT_FALSE(InlineIndex::from_bytes(good.substr(0, good.size() - 1)));
  EXPECT_FALSE(InlineIndex::from_bytes(""));
  std::string other = good;
  other[8] = 99;  // another version
  EXPECT_FALSE(InlineIndex::from_bytes(other));
  xtap::test::TempDir dir;
  std::string path = dir.path().string() + "/x.inl";
  ASSERT_TRUE(write_file(path, good));
  auto mapped = InlineIndex::map_file(path);
  ASSERT_TRUE(mapped);
  EXPECT_EQ(found(*mapped, "zap"), (std::vector<std::string>{"zap@16384"}));
  ASSERT_TRUE(write_file(path, good.substr(0, 40)));
  EXPECT_FALSE(InlineIndex::map_file(path));
  EXPECT_FALSE(InlineIndex::map_file(dir.path().string() + "/missing.inl"));
}

}  // namespace
}  // namespace xtap
