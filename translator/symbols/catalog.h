// What pass 2 knows about the target kernel without debuginfo: its C types
// (layouts as the kernel's own compiler sees them), its tracepoints with
// their TP_PROTO arguments, and its system calls with their prototypes and
// numbers. Produced once per kernel build by `xtap-kcatalog` (kbuild/catalog/,
// Clang libTooling over the headers package) and cached; loaded from that
// text file here. The format is described in docs/catalog.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xtap {

enum class KTypeKind {
  Void,
  Int,       // integers, bool, char; `size` bytes, `is_signed`
  Enum,      // `size` bytes, `is_signed`
  Float,     // float/double: never read by scripts
  Pointer,   // `target`
  Array,     // `target` element, `count` elements (0: flexible or unknown)
  Struct,    // `members`; incomplete when !complete
  Union,     // `members`; incomplete when !complete
  Typedef,   // `name` -> `target`
  Function,  // a function type (only ever pointed to): `target` is the return
             // type, `members` the parameters (unnamed), `variadic` for `...`
};

struct KMember {
  std::string name;         // empty for an anonymous struct/union member
  int type = -1;            // index into the type table
  uint64_t bit_offset = 0;  // from the start of the enclosing record
  uint32_t bit_size = 0;    // bitfields only; 0 otherwise
};

struct KType {
  KTypeKind kind = KTypeKind::Void;
  std::string name;   // "unsigned int", "task_struct" (no "struct "), typedef name; "" if anonymous
  uint64_t size = 0;  // bytes (0 for void, functions, incomplete records)
  bool is_signed = false;  // Int, Enum
  bool is_const = false;   // the pointed-to type was const-qualified (for spellings only)
  int target = -1;         // Pointer, Array, Typedef
  uint64_t count = 0;      // Array
  bool complete = true;    // Struct, Union
  bool variadic = false;   // Function
  std::vector<KMember> members;
};

class TypeTable {
 public:
  const KType &at(int id) const { return types_.at(static_cast<size_t>(id)); }
  size_t size() const { return types_.size(); }
  // Follows typedefs (and nothing else) to the underlying type.
  int strip_typedefs(int id) const;
  // A complete struct/union by tag name ("task_struct"), or -1.
  int find_record(const std::string &tag, bool is_union = false) const;
  // A typedef naming a complete struct or union ("refcount_t"), or -1.
  int find_record_typedef(const std::string &name) const;
  // The member `name` of the struct/union `id` (typedefs stripped), found
  // inside anonymous struct/union members as C finds it; *bit_offset gets
  // its offset from the start of `id`. Null if there is none.
  const KMember *find_member(int id, const std::string &name, uint64_t *bit_offset) const;
  // C spelling as users know it from stap -L: "struct task_struct*",
  // "unsigned int", "pid_t", "char[16]", "const char*".
  std::string spelling(int id) const;

  // For the loader and tests.
  int add(KType t);
  void reserve(size_t n) { types_.reserve(n); }
  KType &mutable_at(int id) { return types_.at(static_cast<size_t>(id)); }
  void index_records();

 private:
  std::vector<KType> types_;
  std::unordered_map<std::string, int> structs_, unions_, record_typedefs_;
};

struct KParam {
  std::string name;
  int type = -1;
};

struct KTracepoint {
  std::string system;        // TRACE_SYSTEM of its header: "sched"
  std::string name;          // "sched_switch"
  std::vector<KParam> args;  // TP_PROTO, in order
};

struct KSyscall {
  std::string name;             // "openat" (no sys_ prefix)
  int nr = -1;                  // __NR_openat on the target's native ABI (x86_64)
  std::vector<KParam> args;     // from include/linux/syscalls.h
  bool prototype_known = true;  // false: the headers declare no prototype (args empty)
};

class KernelCatalog {
 public:
  KernelCatalog() = default;
  // For xtap-kcatalog and tests: a catalog from its parts (indexes built here).
  KernelCatalog(std::string release, TypeTable types, std::vector<KTracepoint> tracepoints,
                std::vector<KSyscall> syscalls);

  // Parses the text format; on failure returns null with *error set
  // ("catalog.txt:12: ...").
  static std::unique_ptr<KernelCatalog> parse(std::string_view text, const std::string &origin,
                                              std::string *error);
  static std::unique_ptr<KernelCatalog> load(const std::string &path, std::string *error);

  const std::string &release() const { return release_; }
  const TypeTable &types() const { return types_; }
  const std::vector<KTracepoint> &tracepoints() const { return tracepoints_; }
  const std::vector<KSyscall> &syscalls() const { return syscalls_; }
  // By name, with or without "system:"; null if unknown.
  const KTracepoint *find_tracepoint(const std::string &system, const std::string &name) const;
  const KSyscall *find_syscall(const std::string &name) const;

  // The text format that parse() reads (docs/catalog.md); `notes` become
  // comment lines after the release (where it came from, what was skipped).
  std::string to_text(const std::vector<std::string> &notes = {}) const;

 private:
  std::string release_;
  TypeTable types_;
  std::vector<KTracepoint> tracepoints_;
  std::vector<KSyscall> syscalls_;
  std::unordered_map<std::string, size_t> tp_by_name_, sc_by_name_;

  void index();
};

}  // namespace xtap
