// Pass 3: target expressions ($prev->pid, @cast(p, "file")->f_flags) as
// the program pass 2 worked out (symbols/target_access.h): address
// arithmetic on a u64, and loads through the runtime's nofault reader,
// which raises a catchable "read fault" instead of faulting.
#include "codegen/body_emitter.h"
#include "symbols/target_access.h"

namespace xtap {

std::string BodyEmitter::target_read(const Expr &e) {
  const TargetAccess &acc = *e.target->access;
  std::string t = unique("_t");
  std::string base = acc.base_c.empty() ? "(u64)(" + expr(*e.arg(0)) + ")" : acc.base_c;
  std::string s = "({ u64 " + t + " = " + base + "; ";
  for (const auto &op : acc.ops) {
    switch (op.kind) {
      case AccessOp::Kind::Offset:
        s += t + " += " + std::to_string(op.offset) + "ULL; ";
        break;
      case AccessOp::Kind::Index:
        s += t + " += (u64)(" + expr(*e.arg(static_cast<size_t>(op.index_arg))) + ") * " +
             std::to_string(op.size) + "ULL; ";
        break;
      case AccessOp::Kind::Load: {
        std::string bits = std::to_string(op.size * 8);
        std::string v = unique("_m");
        s += "{ u" + bits + " " + v + "; if (xtap_kread(c, " + t + ", &" + v + ", " + std::to_string(op.size) +
             ")) " + on_error() + " " + t + " = ";
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
  return s + "(s64)" + t + "; })";
}

}  // namespace xtap
