// The call-frame information (DWARF CFI) of a user-space x86-64 ELF file,
// reduced to the compact rows the kernel's user-stack unwinder interprets
// (runtime-kmod/user_unwind.c): per address range, the canonical frame
// address (CFA) as rsp or rbp plus an offset, the return address at CFA-8,
// and rbp either unchanged or saved at CFA plus an offset. Rules that do
// not fit (CFA expressions, registers in other registers) become "no
// rule" rows, where the unwinder follows the frame pointer.
// Read from .eh_frame (the FDEs listed by .eh_frame_hdr); a file without
// it is read from .debug_frame, one FDE per function symbol.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace xtap {

enum class CfiKind : uint8_t {
  None = 0,  // no usable rule: follow the frame pointer
  Rsp = 1,   // CFA = rsp + cfa_offset
  Rbp = 2,   // CFA = rbp + cfa_offset
  End = 3,   // the return address is undefined: the outermost frame
  // a signal frame (libc's __restore_rt, an 'S' FDE): the interrupted
  // registers are in the ucontext at rsp (x86-64's rt_sigframe)
  Signal = 4,
};

struct CfiRow {
  uint64_t address = 0;  // link-time virtual address where the row starts
  CfiKind kind = CfiKind::None;
  int32_t cfa_offset = 0;
  int16_t rbp_offset = 0;  // 0: rbp keeps the callee's value
  bool operator==(const CfiRow &o) const {
    return kind == o.kind && cfa_offset == o.cfa_offset && rbp_offset == o.rbp_offset;
  }
};

struct CfiStats {
  size_t fdes = 0;      // FDEs read
  size_t fallback = 0;  // rows whose rules do not fit the compact form
};

// The rows of `path`, sorted by address, adjacent equal rows merged; false
// with *why when the file has no CFI that libdw can read.
bool read_user_cfi(const std::string &path, std::vector<CfiRow> *rows, CfiStats *stats,
                   std::string *why);

}  // namespace xtap
