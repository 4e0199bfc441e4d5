#include "symbols/user_cfi.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "symbols/elf_symbols.h"

namespace xtap {

namespace {

// x86-64 DWARF register numbers
constexpr int kRegRbp = 6;
constexpr int kRegRsp = 7;

struct Section {
  uint64_t addr = 0;
  const uint8_t *data = nullptr;
  size_t size = 0;
};

std::optional<Section> find_section(Elf *elf, const char *name) {
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return std::nullopt;
  for (Elf_Scn *scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
    const char *n = elf_strptr(elf, shstrndx, sh.sh_name);
    if (!n || strcmp(n, name) != 0) continue;
    Elf_Data *d = elf_getdata(scn, nullptr);
    if (!d || !d->d_buf) return std::nullopt;
    return Section{sh.sh_addr, static_cast<const uint8_t *>(d->d_buf), d->d_size};
  }
  return std::nullopt;
}

// One DW_EH_PE-encoded pointer of .eh_frame_hdr at *pos; nullopt for an
// encoding the linkers do not use there.
std::optional<uint64_t> read_encoded(const Section &s, size_t *pos, uint8_t enc) {
  auto fixed = [&](size_t n, bool is_signed) -> std::optional<uint64_t> {
    if (*pos + n > s.size) return std::nullopt;
    uint64_t v = 0;
    memcpy(&v, s.data + *pos, n);  // x86-64: little endian, as the file
    if (is_signed && n < 8 && (v >> (n * 8 - 1)) & 1) v |= ~0ULL << (n * 8);
    return v;
  };
  size_t at = *pos;
  std::optional<uint64_t> v;
  switch (enc & 0x0f) {
    case 0x00:
      v = fixed(8, false);
      *pos += 8;
      break;
    case 0x02:
      v = fixed(2, false);
      *pos += 2;
      break;
    case 0x03:
      v = fixed(4, false);
      *pos += 4;
      break;
    case 0x04:
      v = fixed(8, false);
      *pos += 8;
      break;
    case 0x0a:
      v = fixed(2, true);
      *pos += 2;
      break;
    case 0x0b:
      v = fixed(4, true);
      *pos += 4;
      break;
    case 0x0c:
      v = fixed(8, true);
      *pos += 8;
      break;
    default: return std::nullopt;
  }
  if (!v) return std::nullopt;
  switch (enc & 0x70) {
    case 0x00: return v;
    case 0x10: return *v + s.addr + at;  // pcrel
    case 0x30: return *v + s.addr;       // datarel: from the header's start
    default: return std::nullopt;
  }
}

// The initial locations of the FDEs .eh_frame_hdr lists, sorted.
std::optional<std::vector<uint64_t>> hdr_fde_starts(const Section &hdr) {
  if (hdr.size < 4 || hdr.data[0] != 1 || hdr.data[2] == 0xff || hdr.data[3] == 0xff)
    return std::nullopt;
  size_t pos = 4;
  if (!read_encoded(hdr, &pos, hdr.data[1])) return std::nullopt;
  auto count = read_encoded(hdr, &pos, hdr.data[2]);
  if (!count || *count > hdr.size) return std::nullopt;
  std::vector<uint64_t> starts;
  for (uint64_t i = 0; i < *count; ++i) {
    auto loc = read_encoded(hdr, &pos, hdr.data[3]);
    if (!loc || !read_encoded(hdr, &pos, hdr.data[3])) return std::nullopt;
    starts.push_back(*loc);
  }
  std::sort(starts.begin(), starts.end());
  return starts;
}

// Where a register's rule says its caller's value is saved: CFA + *offset;
// false for any other rule. *unchanged for "same value" and "undefined".
bool saved_at_cfa(Dwarf_Frame *f, int reg, int64_t *offset, bool *unchanged) {
  Dwarf_Op mem[3], *ops = nullptr;
  size_t nops = 0;
  *unchanged = false;
  if (dwarf_frame_register(f, reg, mem, &ops, &nops) != 0) return false;
  if (nops == 0) {
    *unchanged = true;
    return true;
  }
  if (ops[0].atom != DW_OP_call_frame_cfa) return false;
  if (nops == 1) {
    *offset = 0;
    return true;
  }
  if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
    *offset = static_cast<int64_t>(ops[1].number);
    return true;
  }
  return false;
}

// The compact form of one row of rules; kind None when it does not fit.
CfiRow classify(Dwarf_Frame *f, int ra_reg, bool signal, CfiStats *stats) {
  CfiRow row;
  if (signal) {
    row.kind = CfiKind::Signal;
    return row;
  }
  Dwarf_Op *ops = nullptr;
  size_t nops = 0;
  int64_t ra_off = 0, rbp_off = 0;
  bool ra_unchanged = false, rbp_unchanged = false;
  Dwarf_Op mem[3], *raops = nullptr;
  size_t nraops = 0;
  // DW_CFA_undefined on the return address (_start, a thread's first
  // frame): libdw gives no operations for it
  if (dwarf_frame_register(f, ra_reg, mem, &raops, &nraops) == 0 && nraops == 0) {
    row.kind = CfiKind::End;
    return row;
  }
  // libdw gives a register-plus-offset CFA as one DW_OP_bregx (or bregN)
  int cfa_reg = -1;
  int64_t cfa_off = 0;
  if (dwarf_frame_cfa(f, &ops, &nops) == 0 && nops == 1) {
    if (ops[0].atom == DW_OP_bregx) {
      cfa_reg = static_cast<int>(ops[0].number);
      cfa_off = static_cast<int64_t>(ops[0].number2);
    } else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
      cfa_reg = ops[0].atom - DW_OP_breg0;
      cfa_off = static_cast<int64_t>(ops[0].number);
    }
  }
  bool fits = (cfa_reg == kRegRsp || cfa_reg == kRegRbp) && cfa_off >= INT32_MIN &&
              cfa_off <= INT32_MAX && saved_at_cfa(f, ra_reg, &ra_off, &ra_unchanged) &&
              !ra_unchanged && ra_off == -8 && saved_at_cfa(f, kRegRbp, &rbp_off, &rbp_unchanged) &&
              (rbp_unchanged || (rbp_off != 0 && rbp_off >= INT16_MIN && rbp_off <= INT16_MAX));
  if (!fits) {
    stats->fallback++;
    return row;
  }
  row.kind = cfa_reg == kRegRsp ? CfiKind::Rsp : CfiKind::Rbp;
  row.cfa_offset = static_cast<int32_t>(cfa_off);
  row.rbp_offset = rbp_unchanged ? 0 : static_cast<int16_t>(rbp_off);
  return row;
}

