// A minimal ELF64 reader: section contents by name and whether a program is
// dynamically linked. No libelf, so that the static xtap-run stays small.
// Every offset is checked against the file's size: modules and programs
// come from users and may be truncated or corrupt.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xtap {

class ElfFile {
 public:
  // Parses `bytes` (the whole file); nullopt with *why ("not an ELF file",
  // "not a 64-bit ELF file", "corrupt section headers") on failure.
  static std::optional<ElfFile> parse(std::string bytes, std::string *why);
  // Reads and parses `path`; *err names the file.
  static std::optional<ElfFile> open(const std::string &path, std::string *err);

  // The contents of the first section named `name`, if there is one and it
  // lies within the file.
  std::optional<std::string_view> section(std::string_view name) const;

  // The index of the first section whose contents lie (partly) outside the
  // file, as the kernel's module loader checks them; nullopt if none does.
  std::optional<size_t> section_outside_file() const;

  // True if the file has a PT_INTERP program header: it needs a dynamic
  // loader (and libraries) to run.
  bool has_interpreter() const;
  // The loader a program names in PT_INTERP ("/lib64/ld-linux-x86-64.so.2"),
  // "" for a static program or a library.
  std::string interpreter() const;

  // What the dynamic loader reads of a file's PT_DYNAMIC segment: the
  // libraries it needs and where to look for them. Empty for a static
  // program; strings that lie outside the file are left out.
  struct Dynamic {
    std::vector<std::string> needed;  // DT_NEEDED, in order
    std::string rpath, runpath;       // DT_RPATH, DT_RUNPATH, as written ("$ORIGIN/../lib")
  };
  Dynamic dynamic() const;

 private:
  explicit ElfFile(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string bytes_;
};

// True if `path` is an ELF program that needs a dynamic loader; false for
// static programs and for anything that is not ELF.
bool is_dynamically_linked(const std::string &path);

}  // namespace xtap
