// finit_module/delete_module wrappers with clear reasons for each failure.
#include "runner/kmod.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/file_io.h"
#include "common/module_signature.h"
#include "runner/kernel_log.h"

namespace xtap::runner {

std::string kernel_release() {
  struct utsname u;
  if (uname(&u) != 0) return "";
  return u.release;
}

std::string wrong_kernel(const ModInfo& mi, const std::string& module_path,
                         const std::string& running) {
  if (mi.release() == running) return "";
  std::string file = module_path.substr(module_path.find_last_of('/') + 1);
  return "module " + file + " was built for kernel " + mi.release() + ", but this kernel is " +
         running + " (build it for this kernel with xtap -r " + running + ")";
}

namespace {

bool module_is_signed(const std::string& path) { return has_module_signature(read_file(path)); }

// Lockdown (Secure Boot) refuses unsigned modules with EPERM rather than
// EKEYREJECTED; an unsigned module is the only thing that tells the two EPERMs apart.
bool signature_required(const std::string& path) {
  bool ok = false;
  std::string lockdown = read_file("/sys/kernel/security/lockdown", &ok);
  return ok && lockdown.find("[none]") == std::string::npos && !module_is_signed(path);
}

std::string unsigned_refused(const std::string& path, const std::string& why) {
  return why + " (module.sig_enforce=1 or Secure Boot), and " + path +
         " is not signed\n  hint: build it with xtap --sign-key KEY.pem --sign-cert CERT.pem, "
         "with a key this kernel trusts";
}

}  // namespace

int load_module(const std::string& path, const std::string& name, const std::string& params,
                std::string* err, int fd, const std::string& image) {
  bool given = fd >= 0 || !image.empty();
  if (!given) fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (!given && fd < 0) {
    int e = errno;
    *err = "cannot open " + path + ": " + std::strerror(e);
    return e;
  }
  KernelLogTail log;
  int rc = fd >= 0 ? syscall(SYS_finit_module, fd, params.c_str(), 0)
                   : syscall(SYS_init_module, image.data(), image.size(), params.c_str());
  int e = rc ? errno : 0;
  if (fd >= 0) close(fd);
  if (!e) return 0;
  std::string said;
  for (const auto& line : log.lines_about(name)) said += "\n  kernel: " + line;
  switch (e) {
    case EEXIST:
      *err = "a module named '" + name +
             "' is already loaded (a running session? otherwise: rmmod " + name + ")";
      break;
    case EPERM:
      *err = signature_required(path) ? unsigned_refused(path, "the kernel is locked down")
                                      : "not permitted to load modules (need root/CAP_SYS_MODULE; "
                                        "module loading may be disabled or locked down)";
      break;
    case ENOEXEC:
      // xtap-run has checked the release and the ELF structure: what is
      // left is damage it cannot see, or another build of the same release.
      *err = "invalid module format: " + path +
             " is damaged, or was not built for this kernel's configuration or architecture (see "
             "dmesg)";
      break;
    case EKEYREJECTED:
    case ENOKEY:
    case EBADMSG:
      *err = module_is_signed(path)
                 ? "the kernel does not trust the key " + path +
                       " is signed with\n  hint: enrol the signing certificate (on Secure Boot "
                       "machines: "
                       "mokutil --import CERT.der, reboot and confirm), or sign with "
                       "--sign-key/--sign-cert "
                       "using a key this kernel already trusts"
                 : unsigned_refused(path, "the kernel accepts only signed modules");
      break;
    case ENOSYS: *err = "this kernel does not support loadable modules"; break;
    case ENOENT:
      *err = "module " + name + " refers to a kernel symbol this kernel does not have" +
             (said.empty() ? " (see dmesg)" : "");
      break;
    default:
      *err = "cannot insert module " + name + ": " + std::strerror(e) +
             (said.empty() ? " (see dmesg)" : "");
  }
  *err += said;
  return e;
}

int unload_module(const std::string& name, std::string* err) {
  using namespace std::chrono_literals;
  for (int tries = 0;; tries++) {
    if (syscall(SYS_delete_module, name.c_str(), O_NONBLOCK) == 0) return 0;
    int e = errno;
    if ((e == EAGAIN || e == EBUSY) && tries < 50) {
      std::this_thread::sleep_for(100ms);
      continue;
    }
    *err = "cannot remove module " + name + ": " + std::strerror(e);
    return e;
  }
}

}  // namespace xtap::runner
