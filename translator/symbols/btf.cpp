// BTF to the catalog's type model. BTF ids are converted all at once (a
// vmlinux has some 100k types; converting them takes a fraction of a second,
// less than finding out lazily which ones a script reaches). Qualifiers
// (const, volatile, restrict, type tags) are not types of their own in the
// catalog model: they are looked through, a const target marking its
// pointer, as the header catalog does.
#include "symbols/btf.h"

#include <bpf/btf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace xtap {

class BtfConverter {
 public:
  BtfConverter(const struct btf *btf, KernelBtf &out, const std::string &origin)
      : btf_(btf), out_(out) {
    out_.origin_ = origin;
  }

  void run() {
    uint32_t n = btf__type_cnt(btf_);
    table_id_.assign(n, -1);
    out_.types_.reserve(n);
    KType void_type;
    table_id_[0] = out_.types_.add(void_type);
    for (uint32_t id = 1; id < n; ++id)
      if (is_type(btf__type_by_id(btf_, id))) table_id_[id] = out_.types_.add(KType{});
    for (uint32_t id = 1; id < n; ++id)
      if (table_id_[id] >= 0) fill(id, btf__type_by_id(btf_, id));
    out_.types_.index_records();
    // Functions in name order, each name once (the first in the BTF wins):
    // sorted as (name, id) pairs over the BTF's own strings, so that no
    // converted function is copied or moved by the sort.
    std::vector<std::pair<const char *, uint32_t>> funcs;
    for (uint32_t id = 1; id < n; ++id) {
      const btf_type *t = btf__type_by_id(btf_, id);
      if (btf_is_func(t)) funcs.emplace_back(btf__name_by_offset(btf_, t->name_off), id);
    }
    std::sort(funcs.begin(), funcs.end(), [](const auto &a, const auto &b) {
      int c = std::strcmp(a.first ? a.first : "", b.first ? b.first : "");
      return c != 0 ? c < 0 : a.second < b.second;
    });
    out_.functions_.reserve(funcs.size());
    const char *last = nullptr;
    for (const auto &[fname, id] : funcs) {
      if (last && fname && std::strcmp(last, fname) == 0) continue;
      if (add_function(btf__type_by_id(btf_, id))) last = fname;
    }
  }

