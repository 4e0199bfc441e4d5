// What pass 2 learns from a kernel's BTF (the compact type information that
// Debian's kernels carry, CONFIG_DEBUG_INFO_BTF=y) when there is no DWARF:
// the kernel's functions with their prototypes (parameter names and types,
// return type) and every C type they reach, converted into the catalog's
// type model (symbols/catalog.h) so that target expressions ($file->f_path)
// walk them like the header catalog's types. Read with libbpf from raw BTF
// (/sys/kernel/btf/vmlinux, or the file kbuild's ensure_btf extracts from
// /boot/vmlinuz-KVER) or from an ELF file's .BTF section (a vmlinux).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "symbols/catalog.h"

namespace xtap {

struct KFunction {
  std::string name;
  std::vector<KParam> params;  // in order; unnamed ones get "argN"
  int return_type = -1;        // in the type table; a Void type for void
  bool variadic = false;
};

class KernelBtf {
 public:
  // Raw BTF or an ELF file with a .BTF section (libbpf decides by the magic).
  // On failure returns null with *error set.
  static std::unique_ptr<KernelBtf> load(const std::string &path, std::string *error);
  // From raw BTF bytes (tests, small fixtures).
  static std::unique_ptr<KernelBtf> from_raw(const void *data, size_t size,
                                             const std::string &origin, std::string *error);

  const std::string &origin() const { return origin_; }
  const TypeTable &types() const { return types_; }
  // Sorted by name; a name that several static functions share appears once
  // (the first in the BTF), as kprobes by name can only reach one of them.
  const std::vector<KFunction> &functions() const { return functions_; }
  const KFunction *find_function(const std::string &name) const;

 private:
  friend class BtfConverter;
  std::string origin_;
  TypeTable types_;
  std::vector<KFunction> functions_;
};

}  // namespace xtap