// The rows of the FDE that covers `start`, up to `limit` (the next FDE).
void fde_rows(Dwarf_CFI *cfi, uint64_t start, uint64_t limit, std::vector<CfiRow> *rows,
              CfiStats *stats) {
  uint64_t a = start;
  bool any = false;
  // bounded: an FDE's rows advance the address; a broken one cannot loop
  for (int guard = 0; a < limit && guard < 100000; ++guard) {
    Dwarf_Frame *f = nullptr;
    if (dwarf_cfi_addrframe(cfi, a, &f) != 0) {
      rows->push_back(CfiRow{a, CfiKind::None, 0, 0});  // a gap after the FDE
      break;
    }
    Dwarf_Addr lo = 0, hi = 0;
    bool signal = false;
    int ra = dwarf_frame_info(f, &lo, &hi, &signal);
    CfiRow row = classify(f, ra, signal, stats);
    free(f);
    row.address = a;
    rows->push_back(row);
    any = true;
    if (hi <= a) break;
    a = hi;
  }
  if (any) stats->fdes++;
}

// .debug_frame has no index: its FDEs are found at the function symbols.
std::vector<uint64_t> symbol_starts(const std::string &path) {
  std::string why;
  std::vector<uint64_t> starts;
  if (auto syms = ElfSymbols::open(path, &why))
    for (const auto &fn : syms->functions())
      if (fn.address) starts.push_back(fn.address);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

// Sorted, and a row equal to the one before it dropped: it adds nothing.
void merge_rows(std::vector<CfiRow> *rows) {
  std::stable_sort(rows->begin(), rows->end(),
                   [](const CfiRow &a, const CfiRow &b) { return a.address < b.address; });
  std::vector<CfiRow> out;
  for (const auto &r : *rows) {
    if (!out.empty() && out.back().address == r.address) {
      out.back() = r;  // a later FDE's row at the same address wins
      if (out.size() > 1 && out[out.size() - 2] == out.back()) out.pop_back();
      continue;
    }
    if (!out.empty() && out.back() == r) continue;
    out.push_back(r);
  }
  rows->swap(out);
}

}  // namespace

bool read_user_cfi(const std::string &path, std::vector<CfiRow> *rows, CfiStats *stats,
                   std::string *why) {
  rows->clear();
  *stats = {};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *why = "cannot be opened";
    return false;
  }
  elf_version(EV_CURRENT);
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  GElf_Ehdr eh;
  if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64) {
    *why = "is no x86-64 ELF file: its stacks follow frame pointers";
    if (elf) elf_end(elf);
    ::close(fd);
    return false;
  }
  Dwarf *dw = nullptr;
  Dwarf_CFI *cfi = nullptr;
  std::vector<uint64_t> starts;
  auto hdr = find_section(elf, ".eh_frame_hdr");
  std::optional<std::vector<uint64_t>> hdr_starts;
  if (hdr) hdr_starts = hdr_fde_starts(*hdr);
  if (find_section(elf, ".eh_frame")) cfi = dwarf_getcfi_elf(elf);
  if (cfi && hdr_starts) {
    starts = std::move(*hdr_starts);
  } else {
    if (!cfi && find_section(elf, ".debug_frame")) {
      dw = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
      if (dw) cfi = dwarf_getcfi(dw);
    }
    if (cfi) starts = symbol_starts(path);
  }
  for (size_t i = 0; cfi && i < starts.size(); ++i)
    fde_rows(cfi, starts[i], i + 1 < starts.size() ? starts[i + 1] : UINT64_MAX, rows, stats);
  if (dw) dwarf_end(dw);  // ends its CFI too; dwarf_getcfi_elf's is freed with the Elf
  else if (cfi) dwarf_cfi_end(cfi);
  elf_end(elf);
  ::close(fd);
  merge_rows(rows);
  if (rows->empty()) {
    *why = "has no call-frame information: its stacks follow frame pointers";
    return false;
  }
  return true;
}

}  // namespace xtap
