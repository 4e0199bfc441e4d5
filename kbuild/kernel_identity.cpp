// Which build of a kernel release a module is for: the kernel's GNU
// build-id. A bundle's manifest records it per module, and xtap-run checks
// it against /sys/kernel/notes, so that two different builds that share a
// release string (a rebuilt package, a local kernel) are told apart.
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>

#include "common/build_id.h"
#include "common/elf_file.h"
#include "common/file_io.h"
#include "kbuild/cache_lock.h"
#include "kbuild/kbuild.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

bool build_id_of_elf(const std::string &path, std::string *id, std::string *error) {
  auto elf = ElfFile::open(path, error);
  if (!elf) return false;
  *id = elf_build_id(*elf);
  if (id->empty()) *error = path + " has no GNU build-id note";
  return !id->empty();
}

}  // namespace

bool kernel_build_id(const Target &t, const Env &env, std::string *id, std::string *error) {
  if (is_running_kernel(t.release)) {
    *id = running_kernel_build_id();
    if (!id->empty()) return true;
  }
  std::string debug_vmlinux = "/usr/lib/debug/boot/vmlinux-" + t.release;
  std::string image = "/boot/vmlinuz-" + t.release;
  // The image is read whole and is a tenth the size of the debug vmlinux.
  bool from_debug = !fs::exists(image) && fs::exists(debug_vmlinux);
  std::string source = from_debug ? debug_vmlinux : image;
  if (!from_debug && !fs::exists(image)) {
    *error = "cannot tell which build of kernel " + t.release + " this is: neither " +
             debug_vmlinux + " nor " + image + " exists";
    return false;
  }
  fs::path cache = fs::path(env.cache_dir) / "build-id";
  std::error_code ec;
  fs::create_directories(cache, ec);
  fs::path cached = cache / (t.release + "-" +
                             hash_hex(env.version + "\n" + file_identity(source)).substr(0, 16));
  bool ok = false;
  *id = read_file(cached.string(), &ok);
  if (ok && !id->empty()) return true;

  CacheLock lock(cached.string());
  if (from_debug) {
    ok = build_id_of_elf(source, id, error);
  } else {
    fs::path work = cached.string() + ".work" + std::to_string(getpid());
    fs::create_directories(work, ec);
    ok = with_vmlinux_from_image(
        image, work.string(),
        [&](const std::string &elf, std::string *why) { return build_id_of_elf(elf, id, why); },
        error);
    fs::remove_all(work, ec);
  }
  if (ok) write_file(cached.string(), *id);
  return ok;
}

}  // namespace xtap::kbuild
