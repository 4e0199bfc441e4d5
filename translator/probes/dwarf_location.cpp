// DWARF location expressions into C (probes/dwarf_location.h). The
// expression's stack is kept at translation time as C strings, one per
// entry, so each operation becomes C arithmetic on u64 and the handler
// evaluates the whole location as one expression: DW_OP_breg5 8
// DW_OP_stack_value is "(xtap_dwarf_reg(c, 5) + 8)", a DW_OP_deref a
// nofault load. Entries an operation copies (DW_OP_dup, DW_OP_over) are
// evaluated once per copy; they are registers and loads, with no side
// effect but a read fault, which ends the handler the same way either time.
#include "probes/dwarf_location.h"

#include <dwarf.h>

#include <algorithm>
#include <vector>

#include "probes/kernel_function.h"

namespace xtap {
namespace {

constexpr int kArgRegs[] = {5, 4, 1, 2, 8, 9};  // rdi rsi rdx rcx r8 r9 (DWARF numbers)

// A constant as C: small negative numbers as such (-9, not 18446744073709551607).
std::string u64_literal(int64_t n) {
  if (n < 0 && n > -(int64_t{1} << 62)) return "((u64)(" + std::to_string(n) + "LL))";
  return "((u64)" + std::to_string(static_cast<uint64_t>(n)) + "ULL)";
}

bool is_scalar(const KType &t) {
  return t.kind == KTypeKind::Int || t.kind == KTypeKind::Enum || t.kind == KTypeKind::Pointer;
}

class ExprToC {
 public:
  ExprToC(const DwarfVar &v, const std::string &entry_frame, bool user, ContextVar *cv)
      : v_(v),
        entry_frame_(entry_frame),
        load_(user ? "xtap_dwarf_uload" : "xtap_dwarf_load"),
        cv_(cv) {}

  // The C of the piece's operations: the entry on top of the stack at the
  // end. False with *why set.
  bool run(const std::vector<DwarfExprOp> &ops, std::string *out, std::string *why) {
    std::vector<std::string> st;
    for (const DwarfExprOp &op : ops) {
      using K = DwarfExprOp::Kind;
      switch (op.kind) {
        case K::Const: st.push_back(u64_literal(op.number)); break;
        case K::Reg:
          st.push_back("(xtap_dwarf_reg(c, " + std::to_string(op.reg) + ")" +
                       (op.number ? " + " + u64_literal(op.number) : "") + ")");
          break;
        case K::Symbol:
          if (load_ == "xtap_dwarf_uload") {
            *why =
                "it uses a static of the program at a fixed address, which xtap cannot place yet";
            return false;
          }
          st.push_back("((u64)xtap_data_symbol(\"" + op.symbol + "\") + " + u64_literal(op.number) +
                       ")");
          break;
        case K::EntryReg: {
          std::string entry;
          if (!entry_value(op.reg, &entry, why)) return false;
          st.push_back(entry);
          break;
        }
        case K::Deref:
          st.back() = load_ + "(c, " + st.back() + ", " + std::to_string(op.size) + ", 0)";
          break;
        case K::Unary: {
          std::string &a = st.back();
          switch (op.atom) {
            case DW_OP_plus_uconst: a = "(" + a + " + " + u64_literal(op.number) + ")"; break;
            case DW_OP_neg: a = "(-" + a + ")"; break;
            case DW_OP_not: a = "(~" + a + ")"; break;
            default: a = "((s64)" + a + " < 0 ? -" + a + " : " + a + ")"; break;  // DW_OP_abs
          }
          break;
        }
        case K::Binary: {
          std::string b = st.back();
          st.pop_back();
          std::string &a = st.back();
          if (!binary(op.atom, &a, b, why)) return false;
          break;
        }
        case K::Pick: st.push_back(st[st.size() - 1 - static_cast<size_t>(op.number)]); break;
        case K::Drop: st.pop_back(); break;
        case K::Swap: std::swap(st[st.size() - 1], st[st.size() - 2]); break;
        case K::Rot: std::rotate(st.end() - 3, st.end() - 1, st.end()); break;  // top goes third
      }
    }
    *out = st.back();
    return true;
  }

