// The guest's initramfs: busybox-static with its applet links, the files a
// batch needs and the generated /init, packed as an uncompressed newc cpio.
#ifndef XTAP_VM_INITRAMFS_H
#define XTAP_VM_INITRAMFS_H

#include <string>
#include <utility>
#include <vector>

namespace xtap::vm {

struct InitramfsSpec {
  std::string busybox;                                     // host path of a static busybox
  std::vector<std::pair<std::string, std::string>> files;  // host path -> absolute guest path
  // absolute guest path -> what it links to; made after the files and the
  // applet links, in place of any of them
  std::vector<std::pair<std::string, std::string>> symlinks;
  std::string init_script;
};

// Builds work_dir/root and packs it into work_dir/initrd.cpio; returns the
// archive's path, or empty with *error set.
std::string build_initramfs(const std::string& work_dir, const InitramfsSpec& spec,
                            std::string* error);

}  // namespace xtap::vm

#endif
