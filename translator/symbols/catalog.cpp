// The kernel catalog in memory: the type table (C spellings, typedef
// stripping, records by tag) and the tracepoint and syscall indexes. The
// text format is read and written in catalog_format.cpp.
#include "symbols/catalog.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xtap {
namespace {

// "struct task_struct", "enum pid_type", "pid_t": the part of a C
// declaration left of the declarator.
std::string base_name(const KType &t) {
  switch (t.kind) {
    case KTypeKind::Void: return "void";
    case KTypeKind::Enum: return "enum " + (t.name.empty() ? std::string("{...}") : t.name);
    case KTypeKind::Struct: return "struct " + (t.name.empty() ? std::string("{...}") : t.name);
    case KTypeKind::Union: return "union " + (t.name.empty() ? std::string("{...}") : t.name);
    default: return t.name;
  }
}

// C declarator syntax inside out: `inner` is what has been built around the
// (absent) name so far, e.g. "*" or "[16]"; `const_base` puts "const" on the
// base type (a pointer to const). The loader guarantees that the chain of
// pointer, array, typedef and function links is acyclic and shallow.
std::string declare(const TypeTable &types, int id, const std::string &inner, bool const_base) {
  const KType &t = types.at(id);
  auto parenthesised = [&] {
    return !inner.empty() && inner[0] == '*' ? "(" + inner + ")" : inner;
  };
  switch (t.kind) {
    case KTypeKind::Pointer: {
      std::string in = "*" + inner;
      if (t.is_const && types.at(t.target).kind == KTypeKind::Pointer)
        return declare(types, t.target, " const" + in, false);  // char* const*
      return declare(types, t.target, in, t.is_const);
    }
    case KTypeKind::Array: {
      std::string count = t.count ? std::to_string(t.count) : "";
      return declare(types, t.target, parenthesised() + "[" + count + "]", const_base);
    }
    case KTypeKind::Function: {
      std::string params;
      for (const KMember &p : t.members)
        params += (params.empty() ? "" : ", ") + types.spelling(p.type);
      if (t.variadic) params += params.empty() ? "..." : ", ...";
      if (params.empty()) params = "void";
      return declare(types, t.target, parenthesised() + "(" + params + ")", false);
    }
    default:
      // "char (*)[16]", "int (struct file*)": C puts a space before a
      // parenthesis, none before "*" or "[".
      return (const_base ? "const " : "") + base_name(t) +
             (!inner.empty() && inner[0] == '(' ? " " : "") + inner;
  }
}

}  // namespace

int TypeTable::strip_typedefs(int id) const {
  while (id >= 0 && at(id).kind == KTypeKind::Typedef) id = at(id).target;
  return id;
}

int TypeTable::find_record(const std::string &tag, bool is_union) const {
  const auto &index = is_union ? unions_ : structs_;
  auto it = index.find(tag);
  return it == index.end() ? -1 : it->second;
}

const KMember *TypeTable::find_member(int id, const std::string &name, uint64_t *bit_offset) const {
  id = strip_typedefs(id);
  if (id < 0 || static_cast<size_t>(id) >= types_.size()) return nullptr;
  const KType &t = at(id);
  if (t.kind != KTypeKind::Struct && t.kind != KTypeKind::Union) return nullptr;
  // Recursion only into anonymous members, which the loader guarantees do
  // not contain their container.
  for (const KMember &m : t.members) {
    if (!m.name.empty()) {
      if (m.name != name) continue;
      *bit_offset = m.bit_offset;
      return &m;
    }
    uint64_t inner = 0;
    if (const KMember *found = find_member(m.type, name, &inner)) {
      *bit_offset = m.bit_offset + inner;
      return found;
    }
  }
  return nullptr;
}

std::string TypeTable::spelling(int id) const {
  if (id < 0 || static_cast<size_t>(id) >= types_.size()) return "?";
  return declare(*this, id, "", false);
}

int TypeTable::add(KType t) {
  types_.push_back(std::move(t));
  return static_cast<int>(types_.size() - 1);
}

int TypeTable::find_record_typedef(const std::string &name) const {
  auto it = record_typedefs_.find(name);
  return it == record_typedefs_.end() ? -1 : it->second;
}

void TypeTable::index_records() {
  structs_.clear();
  unions_.clear();
  record_typedefs_.clear();
  for (size_t i = 0; i < types_.size(); ++i) {
    const KType &t = types_[i];
    if (t.kind == KTypeKind::Typedef && !t.name.empty()) {
      int r = strip_typedefs(static_cast<int>(i));
      const KType &rt = at(r);
      if ((rt.kind == KTypeKind::Struct || rt.kind == KTypeKind::Union) && rt.complete)
        record_typedefs_.emplace(t.name, static_cast<int>(i));
      continue;
    }
    if (t.name.empty() || !t.complete) continue;
    // The first complete definition of a tag wins; C allows a tag to be
    // redefined in an inner scope, headers in practice do not.
    if (t.kind == KTypeKind::Struct) structs_.emplace(t.name, static_cast<int>(i));
    if (t.kind == KTypeKind::Union) unions_.emplace(t.name, static_cast<int>(i));
  }
}

KernelCatalog::KernelCatalog(std::string release, TypeTable types,
                             std::vector<KTracepoint> tracepoints, std::vector<KSyscall> syscalls)
    : release_(std::move(release)),
      types_(std::move(types)),
      tracepoints_(std::move(tracepoints)),
      syscalls_(std::move(syscalls)) {
  index();
}

void KernelCatalog::index() {
  types_.index_records();
  tp_by_name_.clear();
  sc_by_name_.clear();
  // Both "name" and "system:name" are keys; tracepoint names are global in
  // the kernel (they are symbols), so the bare name is unambiguous.
  for (size_t i = 0; i < tracepoints_.size(); ++i) {
    tp_by_name_.emplace(tracepoints_[i].name, i);
    tp_by_name_.emplace(tracepoints_[i].system + ":" + tracepoints_[i].name, i);
  }
  for (size_t i = 0; i < syscalls_.size(); ++i) sc_by_name_.emplace(syscalls_[i].name, i);
}

const KTracepoint *KernelCatalog::find_tracepoint(const std::string &system,
                                                  const std::string &name) const {
  auto it = tp_by_name_.find(system.empty() ? name : system + ":" + name);
  return it == tp_by_name_.end() ? nullptr : &tracepoints_[it->second];
}

const KSyscall *KernelCatalog::find_syscall(const std::string &name) const {
  auto it = sc_by_name_.find(name);
  if (it == sc_by_name_.end() && name.rfind("sys_", 0) == 0) it = sc_by_name_.find(name.substr(4));
  return it == sc_by_name_.end() ? nullptr : &syscalls_[it->second];
}

std::unique_ptr<KernelCatalog> KernelCatalog::load(const std::string &path, std::string *error) {
  // Mapped with its pages populated in one call rather than read into a
  // buffer: the catalog is most of a megabyte, and page faults are a good
  // part of the load time (docs/catalog.md).
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) {
    *error = path + ": cannot read the kernel catalog: " + strerror(errno);
    if (fd >= 0) close(fd);
    return nullptr;
  }
  size_t size = static_cast<size_t>(st.st_size);
  void *map = size ? mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : nullptr;
  close(fd);
  if (map == MAP_FAILED) {
    *error = path + ": cannot map the kernel catalog: " + strerror(errno);
    return nullptr;
  }
  auto catalog = parse(std::string_view(static_cast<const char *>(map), size), path, error);
  if (map) munmap(map, size);
  return catalog;
}

}  // namespace xtap
