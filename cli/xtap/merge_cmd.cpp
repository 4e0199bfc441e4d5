// xtap --merge (merge_cmd.h).
#include "xtap/merge_cmd.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "common/file_io.h"
#include "merge/merge_print.h"

namespace xtap::cli {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[] = "XTAPAGG\n";

bool looks_like_aggregates(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  char head[8] = {};
  return f.read(head, sizeof(head)) && std::equal(head, head + 8, kMagic);
}

// The files to merge, in a stable order: as given, a directory's sorted.
bool collect(const std::vector<std::string> &args, std::vector<std::string> *files,
             std::string *error) {
  for (const std::string &a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(a, ec); !ec && it != fs::end(it);
           it.increment(ec))
        if (it->is_regular_file(ec) && looks_like_aggregates(it->path()))
          found.push_back(it->path().string());
      std::sort(found.begin(), found.end());
      if (found.empty()) {
        *error = a + ": no aggregates files under it (xtap-run --aggregates FILE writes them)";
        return false;
      }
      files->insert(files->end(), found.begin(), found.end());
    } else if (fs::exists(a, ec)) {
      files->push_back(a);
    } else {
      *error = a + ": no such file or directory";
      return false;
    }
  }
  return true;
}

// Two dumps from one host name (two runs of one machine, say) are told
// apart by their files.
void unique_labels(std::vector<merge::HostDump> *dumps) {
  std::map<std::string, int> seen;
  for (const auto &d : *dumps) seen[d.label]++;
  for (auto &d : *dumps)
    if (seen[d.label] > 1) d.label += " (" + d.path + ")";
}

}  // namespace

int print_merged(std::vector<merge::HostDump> dumps, const Options &o, std::ostream &out) {
  unique_labels(&dumps);
  std::string err;
  auto merged = merge::merge_dumps(dumps, &err);
  if (!merged) {
    std::cerr << "xtap: --merge: " << err << "\n";
    return 1;
  }
  if (!o.quiet && !o.json) {
    std::cerr << "xtap: fleet view of module " << merged->module << " (" << merged->script << "), "
              << merged->hosts.size() << " host" << (merged->hosts.size() == 1 ? "" : "s") << ":";
    for (size_t i = 0; i < merged->hosts.size(); ++i)
      std::cerr << (i ? ", " : " ") << merged->hosts[i] << " (" << merged->kernels[i] << ")";
    std::cerr << "\n";
  }
  for (const auto &w : merged->warnings) std::cerr << "xtap: warning: " << w << "\n";
  merge::PrintOptions po;
  po.per_host = o.per_host;
  out << (o.json ? merge::merged_json(*merged, po) : merge::merged_text(*merged, po));
  out.flush();
  return out ? 0 : 1;
}

int run_merge(const Options &o) {
  std::vector<std::string> args = {o.script_file};
  args.insert(args.end(), o.script_args.begin(), o.script_args.end());
  std::vector<std::string> files;
  std::string err;
  if (!collect(args, &files, &err)) {
    std::cerr << "xtap: --merge: " << err << "\n";
    return 1;
  }
  std::vector<merge::HostDump> dumps;
  for (const std::string &f : files) {
    bool ok = false;
    std::string bytes = read_file(f, &ok);
    if (!ok) {
      std::cerr << "xtap: --merge: cannot read " << f << "\n";
      return 1;
    }
    auto d = merge::decode_dump(bytes, f, &err);
    if (!d) {
      std::cerr << "xtap: --merge: " << err << "\n";
      return 1;
    }
    dumps.push_back(std::move(*d));
  }
  if (o.output_file.empty()) return print_merged(std::move(dumps), o, std::cout);
  std::ofstream out(o.output_file, std::ios::binary | std::ios::trunc);
  if (!out) {
    std::cerr << "xtap: cannot write " << o.output_file << "\n";
    return 1;
  }
  return print_merged(std::move(dumps), o, out);
}

}  // namespace xtap::cli
