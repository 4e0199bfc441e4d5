// The functions of a user-space ELF program or shared library, for
// process("PATH").function("SYM"): names and addresses from the symbol
// table (.symtab, else .dynsym when the file is stripped), and the file
// offset of an address through the loadable segments, which is what a
// uprobe is registered at (the kernel places the probe in the file's pages,
// wherever the program is mapped). Every offset is bounds-checked: the file
// comes from the user and may be truncated or not ELF at all.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace xtap {

// One USDT probe site of .note.stapsdt (sys/sdt.h), its addresses already
// adjusted for prelinking (.stapsdt.base).
struct SdtNote {
  std::string provider, name;
  uint64_t pc = 0;         // the probed instruction (a nop)
  uint64_t semaphore = 0;  // address of its enabling counter, or 0
  std::string args;        // operand specs: "-4@%edi 8@%rsi 2@14(%rsp)"
};

struct ElfFunction {
  std::string name;
  uint64_t address = 0;  // st_value: the link-time virtual address
  uint64_t size = 0;
};

class ElfSymbols {
 public:
  // Parses the whole file `bytes`; null with *why ("not an ELF file", "a
  // relocatable object, not a program or shared library") on failure.
  static std::unique_ptr<ElfSymbols> parse(std::string bytes, std::string *why);
  // Reads and parses `path`; *why does not repeat the path.
  static std::unique_ptr<ElfSymbols> open(const std::string &path, std::string *why);

  // Defined functions (STT_FUNC, STT_GNU_IFUNC), sorted by name, each name
  // once (the first symbol of that name wins).
  const std::vector<ElfFunction> &functions() const { return functions_; }
  const ElfFunction *find(const std::string &name) const;
  // Which table the functions came from: ".symtab", ".dynsym" or "" (none).
  const std::string &table() const { return table_; }
  bool is_shared_object() const { return shared_; }  // ET_DYN

  // The file offset of virtual address `vaddr`, through the PT_LOAD
  // segment holding it; nullopt when no loadable segment holds it.
  std::optional<uint64_t> file_offset(uint64_t vaddr) const;
  // The contents of the first section named `name`, or nullopt.
  std::optional<std::string> section(const std::string &name) const;
  // The USDT probe sites of .note.stapsdt, in file order.
  std::vector<SdtNote> sdt_notes() const;
  // The GNU build-id as lowercase hex, or "" when the file has none.
  std::string build_id() const;
  // The file offset of the build-id's bytes (the note's descriptor), 0
  // when the file has none: the module reads them there at run time to
  // check that the file it probes is the one read here.
  uint64_t build_id_offset() const;

 private:
  std::string bytes_;
  std::vector<ElfFunction> functions_;
  std::string table_;
  bool shared_ = false;
  struct Segment {
    uint64_t vaddr, filesz, offset;
  };
  std::vector<Segment> loads_;
};

}  // namespace xtap
