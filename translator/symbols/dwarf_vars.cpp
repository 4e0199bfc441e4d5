// The variables in scope at one address, and where each one's value is
// there. The location expressions xtap reads are the forms GCC emits for
// almost every variable of an optimised kernel: a register (DW_OP_reg*),
// memory at a register plus an offset (DW_OP_breg*), memory in the frame
// (DW_OP_fbreg, the frame base being DW_OP_call_frame_cfa, worked out from
// the call frame information at that address) and constants
// (DW_AT_const_value, DW_OP_lit*), and a register's value at the function's
// entry (DW_OP_entry_value(DW_OP_regN) [DW_OP_plus_uconst K]
// [DW_OP_stack_value]), which a kretprobe on the function keeps for the
// statements inside it. Location lists are looked up by address.
// Anything else (a value computed on the DWARF stack, split over pieces,
// an entry value in an inlined copy, which has no entry of its own) is
// reported as unavailable with the reason, as is a variable with no
// location at that address (optimised out there).
#include <dwarf.h>

#include <cstdio>
#include <set>

#include "codegen/writer.h"
#include "symbols/dwarf_impl.h"

namespace xtap {
namespace {

// A register, or memory at register + offset, from a one-operation
// expression; false for anything else.
bool simple_location(const Dwarf_Op *ops, size_t n, DwarfVar *v) {
  if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
    v->where = DwarfVar::Where::Register;
    v->reg = ops[0].atom - DW_OP_reg0;
    return true;
  }
  if (n == 1 && ops[0].atom == DW_OP_regx) {
    v->where = DwarfVar::Where::Register;
    v->reg = static_cast<int>(ops[0].number);
    return true;
  }
  if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
    v->where = DwarfVar::Where::Memory;
    v->reg = ops[0].atom - DW_OP_breg0;
    v->offset = static_cast<int64_t>(ops[0].number);
    return true;
  }
  if (n == 1 && ops[0].atom == DW_OP_bregx) {
    v->where = DwarfVar::Where::Memory;
    v->reg = static_cast<int>(ops[0].number);
    v->offset = static_cast<int64_t>(ops[0].number2);
    return true;
  }
  return false;
}

// DW_OP_entry_value(DW_OP_regN) [DW_OP_plus_uconst K] [DW_OP_stack_value]:
// the register as the function was entered, plus K, as the value or (no
// DW_OP_stack_value) as the address of it. False for any other expression.
bool entry_value(Dwarf_Attribute *attr, const Dwarf_Op *ops, size_t n, DwarfVar *v) {
  if (n == 0 || (ops[0].atom != DW_OP_entry_value && ops[0].atom != DW_OP_GNU_entry_value)) return false;
  Dwarf_Attribute inner;
  Dwarf_Op *in_ops = nullptr;
  size_t in_n = 0;
  if (dwarf_getlocation_attr(attr, &ops[0], &inner) != 0 || dwarf_getlocation(&inner, &in_ops, &in_n) != 0)
    return false;
  DwarfVar reg;
  if (!simple_location(in_ops, in_n, &reg) || reg.where != DwarfVar::Where::Register) return false;
  size_t i = 1;
  int64_t offset = 0;
  if (i < n && ops[i].atom == DW_OP_plus_uconst) offset = static_cast<int64_t>(ops[i++].number);
  bool stack_value = i < n && ops[i].atom == DW_OP_stack_value;
  if (stack_value) ++i;
  if (i != n) return false;
  v->where = DwarfVar::Where::EntryValue;
  v->reg = reg.reg;
  v->offset = offset;
  v->in_memory = !stack_value;
  return true;
}

std::string why_not(const Dwarf_Op *ops, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    switch (ops[i].atom) {
      case DW_OP_entry_value:
      case DW_OP_GNU_entry_value:
        return "it is only known as its value at the function's entry (DW_OP_entry_value)";
      case DW_OP_addr:
        return "it is a static variable at a fixed address, which xtap does not relocate yet";
      case DW_OP_piece:
      case DW_OP_bit_piece:
        return "it is split over several places (DW_OP_piece), which xtap does not read yet";
      case DW_OP_implicit_pointer:
      case DW_OP_GNU_implicit_pointer:
        return "it is a pointer the compiler optimised away (DW_OP_implicit_pointer)";
      default: break;
    }
  }
  return "its location is a DWARF expression xtap does not evaluate yet";
}

}  // namespace