 private:
  // DW_OP_entry_value(DW_OP_regN): the argument register as the call's
  // entry saved it, the call being the one whose CFA this address has.
  bool entry_value(int reg, std::string *out, std::string *why) {
    int slot = argument_slot(reg);
    if (slot < 0 || entry_frame_.empty()) {
      *why = "it is computed from the value register " + std::to_string(reg) +
             " had at the function's entry (DW_OP_entry_value), and xtap keeps only the argument "
             "registers of a call";
      return false;
    }
    std::string cfa = "(xtap_dwarf_reg(c, " + std::to_string(v_.cfa_reg) + ") + " +
                      u64_literal(v_.cfa_offset) + ")";
    *out = "xtap_entry_arg(c, &" + entry_frames_c_name(entry_frame_) + ", " + std::to_string(slot) +
           ", " + cfa + ")";
    cv_->entry_frame = entry_frame_;
    cv_->c_decl = "static struct xtap_entry_frames " + entry_frames_c_name(entry_frame_) + ";";
    cv_->can_fail = true;
    return true;
  }

  // `a` = a OP b, as DWARF defines OP on the stack's generic (64-bit) type:
  // shifts by the low 6 bits, comparisons and DW_OP_div signed.
  static bool binary(int atom, std::string *a, const std::string &b, std::string *why) {
    const char *op = nullptr;
    switch (atom) {
      case DW_OP_plus: op = "+"; break;
      case DW_OP_minus: op = "-"; break;
      case DW_OP_mul: op = "*"; break;
      case DW_OP_and: op = "&"; break;
      case DW_OP_or: op = "|"; break;
      case DW_OP_xor: op = "^"; break;
      default: break;
    }
    if (op) {
      *a = "(" + *a + " " + op + " " + b + ")";
      return true;
    }
    switch (atom) {
      case DW_OP_shl: *a = "(" + *a + " << (" + b + " & 63))"; return true;
      case DW_OP_shr: *a = "(" + *a + " >> (" + b + " & 63))"; return true;
      case DW_OP_shra: *a = "((u64)((s64)" + *a + " >> (" + b + " & 63)))"; return true;
      case DW_OP_eq: op = "=="; break;
      case DW_OP_ne: op = "!="; break;
      case DW_OP_lt: op = "<"; break;
      case DW_OP_gt: op = ">"; break;
      case DW_OP_le: op = "<="; break;
      case DW_OP_ge: op = ">="; break;
      default: break;
    }
    if (op) {
      *a = "((u64)((s64)" + *a + " " + op + " (s64)" + b + "))";
      return true;
    }
    // DW_OP_div, DW_OP_mod: only by a constant the translator can see is
    // not zero (a handler must not divide by zero).
    if (b.rfind("((u64)", 0) != 0 || b == u64_literal(0) || b.find("xtap_") != std::string::npos) {
      *why = "its location divides by a value known only at run time";
      return false;
    }
    *a = atom == DW_OP_div ? "((u64)((s64)" + *a + " / (s64)" + b + "))"
                           : "(" + *a + " % " + b + ")";
    return true;
  }

