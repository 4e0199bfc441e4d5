#include "common/build_id.h"

#include <elf.h>

#include <cstring>

#include "common/elf_file.h"
#include "common/file_io.h"

namespace xtap {

std::string build_id_from_notes(std::string_view notes) {
  auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
  size_t at = 0;
  while (notes.size() - at >= sizeof(Elf64_Nhdr)) {
    Elf64_Nhdr h;
    std::memcpy(&h, notes.data() + at, sizeof h);
    at += sizeof h;
    size_t name_len = align4(h.n_namesz), desc_len = align4(h.n_descsz);
    if (name_len > notes.size() - at || desc_len > notes.size() - at - name_len) return "";
    std::string_view name = notes.substr(at, h.n_namesz);
    std::string_view desc = notes.substr(at + name_len, h.n_descsz);
    at += name_len + desc_len;
    if (h.n_type == NT_GNU_BUILD_ID && name == std::string_view("GNU\0", 4) && !desc.empty()) {
      static const char digits[] = "0123456789abcdef";
      std::string hex;
      for (unsigned char c : desc) {
        hex += digits[c >> 4];
        hex += digits[c & 15];
      }
      return hex;
    }
  }
  return "";
}

std::string elf_build_id(const ElfFile &elf) {
  for (const char *name : {".note.gnu.build-id", ".notes"}) {
    if (auto s = elf.section(name)) {
      std::string id = build_id_from_notes(*s);
      if (!id.empty()) return id;
    }
  }
  return "";
}

std::string running_kernel_build_id() {
  bool ok = false;
  std::string notes = read_file("/sys/kernel/notes", &ok);
  return ok ? build_id_from_notes(notes) : "";
}

}  // namespace xtap