std::vector<DwarfVar> KernelDwarf::variables_at(const DwarfFunction &f, uint64_t addr) const {
  Impl &im = *impl_;
  std::vector<DwarfVar> out;
  Dwarf_Die fn, cu;
  if (!dwarf_offdie(im.dw, f.die, &fn) || !dwarf_diecu(&fn, &cu, nullptr, nullptr)) return out;
  Dwarf_Addr pc = addr - im.bias;
  Dwarf_Addr fn_entry = f.entry - im.bias;
  // The function and its lexical blocks that contain pc, outermost first.
  // Inlined callees' blocks are not entered: a statement of `f` sees f's
  // variables even where a callee's code was inlined.
  std::vector<Dwarf_Die> chain{fn};
  for (bool deeper = true; deeper && chain.size() < 64;) {
    deeper = false;
    Dwarf_Die c;
    if (dwarf_child(&chain.back(), &c) != 0) break;
    do {
      if (dwarf_tag(&c) == DW_TAG_lexical_block && dwarf_haspc(&c, pc) == 1) {
        chain.push_back(c);
        deeper = true;
        break;
      }
    } while (dwarf_siblingof(&c, &c) == 0);
  }
  std::vector<Dwarf_Die> scopes(chain.rbegin(), chain.rend());
  int nscopes = static_cast<int>(scopes.size());

  // The frame base at pc, for DW_OP_fbreg, as a register plus an offset:
  // GCC's is DW_OP_call_frame_cfa, the CFA, which the CFI gives at pc;
  // clang -O0's is a register (DW_OP_reg6, rbp).
  // The CFA at pc from the call frame information, as a register plus an
  // offset.
  auto call_frame_cfa = [&](int *reg, int64_t *offset) {
    Dwarf_Addr cfi_bias;
    Dwarf_CFI *cfi = dwfl_module_dwarf_cfi(im.mod, &cfi_bias);
    if (!cfi) cfi = dwfl_module_eh_cfi(im.mod, &cfi_bias);
    Dwarf_Frame *frame = nullptr;
    if (!cfi || dwarf_cfi_addrframe(cfi, addr - cfi_bias, &frame) != 0) return false;
    Dwarf_Op *ops;
    size_t n;
    DwarfVar tmp;
    bool found = false;
    if (dwarf_frame_cfa(frame, &ops, &n) == 0 && simple_location(ops, n, &tmp) &&
        tmp.where == DwarfVar::Where::Memory) {
      *reg = tmp.reg;  // CFA = reg + offset (a value, not a load)
      *offset = tmp.offset;
      found = true;
    }
    free(frame);
    return found;
  };
  bool have_cfa = false;
  int cfa_reg = -1;
  int64_t cfa_offset = 0;
  auto find_cfa = [&]() {
    if (have_cfa) return cfa_reg >= 0;
    have_cfa = true;
    Dwarf_Attribute fb;
    Dwarf_Op *fb_ops = nullptr;
    size_t fb_n = 0;
    // An inlined instance has no frame of its own: the function it was
    // inlined into has the frame base.
    Dwarf_Die frame_owner = fn;
    if (f.inlined && !dwarf_offdie(im.dw, f.outer, &frame_owner)) return false;
    if (!dwarf_attr(&frame_owner, DW_AT_frame_base, &fb) ||
        dwarf_getlocation_addr(&fb, pc, &fb_ops, &fb_n, 1) <= 0)
      return false;
    DwarfVar base;
    if (simple_location(fb_ops, fb_n, &base)) {
      if (base.where != DwarfVar::Where::Register) return false;  // a frame base in memory
      cfa_reg = base.reg;
      return true;
    }
    if (fb_n != 1 || fb_ops[0].atom != DW_OP_call_frame_cfa) return false;
    return call_frame_cfa(&cfa_reg, &cfa_offset);
  };


  std::set<std::string> seen;
  for (int i = 0; i < nscopes; ++i) {
    Dwarf_Die child;
    if (dwarf_child(&scopes[i], &child) == 0) {
      do {
        int tag = dwarf_tag(&child);
        if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) continue;
        DwarfVar v;
        Dwarf_Attribute a;
        if (dwarf_attr_integrate(&child, DW_AT_name, &a)) v.name = dwarf_formstring(&a) ?: "";
        if (v.name.empty() || !seen.insert(v.name).second) continue;
        v.parameter = tag == DW_TAG_formal_parameter;
        Dwarf_Die t;
        v.type = dwarf_attr_integrate(&child, DW_AT_type, &a) && dwarf_formref_die(&a, &t)
                     ? convert_type(&t)
                     : 0;
        Dwarf_Sword constant;
        if (dwarf_attr(&child, DW_AT_const_value, &a) && dwarf_formsdata(&a, &constant) == 0) {
          v.where = DwarfVar::Where::Constant;
          v.offset = constant;
        } else if (!dwarf_attr(&child, DW_AT_location, &a)) {
          v.why = "it is optimised out (it has no location)";
        } else {
          Dwarf_Op *ops = nullptr;
          size_t n = 0;
          int found = dwarf_getlocation_addr(&a, pc, &ops, &n, 1);
          if (found <= 0) {
            v.why = "it is optimised out at this address (" + hex_address(addr) + ")";
          } else if (n == 1 && ops[0].atom == DW_OP_fbreg) {
            if (find_cfa()) {
              v.where = DwarfVar::Where::Memory;
              v.reg = cfa_reg;
              v.offset = cfa_offset + static_cast<int64_t>(ops[0].number);
            } else {
              v.why = "its frame base is not known at this address";
            }
          } else if (n == 1 && ops[0].atom >= DW_OP_lit0 && ops[0].atom <= DW_OP_lit31) {
            v.why = "it is a constant the compiler folded in (DW_OP_lit)";
          } else if (n == 2 && ops[1].atom == DW_OP_stack_value && ops[0].atom >= DW_OP_lit0 &&
                     ops[0].atom <= DW_OP_lit31) {
            v.where = DwarfVar::Where::Constant;
            v.offset = ops[0].atom - DW_OP_lit0;
          } else if (ops[0].atom == DW_OP_addr &&
                     (n == 1 || (n == 2 && ops[1].atom == DW_OP_stack_value))) {
            // The address of a static object as a value: placed by a symbol
            // that moves with it, as for globals.
            DwarfGlobal g;
            place_global(ops[0].number + im.bias, &g);
            if (g.why.empty()) {
              v.where = DwarfVar::Where::Address;
              v.symbol = g.symbol;
              v.offset = g.offset;
              v.in_memory = n == 1;  // a function-scope static stored there
            } else {
              v.why = "it is the address of a static object, but " + g.why;
            }
          } else if (entry_value(&a, ops, n, &v)) {
            if (pc == fn_entry && !f.inlined) {
              // At the entry itself the register still holds it.
              v.where = v.in_memory ? DwarfVar::Where::Memory : DwarfVar::Where::Register;
              if (v.where == DwarfVar::Where::Register && v.offset) {
                v.where = DwarfVar::Where::Unavailable;
                v.why = "it is a register's entry value plus an offset, which xtap reads only inside the function";
              }
            } else if (f.inlined) {
              v.where = DwarfVar::Where::Unavailable;
              v.why = "it is only known as its value at the entry of " + f.name +
                      " (DW_OP_entry_value), and this copy of " + f.name +
                      " was inlined, so it has no entry to save it at";
            } else if (!call_frame_cfa(&v.cfa_reg, &v.cfa_offset)) {
              v.where = DwarfVar::Where::Unavailable;
              v.why = "it is only known as its value at the function's entry (DW_OP_entry_value), "
                      "and the call frame at this address is not known to tell the calls apart";
            }
          } else if (!simple_location(ops, n, &v)) {
            v.why = why_not(ops, n);
          }
        }
        out.push_back(std::move(v));
      } while (dwarf_siblingof(&child, &child) == 0);
    }
  }
  return out;
}

}  // namespace xtap
