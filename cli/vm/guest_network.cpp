// A guest with a network card (vm.h, add_guest_network): the kernel's own
// virtio-net driver and its dependencies, from /lib/modules/RELEASE, loaded
// by the job before xtap-run starts, and eth0 set up for QEMU's user
// network (10.0.2.15, gateway 10.0.2.2).
#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "common/process.h"
#include "vm/vm.h"

namespace xtap::vm {

namespace {

// modules.dep: module path -> the paths it needs.
std::map<std::string, std::vector<std::string>> read_deps(const std::string &file) {
  std::map<std::string, std::vector<std::string>> deps;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::istringstream rest(line.substr(colon + 1));
    std::vector<std::string> need;
    for (std::string d; rest >> d;) need.push_back(d);
    deps[line.substr(0, colon)] = need;
  }
  return deps;
}

// "kernel/drivers/net/virtio_net.ko.xz" -> "virtio_net"
std::string module_name(const std::string &path) {
  std::string base = path.substr(path.rfind('/') + 1);
  base = base.substr(0, base.find(".ko"));
  for (char &c : base)
    if (c == '-') c = '_';
  return base;
}

}  // namespace

bool add_guest_network(const Kernel &k, const std::string &work_dir, BatchOptions *bo, Job *job,
                       std::string *error) {
  const std::string root = "/lib/modules/" + k.release + "/";
  auto deps = read_deps(root + "modules.dep");
  std::vector<std::string> order;
  std::function<void(const std::string &)> visit = [&](const std::string &p) {
    for (const auto &d : deps[p]) visit(d);
    if (std::find(order.begin(), order.end(), p) == order.end()) order.push_back(p);
  };
  for (const char *want : {"virtio_pci", "virtio_net"})
    for (const auto &[path, need] : deps)
      if (module_name(path) == want) visit(path);  // absent: built into the kernel
  std::string loads;
  for (size_t i = 0; i < order.size(); ++i) {
    std::string host = work_dir + "/net" + std::to_string(i) + ".ko";
    std::string src = root + order[i];
    bool xz = src.size() > 3 && src.compare(src.size() - 3, 3, ".xz") == 0;
    process::SpawnSpec s;
    s.argv =
        xz ? std::vector<std::string>{"xz", "-dc", src} : std::vector<std::string>{"cp", src, host};
    if (xz) s.stdout_path = host;
    if (process::run_to_end(s, error) != 0) {
      if (error->empty()) *error = "cannot unpack " + src + " for the guest's network card";
      return false;
    }
    std::string guest = "/netmods/" + std::to_string(i) + ".ko";
    bo->extra_files.emplace_back(host, guest);
    loads += "insmod " + guest + "; ";
  }
  std::string setup = loads +
                      "ip link set lo up; ip link set eth0 up && ip addr add 10.0.2.15/24 dev "
                      "eth0 && ip route add default via 10.0.2.2";
  job->before = job->before.empty() ? setup : setup + "; " + job->before;
  return true;
}

}  // namespace xtap::vm