  const DwarfVar &v_;
  const std::string &entry_frame_;
  std::string load_;  // the nofault reader of the probed memory
  ContextVar *cv_;
};

std::string low_bytes(const std::string &value, uint32_t size) {
  return size >= 8 ? value
                   : "(" + value + " & " + u64_literal((int64_t{1} << (8 * size)) - 1) + ")";
}

}  // namespace

int argument_slot(int reg) {
  const int *slot = std::find(std::begin(kArgRegs), std::end(kArgRegs), reg);
  return slot == std::end(kArgRegs) ? -1 : static_cast<int>(slot - kArgRegs);
}

void in_memory_at(const KType &t, const std::string &addr, ContextVar *cv, bool user) {
  cv->address_c = addr;
  bool loadable = t.size == 1 || t.size == 2 || t.size == 4 || t.size == 8;
  if (is_scalar(t) && loadable)
    cv->c_value = std::string(user ? "xtap_dwarf_uload" : "xtap_dwarf_load") + "(c, " + addr +
                  ", " + std::to_string(t.size) + ", " + (t.is_signed ? "1" : "0") + ")";
  else cv->c_value = addr;
}

void computed_context_var(const TypeTable &types, const DwarfVar &v, const std::string &entry_frame,
                          bool user, ContextVar *cv) {
  const KType &t = types.at(types.strip_typedefs(v.type));
  ExprToC to_c(v, entry_frame, user, cv);
  std::string why;
  auto fail = [&](const std::string &reason) {
    cv->c_value.clear();
    cv->address_c.clear();
    cv->entry_frame.clear();
    cv->c_decl.clear();
    cv->can_fail = false;
    cv->unavailable = reason;
  };
  // All of it in one place: memory is a place, as a simple location is.
  if (v.pieces.size() == 1 && (v.pieces[0].size == 0 || v.pieces[0].size >= t.size)) {
    const DwarfPiece &p = v.pieces[0];
    std::string c;
    if (p.kind == DwarfPiece::Kind::Register) {
      cv->reg = p.reg;
      c = "xtap_dwarf_reg(c, " + std::to_string(p.reg) + ")";
    } else if (p.kind == DwarfPiece::Kind::Missing) {
      return fail("it is optimised out at this address");
    } else if (!to_c.run(p.ops, &c, &why)) {
      return fail(why);
    }
    if (p.kind == DwarfPiece::Kind::Memory) return in_memory_at(t, c, cv, user);
    cv->c_value = register_value(types, v.type, c);
    if (cv->c_value.empty())
      fail("it is a " + types.spelling(v.type) + " computed in registers, which xtap cannot hold");
    return;
  }
  // Pieces: a scalar of up to 8 bytes is put together from them, lowest
  // address first (x86-64 is little-endian).
  if (!is_scalar(t) || t.size > 8)
    return fail("it is a " + types.spelling(v.type) + " split over " +
                std::to_string(v.pieces.size()) +
                " places (DW_OP_piece), which xtap reads only for integers and pointers");
  std::string value;
  uint32_t at = 0;
  for (const DwarfPiece &p : v.pieces) {
    if (at >= t.size) break;
    uint32_t size = std::min<uint32_t>(p.size, 8);
    std::string c;
    switch (p.kind) {
      case DwarfPiece::Kind::Missing: return fail("part of it is optimised out at this address");
      case DwarfPiece::Kind::Register:
        c = "xtap_dwarf_reg(c, " + std::to_string(p.reg) + ")";
        break;
      case DwarfPiece::Kind::Value:
        if (!to_c.run(p.ops, &c, &why)) return fail(why);
        break;
      case DwarfPiece::Kind::Memory:
        if (size != 1 && size != 2 && size != 4 && size != 8)
          return fail("it has a piece of " + std::to_string(size) + " bytes in memory");
        if (!to_c.run(p.ops, &c, &why)) return fail(why);
        c = std::string(user ? "xtap_dwarf_uload" : "xtap_dwarf_load") + "(c, " + c + ", " +
            std::to_string(size) + ", 0)";
        break;
    }
    std::string part = low_bytes(c, size);
    if (at) part = "(" + part + " << " + std::to_string(8 * at) + ")";
    value = value.empty() ? part : "(" + value + " | " + part + ")";
    at += p.size;
  }
  cv->c_value = register_value(types, v.type, value);
  if (cv->c_value.empty()) fail("it is a " + types.spelling(v.type) + ", which xtap cannot hold");
}

}  // namespace xtap
