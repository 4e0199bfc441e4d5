// The variables in scope at one address, and where each one's value is
// there. The common forms get a kind of their own: a register
// (DW_OP_reg*), memory at a register plus an offset (DW_OP_breg*), memory
// in the frame (DW_OP_fbreg, the frame base being DW_OP_call_frame_cfa,
// worked out from the call frame information at that address), constants
// (DW_AT_const_value, DW_OP_lit*), a static's address (DW_OP_addr) and a
// register's value at the function's entry (DW_OP_entry_value(DW_OP_regN)
// [DW_OP_plus_uconst K] [DW_OP_stack_value]), which a kretprobe on the
// function keeps for the statements inside it. Any other expression (a
// value computed on the DWARF stack, a variable split over pieces) is
// lowered into operations the provider turns into C (DwarfVar::Computed).
// Location lists are looked up by address. What xtap cannot express
// (branches, typed operations, a pointer the compiler removed) is reported
// as unavailable with the reason, as is a variable with no location at
// that address (optimised out there).
#include <dwarf.h>

#include <cstdio>
#include <functional>
#include <set>

#include "common/c_writer.h"
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
  if (n == 0 || (ops[0].atom != DW_OP_entry_value && ops[0].atom != DW_OP_GNU_entry_value))
    return false;
  Dwarf_Attribute inner;
  Dwarf_Op *in_ops = nullptr;
  size_t in_n = 0;
  if (dwarf_getlocation_attr(attr, &ops[0], &inner) != 0 ||
      dwarf_getlocation(&inner, &in_ops, &in_n) != 0)
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

// What a location expression needs resolved from outside it.
struct LoweringEnv {
  Dwarf_Attribute *attr = nullptr;
  std::function<bool(int *, int64_t *)> frame_base;  // DW_OP_fbreg's base: register + offset
  std::function<bool(int *, int64_t *)> cfa;         // the CFA at the address
  std::function<bool(uint64_t, std::string *, int64_t *, std::string *)> place;  // DW_OP_addr
  bool at_entry = false;  // the address is the function's entry: registers are entry values
  bool inlined = false;
  std::string function;
};

