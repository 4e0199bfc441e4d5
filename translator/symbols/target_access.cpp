#include "symbols/target_access.h"

#include <climits>
#include <optional>

#include "diag/diagnostics.h"

namespace xtap {
namespace {

bool loadable(uint64_t size) { return size == 1 || size == 2 || size == 4 || size == 8; }

struct Found {
  int type = -1;
  uint64_t bit_offset = 0;
  uint32_t bit_size = 0;
};

// A member by name, looking into anonymous struct/union members as C does.
bool find_member(const TypeTable &types, const KType &rec, const std::string &name, uint64_t base,
                 Found *out) {
  for (const auto &m : rec.members) {
    if (m.name == name) {
      *out = {m.type, base + m.bit_offset, m.bit_size};
      return true;
    }
    if (m.name.empty()) {
      const KType &inner = types.at(types.strip_typedefs(m.type));
      if ((inner.kind == KTypeKind::Struct || inner.kind == KTypeKind::Union) &&
          find_member(types, inner, name, base + m.bit_offset, out))
        return true;
    }
  }
  return false;
}

void collect_members(const TypeTable &types, const KType &rec, std::vector<std::string> &out) {
  for (const auto &m : rec.members) {
    if (!m.name.empty()) {
      out.push_back(m.name);
      continue;
    }
    const KType &inner = types.at(types.strip_typedefs(m.type));
    if (inner.kind == KTypeKind::Struct || inner.kind == KTypeKind::Union)
      collect_members(types, inner, out);
  }
}

bool is_record(const KType &t) { return t.kind == KTypeKind::Struct || t.kind == KTypeKind::Union; }

class Walker {
 public:
  Walker(const TypeTable &types, const TargetRef &t, TargetWalkError *err, bool type_only,
         bool cast_base)
      : types_(types), t_(t), err_(err), type_only_(type_only), cast_base_(cast_base) {}

  std::shared_ptr<TargetAccess> run(int base_type, const std::string &base_c,
                                    bool base_is_address) {
    acc_ = std::make_shared<TargetAccess>();
    acc_->base_c = base_c;
    acc_->types = &types_;
    type_ = base_type;
    place_ = base_is_address;
    for (size_t i = 0; i < t_.components.size(); ++i) {
      const auto &c = t_.components[i];
      bool ok = c.kind == TargetComponent::Kind::Member ? member(c.member, i) : index(c.arg, i);
      if (!ok) return nullptr;
    }
    if (!finish()) return nullptr;
    acc_->type = type_;
    return acc_;
  }

 private:
  const KType &cur() const { return types_.at(types_.strip_typedefs(type_)); }

  bool fail(size_t component, std::string msg, std::string hint = "") {
    *err_ = {std::move(msg), std::move(hint), component};
    return false;
  }

  // The place holds a pointer: load it, so that the value is the pointer.
  void load_pointer() {
    acc_->ops.push_back({AccessOp::Kind::Load, 0, -1, 8, false, 0, 0});
    place_ = false;
  }

  // Makes the current position the address of a struct/union to pick a member of.
  bool to_record(size_t i, const std::string &member) {
    if (place_ && cur().kind == KTypeKind::Pointer) load_pointer();
    if (!place_) {
      if (cur().kind != KTypeKind::Pointer)
        return fail(i,
                    "'" + prefix(i) + "' is a " + types_.spelling(type_) +
                        ", not a pointer to a struct or union",
                    "'->" + member + "' needs a struct or union");
      type_ = cur().target;
      place_ = true;
    }
    const KType &rec = cur();
    if (!is_record(rec))
      return fail(i, "'" + prefix(i) + "' points to a " + types_.spelling(type_) +
                         ", which has no members");
    if (!rec.complete)
      return fail(i,
                  types_.spelling(type_) +
                      " is not defined in the kernel headers, so its members are unknown",
                  "install the kernel's -dbg package for its debuginfo, or @cast the pointer to a "
                  "known type");
    return true;
  }

  bool member(const std::string &name, size_t i) {
    if (bits_) return fail(i, "'" + prefix(i) + "' is a bitfield; it has no members");
    if (!to_record(i, name)) return false;
    Found f;
    if (!find_member(types_, cur(), name, 0, &f)) {
      std::vector<std::string> names;
      collect_members(types_, cur(), names);
      std::string guess = closest_match(name, names);
      return fail(i, types_.spelling(type_) + " has no member '" + name + "'",
                  guess.empty() ? "" : "did you mean '" + guess + "'?");
    }
    uint64_t byte = f.bit_offset / 8;
    if (f.bit_size) {
      const KType &unit = types_.at(types_.strip_typedefs(f.type));
      uint64_t size = loadable(unit.size) ? unit.size : 8;
      byte = (f.bit_offset / (size * 8)) * size;
      if (f.bit_offset + f.bit_size > (byte + size) * 8) {  // straddles its unit: load 8 bytes
        size = 8;
        byte = f.bit_offset / 8;
      }
      bits_ = {static_cast<uint32_t>(f.bit_offset - byte * 8), f.bit_size,
               static_cast<uint32_t>(size)};
    }
    if (byte)
      acc_->ops.push_back({AccessOp::Kind::Offset, static_cast<int64_t>(byte), -1, 0, false, 0, 0});
    type_ = f.type;
    return true;
  }

