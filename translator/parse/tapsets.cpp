#include "parse/tapsets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "parse/lexer.h"

namespace fs = std::filesystem;

namespace xtap {

namespace {

// The files named *EXT under `dir`, recursively, in name order.
bool files_under(const std::string &dir, const std::string &ext, std::vector<fs::path> *files,
                 std::string *error) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ext) files->push_back(it->path());
  if (ec) {
    *error = "cannot read tapset directory '" + dir + "': " + ec.message();
    return false;
  }
  std::sort(files->begin(), files->end());
  return true;
}

std::unique_ptr<SourceFile> read_source(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::make_unique<SourceFile>(SourceFile{path.string(), ss.str()});
}

}  // namespace

bool load_macro_files(const std::vector<std::string> &dirs, PreprocessContext *ctx,
                      Diagnostics &diags, std::vector<std::unique_ptr<SourceFile>> *out,
                      std::string *error) {
  for (const auto &dir : dirs) {
    std::vector<fs::path> files;
    if (!files_under(dir, ".stpm", &files, error)) return false;
    for (const auto &path : files) {
      auto file = read_source(path);
      collect_library_macros(lex(*file, diags), ctx, diags);
      out->push_back(std::move(file));
    }
  }
  return true;
}

bool load_tapsets(Script &script, const std::vector<std::string> &dirs, Diagnostics &diags,
                  const PreprocessContext *ctx, std::string *error) {
  for (const auto &dir : dirs) {
    std::vector<fs::path> files;
    if (!files_under(dir, ".stp", &files, error)) return false;
    for (const auto &path : files) {
      auto file = read_source(path);
      ParseOptions opts;
      opts.tapset = true;
      parse_into(script, *file, diags, ctx, opts);
      script.tapset_files.push_back(std::move(file));
    }
  }
  return true;
}

}  // namespace xtap
