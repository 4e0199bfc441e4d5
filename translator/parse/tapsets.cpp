#include "parse/tapsets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace xtap {

bool load_tapsets(Script &script, const std::vector<std::string> &dirs, Diagnostics &diags,
                  const PreprocessContext *ctx, std::string *error) {
  for (const auto &dir : dirs) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".stp") files.push_back(it->path());
    if (ec) {
      *error = "cannot read tapset directory '" + dir + "': " + ec.message();
      return false;
    }
    std::sort(files.begin(), files.end());
    for (const auto &path : files) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream ss;
      ss << in.rdbuf();
      auto file = std::make_unique<SourceFile>(SourceFile{path.string(), ss.str()});
      ParseOptions opts;
      opts.tapset = true;
      parse_into(script, *file, diags, ctx, opts);
      script.tapset_files.push_back(std::move(file));
    }
  }
  return true;
}

}  // namespace xtap
