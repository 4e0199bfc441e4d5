// A scratch directory for one test, removed with everything in it when the
// test ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace xtap::test {

class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "xtap-test-XXXXXX").string();
    if (mkdtemp(templ.data())) path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::filesystem::path &path() const { return path_; }
  std::string str(const std::string &rel = "") const {
    return rel.empty() ? path_.string() : (path_ / rel).string();
  }
  // Writes `data` to `rel`, creating the directories on the way.
  std::string write(const std::string &rel, const std::string &data) const {
    std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << data;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace xtap::test