 private:
  static bool is_qualifier(const btf_type *t) {
    return btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t) || btf_is_type_tag(t);
  }

  // Kinds that become a type of their own in the table.
  static bool is_type(const btf_type *t) {
    return btf_is_int(t) || btf_is_ptr(t) || btf_is_array(t) || btf_is_composite(t) ||
           btf_is_fwd(t) || btf_is_any_enum(t) || btf_is_typedef(t) || btf_is_func_proto(t) ||
           btf_is_float(t);
  }

  // The table id of BTF type `id`, looking through qualifiers; *is_const
  // (when given) learns whether a const was among them.
  int map(uint32_t id, bool *is_const = nullptr) const {
    for (int depth = 0; depth < 16 && id != 0 && id < table_id_.size(); ++depth) {
      const btf_type *t = btf__type_by_id(btf_, id);
      if (!is_qualifier(t)) break;
      if (btf_is_const(t) && is_const) *is_const = true;
      id = t->type;
    }
    if (id >= table_id_.size() || table_id_[id] < 0) return 0;  // void, or a kind scripts never see
    return table_id_[id];
  }

  std::string name(uint32_t name_off) const {
    const char *s = btf__name_by_offset(btf_, name_off);
    return s ? s : "";
  }

  void fill(uint32_t id, const btf_type *t) {
    KType &k = out_.types_.mutable_at(table_id_[id]);
    k.name = name(t->name_off);
    if (btf_is_int(t)) {
      k.kind = KTypeKind::Int;
      k.size = t->size;
      k.is_signed = (btf_int_encoding(t) & BTF_INT_SIGNED) != 0;
    } else if (btf_is_any_enum(t)) {
      k.kind = KTypeKind::Enum;
      k.size = t->size;
      k.is_signed = btf_kflag(t);
    } else if (btf_is_float(t)) {
      k.kind = KTypeKind::Float;
      k.size = t->size;
    } else if (btf_is_ptr(t)) {
      k.kind = KTypeKind::Pointer;
      k.size = 8;
      k.target = map(t->type, &k.is_const);
    } else if (btf_is_array(t)) {
      const struct btf_array *a = btf_array(t);
      k.kind = KTypeKind::Array;
      k.target = map(a->type);
      k.count = a->nelems;
      long size = btf__resolve_size(btf_, id);
      k.size = size > 0 ? static_cast<uint64_t>(size) : 0;
    } else if (btf_is_composite(t)) {
      k.kind = btf_is_union(t) ? KTypeKind::Union : KTypeKind::Struct;
      k.size = t->size;
      const btf_member *m = btf_members(t);
      for (uint16_t i = 0; i < btf_vlen(t); ++i, ++m)
        k.members.push_back({name(m->name_off), map(m->type), btf_member_bit_offset(t, i),
                             btf_member_bitfield_size(t, i)});
    } else if (btf_is_fwd(t)) {
      k.kind = btf_kflag(t) ? KTypeKind::Union : KTypeKind::Struct;
      k.complete = false;
    } else if (btf_is_typedef(t)) {
      k.kind = KTypeKind::Typedef;
      k.target = map(t->type);
    } else if (btf_is_func_proto(t)) {
      k.kind = KTypeKind::Function;
      k.target = map(t->type);
      const btf_param *p = btf_params(t);
      for (uint16_t i = 0; i < btf_vlen(t); ++i, ++p) {
        if (p->type == 0) {
          k.variadic = true;
          continue;
        }
        k.members.push_back({"", map(p->type), 0, 0});
      }
    }
  }

  bool add_function(const btf_type *func) {
    const btf_type *proto = btf__type_by_id(btf_, func->type);
    if (!proto || !btf_is_func_proto(proto)) return false;
    KFunction f;
    f.name = name(func->name_off);
    f.return_type = map(proto->type);
    const btf_param *p = btf_params(proto);
    for (uint16_t i = 0; i < btf_vlen(proto); ++i, ++p) {
      if (p->type == 0) {
        f.variadic = true;
        continue;
      }
      std::string pname = name(p->name_off);
      if (pname.empty()) pname = "arg" + std::to_string(i + 1);
      f.params.push_back({pname, map(p->type)});
    }
    out_.functions_.push_back(std::move(f));
    return true;
  }

  const struct btf *btf_;
  KernelBtf &out_;
  std::vector<int> table_id_;
};

namespace {

std::unique_ptr<KernelBtf> convert(struct btf *btf, const std::string &origin, std::string *error) {
  if (!btf) {
    *error = origin + ": cannot read BTF: " + strerror(errno);
    return nullptr;
  }
  auto out = std::make_unique<KernelBtf>();
  BtfConverter(btf, *out, origin).run();
  btf__free(btf);
  return out;
}

}  // namespace

std::unique_ptr<KernelBtf> KernelBtf::load(const std::string &path, std::string *error) {
  return convert(btf__parse(path.c_str(), nullptr), path, error);
}

std::unique_ptr<KernelBtf> KernelBtf::from_raw(const void *data, size_t size,
                                               const std::string &origin, std::string *error) {
  return convert(btf__new(data, static_cast<uint32_t>(size)), origin, error);
}

// A binary search of the sorted functions: no per-run hash table of
// 60,000 names to build for the few a script looks up.
const KFunction *KernelBtf::find_function(const std::string &name) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), name,
                             [](const KFunction &f, const std::string &n) { return f.name < n; });
  return it != functions_.end() && it->name == name ? &*it : nullptr;
}

}  // namespace xtap
