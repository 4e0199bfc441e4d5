// Pass 3: target expressions ($prev->pid, @cast(p, "file")->f_flags) as
// the program pass 2 worked out (symbols/target_access.h): address
// arithmetic on a u64, and loads through the runtime's nofault reader,
// which raises a catchable "read fault" instead of faulting; in process
// probes (TargetAccess::user) through the user reader.
#include "codegen/body_emitter.h"
#include "symbols/target_access.h"

namespace xtap {

std::string BodyEmitter::target_read(const Expr &e) {
  std::string t = unique("_t");
  return target_ops(e, t, e.target->access->ops.size()) + "(s64)" + t + "; })";
}

// "({ u64 T = base; ...the first n ops... " (the caller closes it).
std::string BodyEmitter::target_ops(const Expr &e, const std::string &t, size_t n) {
  const TargetAccess &acc = *e.target->access;
  std::string base = acc.base_c.empty() ? "(u64)(" + expr(*e.arg(0)) + ")" : acc.base_c;
  std::string s = "({ u64 " + t + " = " + base + "; ";
  if (acc.base_can_fail) s += "if (unlikely(c->error)) " + on_error() + " ";
  for (size_t i = 0; i < n; ++i) {
    const AccessOp &op = acc.ops[i];
    switch (op.kind) {
      case AccessOp::Kind::Offset: s += t + " += " + std::to_string(op.offset) + "ULL; "; break;
      case AccessOp::Kind::Index:
        s += t + " += (u64)(" + expr(*e.arg(static_cast<size_t>(op.index_arg))) + ") * " +
             std::to_string(op.size) + "ULL; ";
        break;
      case AccessOp::Kind::Load: {
        std::string bits = std::to_string(op.size * 8);
        std::string v = unique("_m");
        s += "{ u" + bits + " " + v + "; if (" + (acc.user ? "xtap_uread" : "xtap_kread") + "(c, " +
             t + ", &" + v + ", " + std::to_string(op.size) + ")) " + on_error() + " " + t + " = ";
        if (op.bit_size) {
          // A bitfield: its bits of the loaded unit, sign-extended if signed.
          std::string up = std::to_string(64 - op.bit_offset - op.bit_size);
          std::string down = std::to_string(64 - op.bit_size);
          s += op.is_signed ? "(u64)((s64)((u64)" + v + " << " + up + ") >> " + down + "); } "
                            : "((u64)" + v + " << " + up + ") >> " + down + "; } ";
        } else {
          s += op.is_signed ? "(u64)(s64)(s" + bits + ")" + v + "; } " : "(u64)" + v + "; } ";
        }
        break;
      }
    }
  }
  return s;
}

// Guru mode: $reg_var = v sets the saved register; $p->field = v stores
// the field's bytes through the nofault writer. The value is the
// expression's result, as for any assignment.
std::string BodyEmitter::target_write(const Expr &lhs, const std::string &value) {
  const TargetAccess &acc = *lhs.target->access;
  std::string v = unique("_w");
  if (acc.store_reg >= 0)
    return "({ s64 " + v + " = " + value + "; xtap_dwarf_set_reg(c, " +
           std::to_string(acc.store_reg) + ", (u64)" + v + "); " + v + "; })";
  // The value first, then the address (as for array elements).
  std::string t = unique("_t");
  std::string bits = std::to_string(acc.store_size * 8);
  std::string u = unique("_u");
  std::string place = target_ops(lhs, t, acc.ops.size() - 1).substr(3);  // without its "({ "
  if (acc.store_bit_size) {
    // A bitfield: read its unit, replace its bits, write the unit back (as
    // the compiler does; not atomic against the kernel's own writes).
    std::string mask = acc.store_bit_size >= 64
                           ? "~0ULL"
                           : "(((1ULL << " + std::to_string(acc.store_bit_size) + ") - 1) << " +
                                 std::to_string(acc.store_bit_offset) + ")";
    std::string size = std::to_string(acc.store_size);
    return "({ s64 " + v + " = " + value + "; " + place + "{ u" + bits + " " + u +
           "; if (xtap_kread(c, " + t + ", &" + u + ", " + size + ")) " + on_error() + " " + u +
           " = (u" + bits + ")((" + u + " & ~" + mask + ") | (((u64)" + v + " << " +
           std::to_string(acc.store_bit_offset) + ") & " + mask + ")); if (xtap_kwrite(c, " + t +
           ", &" + u + ", " + size + ")) " + on_error() + " } " + v + "; })";
  }
  return "({ s64 " + v + " = " + value + "; " + place + "{ u" + bits + " " + u + " = (u" + bits +
         ")" + v + "; if (xtap_kwrite(c, " + t + ", &" + u + ", " + std::to_string(acc.store_size) +
         ")) " + on_error() + " } " + v + "; })";
}

}  // namespace xtap
