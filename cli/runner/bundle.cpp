#include "runner/bundle.h"

#include <sys/stat.h>

#include <vector>

#include "common/file_io.h"
#include "common/json.h"

namespace xtap::runner {

bool is_bundle(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
         stat((path + "/manifest.json").c_str(), &st) == 0;
}

bool pick_from_bundle(const std::string& dir, const std::string& release,
                      const std::string& build_id, std::string* module, std::string* error) {
  std::string manifest_path = dir + "/manifest.json";
  bool ok = false;
  std::string text = read_file(manifest_path, &ok);
  if (!ok) {
    *error = "cannot read " + manifest_path;
    return false;
  }
  std::string why;
  auto manifest = json::parse(text, &why);
  if (!manifest || !manifest->is_object()) {
    *error = manifest_path + " is not a bundle manifest: " + (manifest ? "not a JSON object" : why);
    return false;
  }
  if ((*manifest)["xtap_bundle"].as_number() != 1) {
    *error = manifest_path + " is not a bundle manifest this xtap-run reads (xtap_bundle " +
             (*manifest)["xtap_bundle"].dump(-1) + ", expected 1)";
    return false;
  }
  std::vector<std::string> releases;
  std::vector<std::string> other_builds;  // build-ids of modules for this release
  for (const auto& m : (*manifest)["modules"].items()) {
    const std::string& r = m["release"].as_string();
    const std::string& file = m["file"].as_string();
    if (r.empty() || file.empty() || file.find("..") != std::string::npos || file[0] == '/') {
      *error = manifest_path + " has a malformed module entry: " + m.dump(-1);
      return false;
    }
    releases.push_back(r);
    if (r != release) continue;
    const std::string& id = m["kernel_build_id"].as_string();
    if (!build_id.empty() && !id.empty() && id != build_id) {
      other_builds.push_back(id);
      continue;
    }
    *module = dir + "/" + file;
    return true;
  }
  if (!other_builds.empty()) {
    *error = "bundle " + dir + " has a module for " + release +
             ", but for another build of it (kernel build-id " + other_builds.front() +
             "; this kernel's is " + build_id +
             "): rebuild the bundle against this kernel's own headers package";
    return false;
  }
  std::string have;
  for (const auto& r : releases) have += (have.empty() ? "" : ", ") + r;
  *error = "bundle " + dir + " has no module for this kernel (" + release + "); it has " +
           (have.empty() ? std::string("none") : "modules for " + have) +
           "\n  hint: on a build host with this kernel's headers: xtap -p4 --kernels " + release +
           (have.empty() ? "" : "," + have) + " -o DIR SCRIPT";
  return false;
}

}  // namespace xtap::runner
