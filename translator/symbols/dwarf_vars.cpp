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
// (DW_OP_implicit_pointer), bit pieces. One operation at a time (step),
// then finish; the operations fall in three groups, one method each.
class ExpressionLowering {
 public:
  ExpressionLowering(const LoweringEnv &env, DwarfVar *v, std::string *why)
      : env_(env), v_(v), why_(why) {}

  bool step(const Dwarf_Op &op) {
    uint8_t a = op.atom;
    if (in_register_ && a != DW_OP_piece) return unsupported("a register used as a value");
    if (value_ && a != DW_OP_piece) return unsupported("operations after DW_OP_stack_value");
    bool handled = false;
    bool ok = load(op, &handled);
    if (!handled) ok = compute(op, &handled);
    if (!handled) ok = structure(op);
    return ok;
  }

  bool finish() {
    if (pieces_.empty()) {
      if (in_register_) cur_.kind = DwarfPiece::Kind::Register;
      else if (cur_.ops.empty()) return unsupported("nothing in it");
      else if (depth_ != 1) return unsupported("a result on a stack of " + std::to_string(depth_));
      else cur_.kind = value_ ? DwarfPiece::Kind::Value : DwarfPiece::Kind::Memory;
      pieces_.push_back(std::move(cur_));
    } else if (!cur_.ops.empty() || in_register_) {
      return unsupported("operations after its last piece");
    }
    v_->where = DwarfVar::Where::Computed;
    v_->pieces = std::move(pieces_);
    return true;
  }

 private:
  using K = DwarfExprOp::Kind;

  bool push(DwarfExprOp op, int pops, int pushes) {
    if (depth_ < pops) {
      *why_ = "its location expression uses more values than it pushes";
      return false;
    }
    depth_ += pushes - pops;
    cur_.ops.push_back(std::move(op));
    return true;
  }

  bool unsupported(const std::string &what) {
    *why_ = "its location is a DWARF expression with " + what + ", which xtap does not evaluate";
    return false;
  }

