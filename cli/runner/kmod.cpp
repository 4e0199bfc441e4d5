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

int load_module(const std::string& path, const std::string& name, const std::string& params,
                std::string* err) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    *err = "cannot open " + path + ": " + std::strerror(e);
    return e;
  }
  int rc = syscall(SYS_finit_module, fd, params.c_str(), 0);
  int e = rc ? errno : 0;
  close(fd);
  if (!e) return 0;
  switch (e) {
    case EEXIST:
      *err = "a module named '" + name + "' is already loaded (a running session? otherwise: rmmod " + name + ")";
      break;
    case EPERM:
      *err = "not permitted to load modules (need root/CAP_SYS_MODULE; module loading may be disabled or locked down)";
      break;
    case ENOEXEC:
      *err = "invalid module format: " + path + " was not built for this kernel or architecture";
      break;
    case EKEYREJECTED:
    case EBADMSG:
      *err = "the kernel rejected the signature of " + path + " (sign the module for this kernel)";
      break;
    case ENOSYS:
      *err = "this kernel does not support loadable modules";
      break;
    case ENOENT:
      *err = "module " + name + " refers to an unknown kernel symbol (see dmesg)";
      break;
    default:
      *err = "cannot insert module " + name + ": " + std::strerror(e) + " (see dmesg)";
  }
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
