// The target kernel of a run, and its data that pass 2 reads on demand:
// the catalog (tracepoints, syscalls, C types) built from its headers, its
// BTF, and the DWARF debuginfo of it and its modules. Each is loaded the
// first time a probe asks for it and kept for the rest of the run.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "kbuild/kbuild.h"
#include "probes/provider.h"
#include "symbols/btf.h"
#include "symbols/catalog.h"
#include "symbols/dwarf.h"
#include "vm/vm.h"
#include "xtap/options.h"

namespace xtap::cli {

// The kernel -r names (or the running one), or with --vm the installed VM
// kernel: found, or why not. Pass 1 needs its release (%( kernel_v ... %));
// only pass 4 needs its build directory.
struct TargetKernel {
  bool found = false;
  kbuild::Target target;
  std::string error;             // why it was not found
  std::optional<vm::Kernel> vm;  // --vm: the kernel the guest boots
  std::string release;           // target.release, else what -r or uname says

  static TargetKernel resolve(const Options &o);
};

class KernelData {
 public:
  KernelData(const Options &o, const TargetKernel &kernel, const kbuild::Env &env);
  KernelData(const KernelData &) = delete;
  KernelData &operator=(const KernelData &) = delete;

  // Sets env's catalog, btf and dwarf callbacks, which use this object.
  void connect(ProbeEnv *env);

 private:
  const KernelCatalog *catalog(std::string *error);
  const KernelBtf *btf(std::string *error);
  std::vector<const KernelDwarf *> dwarf(const std::string &module, std::string *error);

  const Options &o_;
  const TargetKernel &kernel_;
  const kbuild::Env &env_;
  std::unique_ptr<KernelCatalog> catalog_;
  std::string catalog_error_;
  bool catalog_tried_ = false;
  std::unique_ptr<KernelBtf> btf_;
  std::string btf_error_;
  bool btf_tried_ = false;
  std::map<std::string, std::unique_ptr<KernelDwarf>> dwarfs_;  // by path; null: unreadable
};

}  // namespace xtap::cli
