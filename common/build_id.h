// GNU build-ids (NT_GNU_BUILD_ID notes): they tell two builds of the same
// kernel release apart. xtap records the build-id of the kernel a module
// was built for; xtap-run compares it with the running kernel's
// (/sys/kernel/notes) before it picks a module from a bundle.
#pragma once

#include <string>
#include <string_view>

namespace xtap {

class ElfFile;

// The build-id in a sequence of ELF notes (a .notes section, or the
// contents of /sys/kernel/notes) as lower-case hex; "" if there is none or
// the notes are malformed.
std::string build_id_from_notes(std::string_view notes);

// The build-id of an ELF file, from its .note.gnu.build-id or .notes
// section; "" if it has none.
std::string elf_build_id(const ElfFile &elf);

// The running kernel's build-id; "" if /sys/kernel/notes cannot be read.
std::string running_kernel_build_id();

}  // namespace xtap
