// Building and packing the guest's initramfs.
#include "vm/initramfs.h"

#include "common/elf_file.h"
#include "common/file_io.h"
#include "common/process.h"

#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;

namespace xtap::vm {
namespace {

bool busybox_applets(const std::string& busybox, const std::string& work_dir,
                     std::vector<std::string>* applets, std::string* error) {
  std::string list = work_dir + "/busybox-applets.txt";
  process::SpawnSpec s;
  s.argv = {busybox, "--list"};
  s.stdout_path = list;
  if (process::run_to_end(s, error) != 0) {
    if (error && error->empty()) *error = busybox + " --list failed";
    return false;
  }
  std::istringstream ss(read_file(list));
  std::string a;
  while (ss >> a)
    if (a.find('/') == std::string::npos && a != "busybox") applets->push_back(a);
  return !applets->empty();
}

bool install_file(const std::string& from, const fs::path& root, const std::string& guest_path,
                  std::string* error) {
  if (guest_path.empty() || guest_path[0] != '/' || guest_path.find("..") != std::string::npos) {
    *error = "guest path '" + guest_path + "' must be absolute and without '..'";
    return false;
  }
  fs::path to = root / guest_path.substr(1);
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    *error = "cannot copy " + from + " into the initramfs: " + ec.message();
    return false;
  }
  // The original's time: Python checks its cached bytecode against the
  // source's mtime, and would recompile the whole library in the guest.
  fs::last_write_time(to, fs::last_write_time(from, ec), ec);
  return true;
}

bool install_symlink(const fs::path& root, const std::string& guest_path, const std::string& target,
                     std::string* error) {
  if (guest_path.empty() || guest_path[0] != '/' || guest_path.find("..") != std::string::npos) {
    *error = "guest path '" + guest_path + "' must be absolute and without '..'";
    return false;
  }
  fs::path at = root / guest_path.substr(1);
  std::error_code ec;
  fs::create_directories(at.parent_path(), ec);
  fs::remove(at, ec);  // a busybox applet of that name
  fs::create_symlink(target, at, ec);
  if (ec) {
    *error =
        "cannot make " + guest_path + " a link to " + target + " in the initramfs: " + ec.message();
    return false;
  }
  return true;
}

}  // namespace

std::string build_initramfs(const std::string& work_dir, const InitramfsSpec& spec,
                            std::string* error) {
  fs::path root = fs::path(work_dir) / "root";
  std::error_code ec;
  fs::remove_all(root, ec);
  for (const char* d : {"bin", "sbin", "usr/bin", "usr/sbin", "dev", "proc", "sys", "tmp", "run",
                        "root", "etc", "jobs"})
    fs::create_directories(root / d, ec);
  if (ec) {
    *error = "cannot create " + root.string() + ": " + ec.message();
    return "";
  }
  if (is_dynamically_linked(spec.busybox)) {
    *error = spec.busybox + " is dynamically linked; the guest needs busybox-static";
    return "";
  }
  std::vector<std::string> applets;
  if (!busybox_applets(spec.busybox, work_dir, &applets, error)) return "";
  if (!install_file(spec.busybox, root, "/bin/busybox", error)) return "";
  for (const auto& a : applets) {
    fs::create_symlink("busybox", root / "bin" / a, ec);
    ec.clear();
  }
  for (const auto& [from, to] : spec.files)
    if (!install_file(from, root, to, error)) return "";
  for (const auto& [at, target] : spec.symlinks)
    if (!install_symlink(root, at, target, error)) return "";
  if (!write_file((root / "init").string(), spec.init_script, 0755)) {
    *error = "cannot write the guest's /init";
    return "";
  }

  // cpio takes the member list on stdin; write it ourselves rather than
  // piping find.
  std::string listing;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it)
    listing += it->path().lexically_relative(root).string() + "\n";
  std::string list_path = work_dir + "/initrd.list";
  std::string archive = work_dir + "/initrd.cpio";
  write_file(list_path, listing);
  process::SpawnSpec cpio;
  cpio.argv = {"cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0"};
  cpio.cwd = root.string();
  cpio.stdin_path = list_path;
  cpio.stdout_path = archive;
  cpio.stderr_path = work_dir + "/cpio.err";
  std::string e;
  if (process::run_to_end(cpio, &e) != 0) {
    *error = "cpio failed" + (e.empty() ? "" : ": " + e) + " " + read_file(cpio.stderr_path);
    return "";
  }
  return archive;
}

}  // namespace xtap::vm