  // What pushes a value: literals, constants, registers, the frame base,
  // a static's address, an entry value.
  bool load(const Dwarf_Op &op, bool *handled) {
    uint8_t a = op.atom;
    DwarfExprOp e;
    *handled = true;
    if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
      e.number = a - DW_OP_lit0;
      return push(e, 0, 1);
    }
    if (a == DW_OP_const1u || a == DW_OP_const2u || a == DW_OP_const4u || a == DW_OP_const8u ||
        a == DW_OP_constu || a == DW_OP_const1s || a == DW_OP_const2s || a == DW_OP_const4s ||
        a == DW_OP_const8s || a == DW_OP_consts) {
      e.number = static_cast<int64_t>(op.number);  // libdw sign-extends the signed forms
      return push(e, 0, 1);
    }
    if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
      if (depth_ != 0 || !cur_.ops.empty()) return unsupported("a register used as a value");
      cur_.reg = a == DW_OP_regx ? static_cast<int>(op.number) : a - DW_OP_reg0;
      in_register_ = true;
      return true;
    }
    if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
      e.kind = K::Reg;
      e.reg = a == DW_OP_bregx ? static_cast<int>(op.number) : a - DW_OP_breg0;
      e.number = static_cast<int64_t>(a == DW_OP_bregx ? op.number2 : op.number);
      return push(e, 0, 1);
    }
    if (a == DW_OP_fbreg || a == DW_OP_call_frame_cfa) {
      e.kind = K::Reg;
      int64_t base = 0;
      if (a == DW_OP_fbreg ? !env_.frame_base(&e.reg, &base) : !env_.cfa(&e.reg, &base)) {
        *why_ = "its frame base is not known at this address";
        return false;
      }
      e.number = base + (a == DW_OP_fbreg ? static_cast<int64_t>(op.number) : 0);
      return push(e, 0, 1);
    }
    if (a == DW_OP_addr) {
      e.kind = K::Symbol;
      std::string not_placed;
      if (!env_.place(op.number, &e.symbol, &e.number, &not_placed)) {
        *why_ = "it uses the address of a static object, but " + not_placed;
        return false;
      }
      return push(e, 0, 1);
    }
    if (a == DW_OP_entry_value || a == DW_OP_GNU_entry_value) return entry_value_op(op);
    *handled = false;
    return true;
  }

  bool entry_value_op(const Dwarf_Op &op) {
    Dwarf_Attribute inner;
    Dwarf_Op *in_ops = nullptr;
    size_t in_n = 0;
    DwarfVar r;
    if (dwarf_getlocation_attr(env_.attr, &op, &inner) != 0 ||
        dwarf_getlocation(&inner, &in_ops, &in_n) != 0 || !simple_location(in_ops, in_n, &r) ||
        r.where != DwarfVar::Where::Register)
      return unsupported("an entry value of something other than a register");
    if (env_.inlined) {
      *why_ = "it is only known from values at the entry of " + env_.function +
              " (DW_OP_entry_value), and this copy of " + env_.function +
              " was inlined, so it has no entry";
      return false;
    }
    DwarfExprOp e;
    e.kind = env_.at_entry ? K::Reg : K::EntryReg;
    e.reg = r.reg;
    if (!env_.at_entry && v_->cfa_reg < 0 && !env_.cfa(&v_->cfa_reg, &v_->cfa_offset)) {
      *why_ =
          "it is only known from values at the function's entry (DW_OP_entry_value), and the "
          "call frame at this address is not known to tell the calls apart";
      return false;
    }
    return push(e, 0, 1);
  }

  // What works on the stack: loads, arithmetic, the stack shuffles.
  bool compute(const Dwarf_Op &op, bool *handled) {
    uint8_t a = op.atom;
    DwarfExprOp e;
    *handled = true;
    if (a == DW_OP_deref || a == DW_OP_deref_size) {
      e.kind = K::Deref;
      e.size = a == DW_OP_deref ? 8 : static_cast<uint32_t>(op.number);
      if (e.size != 1 && e.size != 2 && e.size != 4 && e.size != 8)
        return unsupported("a " + std::to_string(e.size) + "-byte load");
      return push(e, 1, 1);
    }
    if (a == DW_OP_plus_uconst || a == DW_OP_neg || a == DW_OP_not || a == DW_OP_abs) {
      e.kind = K::Unary;
      e.atom = a;
      e.number = static_cast<int64_t>(op.number);
      return push(e, 1, 1);
    }
    if (a == DW_OP_plus || a == DW_OP_minus || a == DW_OP_mul || a == DW_OP_div || a == DW_OP_mod ||
        a == DW_OP_and || a == DW_OP_or || a == DW_OP_xor || a == DW_OP_shl || a == DW_OP_shr ||
        a == DW_OP_shra || a == DW_OP_eq || a == DW_OP_ne || a == DW_OP_lt || a == DW_OP_gt ||
        a == DW_OP_le || a == DW_OP_ge) {
      e.kind = K::Binary;
      e.atom = a;
      return push(e, 2, 1);
    }
    if (a == DW_OP_dup || a == DW_OP_over || a == DW_OP_pick) {
      e.kind = K::Pick;
      e.number = a == DW_OP_dup ? 0 : a == DW_OP_over ? 1 : static_cast<int64_t>(op.number);
      return push(e, static_cast<int>(e.number) + 1, static_cast<int>(e.number) + 2);
    }
    if (a == DW_OP_drop) {
      e.kind = K::Drop;
      return push(e, 1, 0);
    }
    if (a == DW_OP_swap) {
      e.kind = K::Swap;
      return push(e, 2, 2);
    }
    if (a == DW_OP_rot) {
      e.kind = K::Rot;
      return push(e, 3, 3);
    }
    *handled = false;
    return true;
  }

  // What ends a value or a piece, and what xtap does not evaluate.
  bool structure(const Dwarf_Op &op) {
    uint8_t a = op.atom;
    if (a == DW_OP_stack_value) {
      if (depth_ != 1)
        return unsupported("DW_OP_stack_value on a stack of " + std::to_string(depth_));
      value_ = true;
      return true;
    }
    if (a == DW_OP_implicit_value) return implicit_value(op);
    if (a == DW_OP_piece) return piece(op);
    if (a == DW_OP_nop) return true;
    if (a == DW_OP_implicit_pointer || a == DW_OP_GNU_implicit_pointer) {
      *why_ = "it is a pointer the compiler optimised away (DW_OP_implicit_pointer)";
      return false;
    }
    if (a == DW_OP_bit_piece) return unsupported("pieces of bits (DW_OP_bit_piece)");
    if (a == DW_OP_bra || a == DW_OP_skip) return unsupported("branches (DW_OP_bra)");
    if (a == DW_OP_convert || a == DW_OP_GNU_convert)
      return unsupported("typed values (DW_OP_convert)");
    char atom[8];
    std::snprintf(atom, sizeof atom, "0x%02x", a);
    return unsupported(std::string("operation ") + atom);
  }

  bool implicit_value(const Dwarf_Op &op) {
    Dwarf_Block block;
    if (!cur_.ops.empty() || dwarf_getlocation_implicit_value(env_.attr, &op, &block) != 0 ||
        block.length > 8)
      return unsupported("an implicit value of more than 8 bytes");
    uint64_t x = 0;
    for (size_t b = 0; b < block.length; ++b) x |= static_cast<uint64_t>(block.data[b]) << (8 * b);
    DwarfExprOp e;
    e.number = static_cast<int64_t>(x);
    bool ok = push(e, 0, 1);
    value_ = true;
    return ok;
  }

  bool piece(const Dwarf_Op &op) {
    cur_.size = static_cast<uint32_t>(op.number);
    if (cur_.size == 0) return unsupported("an empty piece");
    if (in_register_) cur_.kind = DwarfPiece::Kind::Register;
    else if (cur_.ops.empty()) cur_.kind = DwarfPiece::Kind::Missing;
    else if (depth_ != 1)
      return unsupported("a piece computed from a stack of " + std::to_string(depth_));
    else cur_.kind = value_ ? DwarfPiece::Kind::Value : DwarfPiece::Kind::Memory;
    pieces_.push_back(std::move(cur_));
    cur_ = DwarfPiece{};
    value_ = in_register_ = false;
    depth_ = 0;
    return true;
  }

  const LoweringEnv &env_;
  DwarfVar *v_;
  std::string *why_;
  std::vector<DwarfPiece> pieces_;
  DwarfPiece cur_;
  bool value_ = false, in_register_ = false;
  int depth_ = 0;
};