  bool index(int arg, size_t i) {
    if (bits_) return fail(i, "'" + prefix(i) + "' is a bitfield; it cannot be indexed");
    if (place_ && cur().kind == KTypeKind::Pointer) load_pointer();
    // @cast(p, "T")[i] is p taken as a T *, as in stap: the i-th T from p
    // (so &@cast(0, "T")[1] is sizeof(T)).
    if (i == 0 && cast_base_ && place_ && cur().kind != KTypeKind::Array) {
      if (cur().size == 0)
        return fail(i, types_.spelling(type_) + " has no size; it cannot be indexed");
      acc_->ops.push_back(
          {AccessOp::Kind::Index, 0, arg, static_cast<uint32_t>(cur().size), false, 0, 0});
      return true;
    }
    const KType &t = cur();
    if (!((place_ && t.kind == KTypeKind::Array) || (!place_ && t.kind == KTypeKind::Pointer)))
      return fail(
          i, "'" + prefix(i) + "' is a " + types_.spelling(type_) + ", not an array or a pointer");
    int elem = t.target;
    const KType &e = types_.at(types_.strip_typedefs(elem));
    if (e.size == 0)
      return fail(i,
                  "elements of '" + prefix(i) + "' (" + types_.spelling(elem) + ") have no size");
    acc_->ops.push_back(
        {AccessOp::Kind::Index, 0, arg, static_cast<uint32_t>(e.size), false, 0, 0});
    type_ = elem;
    place_ = true;
    return true;
  }

  bool finish() {
    size_t all = SIZE_MAX;
    if (type_only_) return true;
    if (t_.address_of) {
      if (!place_) return fail(all, "'" + t_.spelling() + "' is not in memory: it has no address");
      if (bits_) return fail(all, "a bitfield has no address");
      acc_->address = true;  // the script sees a plain long; an autocast, the type
      return true;
    }
    const KType &t = cur();
    if (!place_) {
      if (t.kind == KTypeKind::Int || t.kind == KTypeKind::Enum || t.kind == KTypeKind::Pointer)
        return true;
      return fail(all, "'" + t_.spelling() + "' is a " + types_.spelling(type_) +
                           ", which a script cannot hold");
    }
    switch (t.kind) {
      case KTypeKind::Int:
      case KTypeKind::Enum:
        if (bits_) {
          acc_->ops.push_back(
              {AccessOp::Kind::Load, 0, -1, bits_->unit, t.is_signed, bits_->offset, bits_->size});
          return true;
        }
        if (!loadable(t.size))
          return fail(all, "'" + t_.spelling() + "' is a " + std::to_string(t.size * 8) +
                               "-bit integer; scripts read up to 64 bits");
        acc_->ops.push_back(
            {AccessOp::Kind::Load, 0, -1, static_cast<uint32_t>(t.size), t.is_signed, 0, 0});
        return true;
      case KTypeKind::Pointer: load_pointer(); return true;
      case KTypeKind::Array:
      case KTypeKind::Function:
        acc_->address = true;
        return true;  // the address, as stap gives it (kernel_string($p->comm))
      case KTypeKind::Struct:
      case KTypeKind::Union:
        return fail(all, "'" + t_.spelling() + "' is a " + types_.spelling(type_) + ", not a value",
                    "read one of its members with ->name, print it with '" + t_.spelling() +
                        "$', or take its address with '&'");
      default:
        return fail(all, "'" + t_.spelling() + "' is a " + types_.spelling(type_) +
                             ", which a script cannot read");
    }
  }

  // The expression up to component i, for messages.
  std::string prefix(size_t i) const {
    TargetRef p = t_;
    p.components.resize(i);
    p.pretty = 0;
    p.address_of = false;
    p.access.reset();
    return p.spelling();
  }

  struct Bits {
    uint32_t offset, size, unit;
  };
  const TypeTable &types_;
  const TargetRef &t_;
  TargetWalkError *err_;
  bool type_only_;
  bool cast_base_;  // the base is @cast(p, "T"): p points to T
  std::shared_ptr<TargetAccess> acc_;
  int type_ = -1;
  bool place_ = false;
  std::optional<Bits> bits_;
};

}  // namespace

std::shared_ptr<TargetAccess> walk_target(const TypeTable &types, int base_type,
                                          const std::string &base_c, bool base_is_address,
                                          const TargetRef &t, TargetWalkError *err, bool type_only,
                                          bool cast_base) {
  return Walker(types, t, err, type_only, cast_base).run(base_type, base_c, base_is_address);
}

std::vector<std::string> member_names(const TypeTable &types, int type) {
  std::vector<std::string> out;
  int id = types.strip_typedefs(type);
  if (types.at(id).kind == KTypeKind::Pointer) id = types.strip_typedefs(types.at(id).target);
  if (is_record(types.at(id))) collect_members(types, types.at(id), out);
  return out;
}

bool is_scalar_value(const TypeTable &types, int type) {
  if (type < 0) return true;
  KTypeKind k = types.at(types.strip_typedefs(type)).kind;
  return k == KTypeKind::Int || k == KTypeKind::Enum || k == KTypeKind::Pointer ||
         k == KTypeKind::Array;
}

}  // namespace xtap
