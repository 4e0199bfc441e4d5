// Discovery of installed kernels a throwaway VM can boot.
#include "vm/vm.h"

#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <filesystem>

namespace fs = std::filesystem;

namespace xtap::vm {
namespace {

const std::string kImagePrefix = "vmlinuz-";
const std::string kCloudSuffix = "-cloud-amd64";

// Natural order of release strings: digit runs compare as numbers, so
// 6.12.57 > 6.1.0-56 and 6.1.0-56 > 6.1.0-9.
bool release_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit((unsigned char)a[i]) && std::isdigit((unsigned char)b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit((unsigned char)a[ie])) ie++;
      while (je < b.size() && std::isdigit((unsigned char)b[je])) je++;
      unsigned long long x = std::stoull(a.substr(i, ie - i));
      unsigned long long y = std::stoull(b.substr(j, je - j));
      if (x != y) return x < y;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      i++;
      j++;
    }
  }
  return a.size() - i < b.size() - j;
}

Kernel describe(const std::string& release) {
  return Kernel{release, "/boot/" + kImagePrefix + release, "/lib/modules/" + release + "/build"};
}

// Empty if usable, else the reason with the fix.
std::string unusable_reason(const Kernel& k) {
  std::error_code ec;
  if (!fs::exists(k.image, ec))
    return k.image + " does not exist (install linux-image-" + k.release + ")";
  if (access(k.image.c_str(), R_OK) != 0)
    return k.image + " is not readable (Debian installs it mode 0600: chmod a+r " + k.image +
           ", or run scripts/bootstrap.sh)";
  if (!fs::is_directory(k.build_dir, ec))
    return k.build_dir + " is missing (install linux-headers-" + k.release + ")";
  return "";
}

std::vector<std::string> installed_cloud_releases() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/boot", ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind(kImagePrefix, 0) != 0) continue;
    std::string rel = n.substr(kImagePrefix.size());
    if (rel.size() <= kCloudSuffix.size() ||
        rel.compare(rel.size() - kCloudSuffix.size(), kCloudSuffix.size(), kCloudSuffix) != 0)
      continue;
    out.push_back(rel);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return release_less(b, a); });
  return out;
}

}  // namespace

std::vector<Kernel> list_vm_kernels() {
  std::vector<Kernel> out;
  for (const auto& rel : installed_cloud_releases()) {
    Kernel k = describe(rel);
    if (unusable_reason(k).empty()) out.push_back(k);
  }
  return out;
}

std::optional<Kernel> find_vm_kernel(const std::string& release, std::string* why_not) {
  auto fail = [&](const std::string& why) -> std::optional<Kernel> {
    if (why_not) *why_not = why;
    return std::nullopt;
  };
  if (!release.empty()) {
    if (release.find('/') != std::string::npos)
      return fail("invalid kernel release '" + release + "'");
    Kernel k = describe(release);
    std::string why = unusable_reason(k);
    if (!why.empty()) return fail("kernel " + release + " cannot be used for a VM: " + why);
    return k;
  }
  auto releases = installed_cloud_releases();
  if (releases.empty())
    return fail("no Debian cloud kernel installed (/boot/vmlinuz-*" + kCloudSuffix +
                "); install linux-image-cloud-amd64 and linux-headers-cloud-amd64");
  std::string reasons;
  for (const auto& rel : releases) {
    Kernel k = describe(rel);
    std::string why = unusable_reason(k);
    if (why.empty()) return k;
    reasons += (reasons.empty() ? "" : "; ") + why;
  }
  return fail("no usable Debian cloud kernel: " + reasons);
}

}  // namespace xtap::vm