bool lower_expression(const LoweringEnv &env, const Dwarf_Op *ops, size_t n, DwarfVar *v,
                      std::string *why) {
  ExpressionLowering lowering(env, v, why);
  for (size_t i = 0; i < n; ++i)
    if (!lowering.step(ops[i])) return false;
  return lowering.finish();
}

// The function and its lexical blocks that contain pc, innermost first.
// Inlined callees' blocks are not entered: a statement of `f` sees f's
// variables even where a callee's code was inlined.
std::vector<Dwarf_Die> enclosing_scopes(const Dwarf_Die &fn, Dwarf_Addr pc) {
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
  return std::vector<Dwarf_Die>(chain.rbegin(), chain.rend());
}

// The call frame at one address of a function: the CFA and the frame base
// (for DW_OP_fbreg), each as a register plus an offset, worked out on
// first use.
class FrameAt {
 public:
  FrameAt(Dwfl_Module *mod, Dwarf *dw, const DwarfFunction &f, const Dwarf_Die &fn, uint64_t addr,
          Dwarf_Addr pc)
      : mod_(mod), dw_(dw), f_(f), fn_(fn), addr_(addr), pc_(pc) {}

  // The CFA at the address from the call frame information.
  bool cfa(int *reg, int64_t *offset) const {
    Dwarf_Addr cfi_bias;
    Dwarf_CFI *cfi = dwfl_module_dwarf_cfi(mod_, &cfi_bias);
    if (!cfi) cfi = dwfl_module_eh_cfi(mod_, &cfi_bias);
    Dwarf_Frame *frame = nullptr;
    if (!cfi || dwarf_cfi_addrframe(cfi, addr_ - cfi_bias, &frame) != 0) return false;
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
  }

  // GCC's frame base is DW_OP_call_frame_cfa, the CFA; clang -O0's is a
  // register (DW_OP_reg6, rbp).
  bool frame_base(int *reg, int64_t *offset) {
    if (!have_base_) {
      have_base_ = true;
      if (!find_frame_base()) base_reg_ = -1;
    }
    if (base_reg_ < 0) return false;
    *reg = base_reg_;
    *offset = base_offset_;
    return true;
  }

 private:
  bool find_frame_base() {
    Dwarf_Attribute fb;
    Dwarf_Op *fb_ops = nullptr;
    size_t fb_n = 0;
    // An inlined instance has no frame of its own: the function it was
    // inlined into has the frame base.
    Dwarf_Die frame_owner = fn_;
    if (f_.inlined && !dwarf_offdie(dw_, f_.outer, &frame_owner)) return false;
    if (!dwarf_attr(&frame_owner, DW_AT_frame_base, &fb) ||
        dwarf_getlocation_addr(&fb, pc_, &fb_ops, &fb_n, 1) <= 0)
      return false;
    DwarfVar base;
    if (simple_location(fb_ops, fb_n, &base)) {
      if (base.where != DwarfVar::Where::Register) return false;  // a frame base in memory
      base_reg_ = base.reg;
      return true;
    }
    if (fb_n != 1 || fb_ops[0].atom != DW_OP_call_frame_cfa) return false;
    return cfa(&base_reg_, &base_offset_);
  }

  Dwfl_Module *mod_;
  Dwarf *dw_;
  const DwarfFunction &f_;
  Dwarf_Die fn_;
  uint64_t addr_;
  Dwarf_Addr pc_;
  bool have_base_ = false;
  int base_reg_ = -1;
  int64_t base_offset_ = 0;
};

// Where the variables of one function are looked up: the address, the
// call frame there, and how a static's address is placed (by a symbol).
struct VarSite {
  const DwarfFunction &f;
  uint64_t addr;
  Dwarf_Addr pc, fn_entry;
  FrameAt &frame;
  std::function<void(uint64_t, DwarfGlobal *)> place;  // a DWARF address
};