// An expression GCC emits for a value it computed or split (a pointer
// kept as base + offset, a bitfield masked out of a wider register, a long
// in two halves) as pieces of resolved operations (DwarfExprOp). False
// with *why for what xtap cannot express: control flow (DW_OP_bra), typed
// operations (DW_OP_convert), pointers the compiler removed
// (DW_OP_implicit_pointer), bit pieces.
bool lower_expression(const LoweringEnv &env, const Dwarf_Op *ops, size_t n, DwarfVar *v,
                      std::string *why) {
  using K = DwarfExprOp::Kind;
  std::vector<DwarfPiece> pieces;
  DwarfPiece cur;
  bool value = false, in_register = false;
  int depth = 0;
  auto push = [&](DwarfExprOp op, int pops, int pushes) {
    if (depth < pops) {
      *why = "its location expression uses more values than it pushes";
      return false;
    }
    depth += pushes - pops;
    cur.ops.push_back(std::move(op));
    return true;
  };
  auto unsupported = [&](const std::string &what) {
    *why = "its location is a DWARF expression with " + what + ", which xtap does not evaluate";
    return false;
  };
  for (size_t i = 0; i < n; ++i) {
    const Dwarf_Op &op = ops[i];
    uint8_t a = op.atom;
    if (in_register && a != DW_OP_piece) return unsupported("a register used as a value");
    if (value && a != DW_OP_piece) return unsupported("operations after DW_OP_stack_value");
    DwarfExprOp e;
    bool ok = true;
    if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
      e.number = a - DW_OP_lit0;
      ok = push(e, 0, 1);
    } else if (a == DW_OP_const1u || a == DW_OP_const2u || a == DW_OP_const4u ||
               a == DW_OP_const8u || a == DW_OP_constu || a == DW_OP_const1s ||
               a == DW_OP_const2s || a == DW_OP_const4s || a == DW_OP_const8s ||
               a == DW_OP_consts) {
      e.number = static_cast<int64_t>(op.number);  // libdw sign-extends the signed forms
      ok = push(e, 0, 1);
    } else if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
      if (depth != 0 || !cur.ops.empty()) return unsupported("a register used as a value");
      cur.reg = a == DW_OP_regx ? static_cast<int>(op.number) : a - DW_OP_reg0;
      in_register = true;
    } else if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
      e.kind = K::Reg;
      e.reg = a == DW_OP_bregx ? static_cast<int>(op.number) : a - DW_OP_breg0;
      e.number = static_cast<int64_t>(a == DW_OP_bregx ? op.number2 : op.number);
      ok = push(e, 0, 1);
    } else if (a == DW_OP_fbreg || a == DW_OP_call_frame_cfa) {
      e.kind = K::Reg;
      int64_t base = 0;
      if (a == DW_OP_fbreg ? !env.frame_base(&e.reg, &base) : !env.cfa(&e.reg, &base)) {
        *why = "its frame base is not known at this address";
        return false;
      }
      e.number = base + (a == DW_OP_fbreg ? static_cast<int64_t>(op.number) : 0);
      ok = push(e, 0, 1);
    } else if (a == DW_OP_addr) {
      e.kind = K::Symbol;
      std::string not_placed;
      if (!env.place(op.number, &e.symbol, &e.number, &not_placed)) {
        *why = "it uses the address of a static object, but " + not_placed;
        return false;
      }
      ok = push(e, 0, 1);
    } else if (a == DW_OP_entry_value || a == DW_OP_GNU_entry_value) {
      Dwarf_Attribute inner;
      Dwarf_Op *in_ops = nullptr;
      size_t in_n = 0;
      DwarfVar r;
      if (dwarf_getlocation_attr(env.attr, &op, &inner) != 0 ||
          dwarf_getlocation(&inner, &in_ops, &in_n) != 0 || !simple_location(in_ops, in_n, &r) ||
          r.where != DwarfVar::Where::Register)
        return unsupported("an entry value of something other than a register");
      if (env.inlined) {
        *why = "it is only known from values at the entry of " + env.function +
               " (DW_OP_entry_value), and this copy of " + env.function +
               " was inlined, so it has no entry";
        return false;
      }
      e.kind = env.at_entry ? K::Reg : K::EntryReg;
      e.reg = r.reg;
      if (!env.at_entry && v->cfa_reg < 0 && !env.cfa(&v->cfa_reg, &v->cfa_offset)) {
        *why =
            "it is only known from values at the function's entry (DW_OP_entry_value), and the "
            "call frame at this address is not known to tell the calls apart";
        return false;
      }
      ok = push(e, 0, 1);
    } else if (a == DW_OP_deref || a == DW_OP_deref_size) {
      e.kind = K::Deref;
      e.size = a == DW_OP_deref ? 8 : static_cast<uint32_t>(op.number);
      if (e.size != 1 && e.size != 2 && e.size != 4 && e.size != 8)
        return unsupported("a " + std::to_string(e.size) + "-byte load");
      ok = push(e, 1, 1);
    } else if (a == DW_OP_plus_uconst || a == DW_OP_neg || a == DW_OP_not || a == DW_OP_abs) {
      e.kind = K::Unary;
      e.atom = a;
      e.number = static_cast<int64_t>(op.number);
      ok = push(e, 1, 1);
    } else if (a == DW_OP_plus || a == DW_OP_minus || a == DW_OP_mul || a == DW_OP_div ||
               a == DW_OP_mod || a == DW_OP_and || a == DW_OP_or || a == DW_OP_xor ||
               a == DW_OP_shl || a == DW_OP_shr || a == DW_OP_shra || a == DW_OP_eq ||
               a == DW_OP_ne || a == DW_OP_lt || a == DW_OP_gt || a == DW_OP_le || a == DW_OP_ge) {
      e.kind = K::Binary;
      e.atom = a;
      ok = push(e, 2, 1);
    } else if (a == DW_OP_dup || a == DW_OP_over || a == DW_OP_pick) {
      e.kind = K::Pick;
      e.number = a == DW_OP_dup ? 0 : a == DW_OP_over ? 1 : static_cast<int64_t>(op.number);
      ok = push(e, static_cast<int>(e.number) + 1, static_cast<int>(e.number) + 2);
    } else if (a == DW_OP_drop) {
      e.kind = K::Drop;
      ok = push(e, 1, 0);
    } else if (a == DW_OP_swap) {
      e.kind = K::Swap;
      ok = push(e, 2, 2);
    } else if (a == DW_OP_rot) {
      e.kind = K::Rot;
      ok = push(e, 3, 3);
    } else if (a == DW_OP_stack_value) {
      if (depth != 1)
        return unsupported("DW_OP_stack_value on a stack of " + std::to_string(depth));
      value = true;
    } else if (a == DW_OP_implicit_value) {
      Dwarf_Block block;
      if (!cur.ops.empty() || dwarf_getlocation_implicit_value(env.attr, &op, &block) != 0 ||
          block.length > 8)
        return unsupported("an implicit value of more than 8 bytes");
      uint64_t x = 0;
      for (size_t b = 0; b < block.length; ++b)
        x |= static_cast<uint64_t>(block.data[b]) << (8 * b);
      e.number = static_cast<int64_t>(x);
      ok = push(e, 0, 1);
      value = true;
    } else if (a == DW_OP_piece) {
      cur.size = static_cast<uint32_t>(op.number);
      if (cur.size == 0) return unsupported("an empty piece");
      if (in_register) cur.kind = DwarfPiece::Kind::Register;
      else if (cur.ops.empty()) cur.kind = DwarfPiece::Kind::Missing;
      else if (depth != 1)
        return unsupported("a piece computed from a stack of " + std::to_string(depth));
      else cur.kind = value ? DwarfPiece::Kind::Value : DwarfPiece::Kind::Memory;
      pieces.push_back(std::move(cur));
      cur = DwarfPiece{};
      value = in_register = false;
      depth = 0;
    } else if (a == DW_OP_nop) {
    } else if (a == DW_OP_implicit_pointer || a == DW_OP_GNU_implicit_pointer) {
      *why = "it is a pointer the compiler optimised away (DW_OP_implicit_pointer)";
      return false;
    } else if (a == DW_OP_bit_piece) {
      return unsupported("pieces of bits (DW_OP_bit_piece)");
    } else if (a == DW_OP_bra || a == DW_OP_skip) {
      return unsupported("branches (DW_OP_bra)");
    } else if (a == DW_OP_convert || a == DW_OP_GNU_convert) {
      return unsupported("typed values (DW_OP_convert)");
    } else {
      char atom[8];
      std::snprintf(atom, sizeof atom, "0x%02x", a);
      return unsupported(std::string("operation ") + atom);
    }
    if (!ok) return false;
  }
  if (pieces.empty()) {
    if (in_register) cur.kind = DwarfPiece::Kind::Register;
    else if (cur.ops.empty()) return unsupported("nothing in it");
    else if (depth != 1) return unsupported("a result on a stack of " + std::to_string(depth));
    else cur.kind = value ? DwarfPiece::Kind::Value : DwarfPiece::Kind::Memory;
    pieces.push_back(std::move(cur));
  } else if (!cur.ops.empty() || in_register) {
    return unsupported("operations after its last piece");
  }
  v->where = DwarfVar::Where::Computed;
  v->pieces = std::move(pieces);
  return true;
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
                v.why =
                    "it is a register's entry value plus an offset, which xtap reads only inside "
                    "the function";
              }
            } else if (f.inlined) {
              v.where = DwarfVar::Where::Unavailable;
              v.why = "it is only known as its value at the entry of " + f.name +
                      " (DW_OP_entry_value), and this copy of " + f.name +
                      " was inlined, so it has no entry to save it at";
            } else if (!call_frame_cfa(&v.cfa_reg, &v.cfa_offset)) {
              v.where = DwarfVar::Where::Unavailable;
              v.why =
                  "it is only known as its value at the function's entry (DW_OP_entry_value), "
                  "and the call frame at this address is not known to tell the calls apart";
            }
          } else if (!simple_location(ops, n, &v)) {
            LoweringEnv env;
            env.attr = &a;
            env.frame_base = [&](int *reg, int64_t *offset) {
              if (!find_cfa()) return false;
              *reg = cfa_reg;
              *offset = cfa_offset;
              return true;
            };
            env.cfa = call_frame_cfa;
            env.place = [&](uint64_t at, std::string *symbol, int64_t *offset, std::string *why) {
              DwarfGlobal g;
              place_global(at + im.bias, &g);
              *symbol = g.symbol;
              *offset = g.offset;
              *why = g.why;
              return g.why.empty();
            };
            env.at_entry = pc == fn_entry && !f.inlined;
            env.inlined = f.inlined;
            env.function = f.name;
            std::string why;
            if (!lower_expression(env, ops, n, &v, &why)) {
              v.where = DwarfVar::Where::Unavailable;
              v.pieces.clear();
              v.why = why;
            }
          }
        }
        out.push_back(std::move(v));
      } while (dwarf_siblingof(&child, &child) == 0);
    }
  }
  return out;
}

}  // namespace xtap
