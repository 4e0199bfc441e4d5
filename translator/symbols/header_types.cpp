#include "symbols/header_types.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include "common/process.h"
#include "symbols/dwarf.h"

namespace xtap {
namespace {

// "<a.h><b/c.h>" -> a.h, b/c.h; empty if it is not such a list of header
// names (letters, digits, '_', '-', '+', '.', '/').
std::vector<std::string> header_names(const std::string &module) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < module.size()) {
    if (module[i] != '<') return {};
    size_t close = module.find('>', i);
    if (close == std::string::npos || close == i + 1) return {};
    std::string name = module.substr(i + 1, close - i - 1);
    for (char c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '+' &&
          c != '.' && c != '/')
        return {};
    out.push_back(name);
    i = close + 1;
  }
  return out;
}

}  // namespace

bool is_user_header_module(const std::string &module) {
  return !module.empty() && module[0] == '<';
}

const KernelDwarf *user_header_types(const std::string &module, std::string *error) {
  static std::map<std::string, std::unique_ptr<KernelDwarf>> compiled;
  static std::map<std::string, std::string> failed;
  if (auto it = compiled.find(module); it != compiled.end()) return it->second.get();
  if (auto it = failed.find(module); it != failed.end()) {
    *error = it->second;
    return nullptr;
  }
  std::vector<std::string> headers = header_names(module);
  if (headers.empty()) {
    *error = "'" + module + "' is not a list of header names such as <sys/time.h>";
    failed[module] = *error;
    return nullptr;
  }
  const char *tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/xtap-headers-XXXXXX";
  if (!mkdtemp(dir.data())) {
    *error = "cannot make a directory to compile the headers in";
    return nullptr;
  }
  std::string src = dir + "/headers.c", obj = dir + "/headers.o", log = dir + "/cc.log";
  {
    std::ofstream out(src);
    for (const auto &h : headers) out << "#include <" << h << ">\n";
    // A function with code: KernelDwarf indexes functions.
    out << "int xtap_headers_unit(void) { return 0; }\n";
  }
  // Every type the headers define, used or not, gets its DWARF.
  process::SpawnSpec spec;
  spec.argv = {"cc", "-g", "-fno-eliminate-unused-debug-types", "-c", "-o", obj, src};
  spec.stdout_path = spec.stderr_path = log;
  std::string spawn_error;
  int rc = process::run_to_end(spec, &spawn_error);
  std::unique_ptr<KernelDwarf> d;
  if (rc == 0) {
    d = KernelDwarf::open(obj, "", "", error);
  } else {
    std::ifstream in(log);
    std::string first;
    std::getline(in, first);
    if (first.starts_with(src)) first = "headers.c" + first.substr(src.size());
    *error = "the C compiler cannot compile " + module +
             (rc < 0          ? ": " + spawn_error
              : first.empty() ? ""
                              : ": " + first);
  }
  for (const auto &f : {src, obj, log}) unlink(f.c_str());
  rmdir(dir.c_str());
  if (!d) {
    failed[module] = *error;
    return nullptr;
  }
  return (compiled[module] = std::move(d)).get();
}

}  // namespace xtap