// A DW_OP_entry_value location: read at the entry itself, else kept by a
// kretprobe on the function and told apart by the CFA.
void entry_value_var(DwarfVar &v, const VarSite &site) {
  if (site.pc == site.fn_entry && !site.f.inlined) {
    // At the entry itself the register still holds it.
    v.where = v.in_memory ? DwarfVar::Where::Memory : DwarfVar::Where::Register;
    if (v.where == DwarfVar::Where::Register && v.offset) {
      v.where = DwarfVar::Where::Unavailable;
      v.why =
          "it is a register's entry value plus an offset, which xtap reads only inside "
          "the function";
    }
  } else if (site.f.inlined) {
    v.where = DwarfVar::Where::Unavailable;
    v.why = "it is only known as its value at the entry of " + site.f.name +
            " (DW_OP_entry_value), and this copy of " + site.f.name +
            " was inlined, so it has no entry to save it at";
  } else if (!site.frame.cfa(&v.cfa_reg, &v.cfa_offset)) {
    v.where = DwarfVar::Where::Unavailable;
    v.why =
        "it is only known as its value at the function's entry (DW_OP_entry_value), "
        "and the call frame at this address is not known to tell the calls apart";
  }
}

// Any other expression, lowered into operations (DwarfVar::Computed).
void computed_var(DwarfVar &v, Dwarf_Attribute *a, const Dwarf_Op *ops, size_t n,
                  const VarSite &site) {
  LoweringEnv env;
  env.attr = a;
  env.frame_base = [&site](int *reg, int64_t *offset) {
    return site.frame.frame_base(reg, offset);
  };
  env.cfa = [&site](int *reg, int64_t *offset) { return site.frame.cfa(reg, offset); };
  env.place = [&site](uint64_t at, std::string *symbol, int64_t *offset, std::string *why) {
    DwarfGlobal g;
    site.place(at, &g);
    *symbol = g.symbol;
    *offset = g.offset;
    *why = g.why;
    return g.why.empty();
  };
  env.at_entry = site.pc == site.fn_entry && !site.f.inlined;
  env.inlined = site.f.inlined;
  env.function = site.f.name;
  std::string why;
  if (!lower_expression(env, ops, n, &v, &why)) {
    v.where = DwarfVar::Where::Unavailable;
    v.pieces.clear();
    v.why = why;
  }
}

// Where the variable whose DW_AT_location is `a` is at the site's address.
void locate_var(DwarfVar &v, Dwarf_Attribute *a, const VarSite &site) {
  Dwarf_Op *ops = nullptr;
  size_t n = 0;
  int found = dwarf_getlocation_addr(a, site.pc, &ops, &n, 1);
  if (found <= 0) {
    v.why = "it is optimised out at this address (" + hex_address(site.addr) + ")";
  } else if (n == 1 && ops[0].atom == DW_OP_fbreg) {
    int reg = -1;
    int64_t base = 0;
    if (site.frame.frame_base(&reg, &base)) {
      v.where = DwarfVar::Where::Memory;
      v.reg = reg;
      v.offset = base + static_cast<int64_t>(ops[0].number);
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
    site.place(ops[0].number, &g);
    if (g.why.empty()) {
      v.where = DwarfVar::Where::Address;
      v.symbol = g.symbol;
      v.offset = g.offset;
      v.in_memory = n == 1;  // a function-scope static stored there
    } else {
      v.why = "it is the address of a static object, but " + g.why;
    }
  } else if (entry_value(a, ops, n, &v)) {
    entry_value_var(v, site);
  } else if (!simple_location(ops, n, &v)) {
    computed_var(v, a, ops, n, site);
  }
}

}  // namespace

std::vector<DwarfVar> KernelDwarf::variables_at(const DwarfFunction &f, uint64_t addr) const {
  Impl &im = *impl_;
  std::vector<DwarfVar> out;
  Dwarf_Die fn, cu;
  if (!dwarf_offdie(im.dw, f.die, &fn) || !dwarf_diecu(&fn, &cu, nullptr, nullptr)) return out;
  Dwarf_Addr pc = addr - im.bias;
  FrameAt frame(im.mod, im.dw, f, fn, addr, pc);
  VarSite site{f,     addr,
               pc,    f.entry - im.bias,
               frame, [this, &im](uint64_t at, DwarfGlobal *g) { place_global(at + im.bias, g); }};
  std::set<std::string> seen;
  for (Dwarf_Die &scope : enclosing_scopes(fn, pc)) {
    Dwarf_Die child;
    if (dwarf_child(&scope, &child) != 0) continue;
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
        locate_var(v, &a, site);
      }
      out.push_back(std::move(v));
    } while (dwarf_siblingof(&child, &child) == 0);
  }
  return out;
}

}  // namespace xtap
