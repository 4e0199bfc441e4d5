// The target kernel and its data, loaded on demand (kernel_data.h).
#include "xtap/kernel_data.h"

#include <sys/utsname.h>

#include <iostream>

namespace xtap::cli {

TargetKernel TargetKernel::resolve(const Options &o) {
  TargetKernel k;
  if (o.vm) {
    k.vm = vm::find_vm_kernel(o.kernel, &k.error);
    if (k.vm) {
      k.target = {k.vm->release, k.vm->build_dir};
      k.found = true;
    }
  } else {
    k.found = kbuild::resolve_target(o.kernel, &k.target, &k.error);
  }
  if (k.found) {
    k.release = k.target.release;
  } else {
    struct utsname u;
    uname(&u);
    k.release = o.kernel.empty() || o.kernel.find('/') != std::string::npos ? u.release : o.kernel;
  }
  return k;
}

KernelData::KernelData(const Options &o, const TargetKernel &kernel, const kbuild::Env &env)
    : o_(o), kernel_(kernel), env_(env) {}

void KernelData::connect(ProbeEnv *env) {
  env->catalog = [this](std::string *error) { return catalog(error); };
  env->btf = [this](std::string *error) { return btf(error); };
  env->dwarf = [this](const std::string &module, std::string *error) {
    return dwarf(module, error);
  };
}

// Built from the kernel's headers on first use and cached (kbuild/catalog_build.cpp).
const KernelCatalog *KernelData::catalog(std::string *error) {
  if (!catalog_tried_) {
    catalog_tried_ = true;
    std::string path;
    if (!kernel_.found) catalog_error_ = kernel_.error;
    else if (kbuild::ensure_catalog(kernel_.target, env_, &path, &catalog_error_))
      catalog_ = KernelCatalog::load(path, &catalog_error_);
  }
  if (!catalog_) *error = catalog_error_;
  return catalog_.get();
}

// The running kernel's own BTF, or extracted once from its image and cached.
const KernelBtf *KernelData::btf(std::string *error) {
  if (!btf_tried_) {
    btf_tried_ = true;
    std::string path, origin;
    // Without a build directory (no headers installed) the release is
    // enough: -L and -p2 still work from the running kernel's BTF.
    kbuild::Target target = kernel_.target;
    if (!kernel_.found && !o_.vm) target.release = kernel_.release;
    if (target.release.empty()) btf_error_ = kernel_.error;
    else if (kbuild::ensure_btf(target, env_, &path, &origin, &btf_error_))
      btf_ = KernelBtf::load(path, &btf_error_);
    if (btf_ && o_.verbose)
      std::cerr << "xtap: kernel types and functions from the BTF of " << origin << "\n";
  }
  if (!btf_) *error = btf_error_;
  return btf_.get();
}

// Found by release (or --debuginfo), each file opened once; its function
// index is cached per build-id.
std::vector<const KernelDwarf *> KernelData::dwarf(const std::string &module, std::string *error) {
  std::vector<const KernelDwarf *> found;
  for (const auto &[name, path] : find_debuginfo(kernel_.release, o_.debuginfo, module, error)) {
    auto it = dwarfs_.find(path);
    if (it == dwarfs_.end()) {
      std::string open_err;
      auto d = KernelDwarf::open(path, name, env_.cache_dir, &open_err);
      if (d && o_.verbose)
        std::cerr << "xtap: " << (name.empty() ? "kernel" : name) << " functions from the DWARF of "
                  << path << (d->index_from_cache() ? " (index cached)" : "") << "\n";
      if (!d) *error = open_err;
      it = dwarfs_.emplace(path, std::move(d)).first;
    }
    if (it->second) found.push_back(it->second.get());
  }
  return found;
}

}  // namespace xtap::cli
