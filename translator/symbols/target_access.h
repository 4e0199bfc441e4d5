// How a target expression ($prev->se->vruntime, $arr[2], @cast(p, "file")->f_flags)
// reads kernel memory: a walk over the C types of the kernel catalog that
// turns the `->member` and `[index]` components into a short program of
// address arithmetic and loads, which pass 3 emits as nofault reads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "parse/ast.h"
#include "symbols/catalog.h"

namespace xtap {

struct AccessOp {
  enum class Kind {
    Offset,  // addr += offset
    Index,   // addr += (index expression args[index_arg]) * size
    Load,    // value = *(size bytes at addr), sign- or zero-extended; a bitfield when bit_size
  } kind = Kind::Offset;
  int64_t offset = 0;
  int index_arg = -1;
  uint32_t size = 0;
  bool is_signed = false;
  uint32_t bit_offset = 0;  // Load of a bitfield: from the loaded unit's start
  uint32_t bit_size = 0;
};

struct TargetAccess {
  std::string base_c;  // C expression (u64) of the base value; empty: @cast's operand (args[0])
  bool base_can_fail = false;  // base_c can raise a run-time error
  // The loads read user memory (a process probe's variables, which point
  // into the probed program): through the user nofault reader, so that a
  // bad user pointer is a script error as a bad kernel pointer is.
  bool user = false;
  std::vector<AccessOp> ops;
  int type = -1;  // the C type of the result (in `types`)
  // The result is the address of an object of C type `type` (`&x->m`, an
  // array or function member) rather than a value of that type: what an
  // autocast of the result walks from (`(&x->m)->n`).
  bool address = false;
  const TypeTable *types = nullptr;
  // The left side of a guru-mode assignment: the register to set (>= 0),
  // or, with store_size, memory at the address the ops before their final
  // Load compute.
  int store_reg = -1;
  uint32_t store_size = 0;
  // A bitfield (store_bit_size > 0): its bits of the stored unit, from its
  // least significant bit, as the final Load reads them.
  uint32_t store_bit_offset = 0, store_bit_size = 0;
};

struct TargetWalkError {
  std::string message;
  std::string hint;
  size_t component = 0;  // the component it is about; SIZE_MAX: the whole expression
};

// Walks `t`'s components from a base value of C type `base_type` (a
// pointer or scalar held in a register or variable), or, when
// `base_is_address`, from an object of that type at the base address
// (@cast). With `type_only`, only the final type is wanted (pretty-prints)
// and the result is not checked for being a value. With `cast_base` (the
// base is @cast(p, "T")), a first index steps over whole Ts from p, as C's
// ((T *)p)[i]. On success returns the access; on failure null with *err. `&`
// yields the final address; a struct or union as the final value is an error.
std::shared_ptr<TargetAccess> walk_target(const TypeTable &types, int base_type,
                                          const std::string &base_c, bool base_is_address,
                                          const TargetRef &t, TargetWalkError *err,
                                          bool type_only = false, bool cast_base = false);

// Names of the members of the record `type` (through typedefs and pointers),
// for "did you mean" hints.
std::vector<std::string> member_names(const TypeTable &types, int type);

// What a script sees: integers, enums, pointers and arrays (their address)
// are longs.
bool is_scalar_value(const TypeTable &types, int type);

}  // namespace xtap
