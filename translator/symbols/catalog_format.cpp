// The kernel catalog's text format (docs/catalog.md): one record per line,
// fields separated by one space, a name (which may hold spaces, "unsigned
// int") always last. parse() checks everything a consumer relies on, so that
// a truncated or corrupt file is an error with its line, never a crash or a
// loop later: every type reference is in range, counts match, and the links
// that consumers follow recursively have no cycles.
#include <algorithm>
#include <charconv>

#include "symbols/catalog.h"

namespace xtap {
namespace {

constexpr int kFormatVersion = 1;
constexpr char kMagic[] = "xtap-catalog";
// Longest chain of pointer/array/typedef/function links that spelling() may
// recurse through: real kernel types stay below a dozen.
constexpr int kMaxDeclaratorDepth = 256;
// Catalogs describe x86_64 kernels (the syscall numbers are its native ABI).
constexpr uint64_t kPointerSize = 8;

const char *kind_keyword(KTypeKind k) {
  switch (k) {
    case KTypeKind::Void: return "void";
    case KTypeKind::Int: return "int";
    case KTypeKind::Enum: return "enum";
    case KTypeKind::Float: return "float";
    case KTypeKind::Pointer: return "ptr";
    case KTypeKind::Array: return "array";
    case KTypeKind::Struct: return "struct";
    case KTypeKind::Union: return "union";
    case KTypeKind::Typedef: return "typedef";
    case KTypeKind::Function: return "func";
  }
  return "?";
}

// ---- writing ---------------------------------------------------------------

void append_name(std::string &out, const std::string &name) {
  if (!name.empty()) out += ' ' + name;
  out += '\n';
}

void write_type(std::string &out, int id, const KType &t) {
  out += "t " + std::to_string(id) + ' ' + kind_keyword(t.kind);
  switch (t.kind) {
    case KTypeKind::Void:
      out += '\n';  // its name is its kind
      return;
    case KTypeKind::Int:
    case KTypeKind::Enum: out += ' ' + std::to_string(t.size) + (t.is_signed ? " s" : " u"); break;
    case KTypeKind::Float: out += ' ' + std::to_string(t.size); break;
    case KTypeKind::Pointer:
      out += ' ' + std::to_string(t.target) + (t.is_const ? " const\n" : "\n");
      return;
    case KTypeKind::Array:
      out += ' ' + std::to_string(t.target) + ' ' + std::to_string(t.count) + '\n';
      return;
    case KTypeKind::Struct:
    case KTypeKind::Union:
      if (t.complete) out += ' ' + std::to_string(t.size) + ' ' + std::to_string(t.members.size());
      else out += " incomplete";
      break;
    case KTypeKind::Typedef: out += ' ' + std::to_string(t.target); break;
    case KTypeKind::Function:
      out += ' ' + std::to_string(t.target) + ' ' + std::to_string(t.members.size()) +
             (t.variadic ? " ...\n" : "\n");
      for (const KMember &p : t.members) out += "p " + std::to_string(p.type) + '\n';
      return;
  }
  append_name(out, t.name);
  if (t.kind == KTypeKind::Struct || t.kind == KTypeKind::Union)
    for (const KMember &m : t.members) {
      out += "m " + std::to_string(m.bit_offset) + ' ' + std::to_string(m.bit_size) + ' ' +
             std::to_string(m.type);
      append_name(out, m.name);
    }
}

void write_params(std::string &out, const std::vector<KParam> &params) {
  for (const KParam &p : params) {
    out += "p " + std::to_string(p.type);
    append_name(out, p.name);
  }
}

// ---- reading ---------------------------------------------------------------

// One line, consumed field by field.
class Fields {
 public:
  explicit Fields(std::string_view line) : rest_(line) {}
  bool next(std::string_view *f) {
    if (rest_.empty()) return false;
    size_t sp = rest_.find(' ');
    *f = rest_.substr(0, sp);
    rest_ = sp == std::string_view::npos ? std::string_view() : rest_.substr(sp + 1);
    return !f->empty();
  }
  template <typename T>
  bool number(T *v) {
    std::string_view f;
    if (!next(&f)) return false;
    auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), *v);
    return ec == std::errc() && end == f.data() + f.size();
  }
  bool keyword(std::string_view want) {
    std::string_view f;
    return next(&f) && f == want;
  }
  // Whatever is left: a name, possibly empty, possibly with spaces.
  std::string rest() {
    std::string r(rest_);
    rest_ = {};
    return r;
  }
  bool done() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

class Reader {
 public:
  Reader(std::string_view text, const std::string &origin) : text_(text), origin_(origin) {}

  std::unique_ptr<KernelCatalog> read(std::string *error);

 private:
  std::string_view text_;
  const std::string &origin_;
  size_t pos_ = 0;
  size_t line_no_ = 0;
  size_t ntypes_ = 0;  // from the counts line; every type reference is below it
  std::string error_;

  bool next_line(std::string_view *line);
  std::vector<size_t> type_lines_;  // where each type was defined, for errors found later

  bool fail(const std::string &what) { return fail_on_line(line_no_, what); }
  bool fail_on_line(size_t line, const std::string &what) {
    if (error_.empty()) error_ = origin_ + ":" + std::to_string(line) + ": " + what;
    return false;
  }
  bool fail_at(int type, const std::string &what) {
    return fail_on_line(type_lines_.at(static_cast<size_t>(type)),
                        "type " + std::to_string(type) + ": " + what);
  }
  bool read_header(std::string *release, size_t *ntypes, size_t *ntps, size_t *nscs);
  bool read_type(TypeTable *types, size_t expected_id);
  bool read_member(KMember *m);
  bool read_param(KParam *p, bool named);
  bool read_params(std::vector<KParam> *params, size_t n);
  bool read_tracepoint(KTracepoint *tp);
  bool read_syscall(KSyscall *sc);
  bool type_ref(Fields &f, int *id);
  bool check_cycles(const TypeTable &types);
};

bool Reader::next_line(std::string_view *line) {
  while (pos_ < text_.size()) {
    size_t nl = text_.find('\n', pos_);
    if (nl == std::string_view::npos) nl = text_.size();
    *line = text_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    ++line_no_;
    if (!line->empty() && (*line)[0] == '#') continue;  // comments
    return true;
  }
  ++line_no_;
  return fail("unexpected end of file (truncated catalog?)");
}

bool Reader::read_header(std::string *release, size_t *ntypes, size_t *ntps, size_t *nscs) {
  std::string_view line;
  if (!next_line(&line)) return false;
  Fields magic(line);
  int version = 0;
  if (!magic.keyword(kMagic)) return fail("not an xtap kernel catalog");
  if (!magic.number(&version) || !magic.done()) return fail("malformed version line");
  if (version != kFormatVersion)
    return fail("catalog format " + std::to_string(version) + ", this xtap reads format " +
                std::to_string(kFormatVersion) + " (rebuild the catalog)");
  if (!next_line(&line)) return false;
  Fields rel(line);
  if (!rel.keyword("release")) return fail("expected 'release KVER'");
  *release = rel.rest();
  if (!next_line(&line)) return false;
  Fields counts(line);
  if (!counts.keyword("counts") || !counts.number(ntypes) || !counts.number(ntps) ||
      !counts.number(nscs) || !counts.done())
    return fail("expected 'counts TYPES TRACEPOINTS SYSCALLS'");
  return true;
}

// A type id field: a number below the catalog's type count.
bool Reader::type_ref(Fields &f, int *id) {
  return f.number(id) && *id >= 0 && static_cast<size_t>(*id) < ntypes_;
}

bool Reader::read_member(KMember *m) {
  std::string_view line;
  if (!next_line(&line)) return false;
  Fields f(line);
  if (!f.keyword("m") || !f.number(&m->bit_offset) || !f.number(&m->bit_size) ||
      !type_ref(f, &m->type))
    return fail("expected 'm BIT_OFFSET BIT_SIZE TYPE [NAME]'");
  m->name = f.rest();
  return true;
}

bool Reader::read_param(KParam *p, bool named) {
  std::string_view line;
  if (!next_line(&line)) return false;
  Fields f(line);
  if (!f.keyword("p") || !type_ref(f, &p->type)) return fail("expected 'p TYPE [NAME]'");
  p->name = f.rest();
  if (!named && !p->name.empty()) return fail("function type parameters have no names");
  return true;
}

bool Reader::read_params(std::vector<KParam> *params, size_t n) {
  params->resize(n);
  for (KParam &p : *params)
    if (!read_param(&p, true)) return false;
  return true;
}

bool Reader::read_type(TypeTable *types, size_t expected_id) {
  std::string_view line, kind;
  if (!next_line(&line)) return false;
  Fields f(line);
  size_t id = 0;
  if (!f.keyword("t") || !f.number(&id)) return fail("expected a type line 't ID KIND ...'");
  type_lines_.push_back(line_no_);
  if (id != expected_id)
    return fail("type " + std::to_string(id) + " out of order (expected " +
                std::to_string(expected_id) + ")");
  if (!f.next(&kind)) return fail("type without a kind");
  KType t;
  size_t nmembers = 0;
  std::string_view word;
  auto sign = [&] {
    if (!f.next(&word) || (word != "s" && word != "u")) return false;
    t.is_signed = word == "s";
    return true;
  };
  bool ok = true;
  if (kind == "void") {
    t.kind = KTypeKind::Void;
    ok = f.done();
  } else if (kind == "int" || kind == "enum") {
    t.kind = kind == "int" ? KTypeKind::Int : KTypeKind::Enum;
    ok = f.number(&t.size) && sign();
  } else if (kind == "float") {
    t.kind = KTypeKind::Float;
    ok = f.number(&t.size);
  } else if (kind == "ptr") {
    t.kind = KTypeKind::Pointer;
    t.size = kPointerSize;
    ok = type_ref(f, &t.target);
    if (ok && f.next(&word)) ok = word == "const" && f.done();
    t.is_const = ok && word == "const";
  } else if (kind == "array") {
    t.kind = KTypeKind::Array;
    ok = type_ref(f, &t.target) && f.number(&t.count) && f.done();
  } else if (kind == "struct" || kind == "union") {
    t.kind = kind == "struct" ? KTypeKind::Struct : KTypeKind::Union;
    Fields probe = f;
    if (probe.keyword("incomplete")) {
      f = probe;
      t.complete = false;
    } else {
      ok = f.number(&t.size) && f.number(&nmembers);
    }
  } else if (kind == "typedef") {
    t.kind = KTypeKind::Typedef;
    ok = type_ref(f, &t.target);
  } else if (kind == "func") {
    t.kind = KTypeKind::Function;
    ok = type_ref(f, &t.target) && f.number(&nmembers);
    if (ok && f.next(&word)) ok = word == "..." && f.done();
    t.variadic = ok && word == "...";
  } else {
    return fail("unknown type kind '" + std::string(kind) + "'");
  }
  if (!ok)
    return fail(std::string("malformed '") + kind_keyword(t.kind) +
                "' type line (a field missing, not a number, or an unknown type id)");
  bool named = t.kind != KTypeKind::Pointer && t.kind != KTypeKind::Array &&
               t.kind != KTypeKind::Function && t.kind != KTypeKind::Void;
  if (named) t.name = f.rest();
  if ((t.kind == KTypeKind::Int || t.kind == KTypeKind::Float || t.kind == KTypeKind::Typedef) &&
      t.name.empty())
    return fail(std::string(kind_keyword(t.kind)) + " type without a name");
  if (nmembers > text_.size()) return fail("member count larger than the file");
  t.members.resize(nmembers);
  for (KMember &m : t.members) {
    if (t.kind == KTypeKind::Function) {
      KParam p;
      if (!read_param(&p, false)) return false;
      m.type = p.type;
    } else if (!read_member(&m)) {
      return false;
    }
  }
  types->add(std::move(t));
  return true;
}

bool Reader::read_tracepoint(KTracepoint *tp) {
  std::string_view line, system, name;
  size_t nargs = 0;
  if (!next_line(&line)) return false;
  Fields f(line);
  if (!f.keyword("tp") || !f.next(&system) || !f.next(&name) || !f.number(&nargs) || !f.done())
    return fail("expected 'tp SYSTEM NAME NARGS'");
  if (nargs > text_.size()) return fail("argument count larger than the file");
  tp->system = system == "-" ? "" : std::string(system);
  tp->name = name;
  return read_params(&tp->args, nargs);
}

bool Reader::read_syscall(KSyscall *sc) {
  std::string_view line, name;
  size_t nargs = 0;
  if (!next_line(&line)) return false;
  Fields f(line);
  if (!f.keyword("sc") || !f.number(&sc->nr) || !f.next(&name))
    return fail("expected 'sc NR NAME NARGS'");
  Fields unknown = f;
  std::string_view dash;
  if (unknown.next(&dash) && dash == "-" && unknown.done()) {
    sc->name = name;
    sc->prototype_known = false;  // "sc NR NAME -"
    return true;
  }
  if (!f.number(&nargs) || !f.done()) return fail("expected 'sc NR NAME NARGS'");
  if (nargs > text_.size()) return fail("argument count larger than the file");
  sc->name = name;
  return read_params(&sc->args, nargs);
}

// No cycle along the links that consumers
// follow without a visited set: pointer/array/typedef/function links
// (spelling, strip_typedefs) and by-value containment (array/typedef links
// and record members, walked for anonymous members). Valid C only closes a
// loop through a pointer inside a record.
// The links of one kind out of a type, by index (no allocation: this runs
// over every type of the catalog on every load).
class Links {
 public:
  Links(const TypeTable &types, bool declarator) : types_(types), declarator_(declarator) {}

  size_t count(int id) const {
    const KType &t = types_.at(id);
    switch (t.kind) {
      case KTypeKind::Pointer: return declarator_ ? 1 : 0;
      case KTypeKind::Array:
      case KTypeKind::Typedef: return 1;
      case KTypeKind::Function: return declarator_ ? 1 + t.members.size() : 0;
      case KTypeKind::Struct:
      case KTypeKind::Union: return declarator_ ? 0 : t.members.size();
      default: return 0;
    }
  }
  int at(int id, size_t i) const {
    const KType &t = types_.at(id);
    bool target_first = t.kind == KTypeKind::Pointer || t.kind == KTypeKind::Array ||
                        t.kind == KTypeKind::Typedef || t.kind == KTypeKind::Function;
    if (target_first) return i == 0 ? t.target : t.members[i - 1].type;
    return t.members[i].type;
  }

 private:
  const TypeTable &types_;
  bool declarator_;
};

bool Reader::check_cycles(const TypeTable &types) {
  const int n = static_cast<int>(types.size());
  // Iterative depth-first search over one kind of link; depth[] doubles as
  // the colour (-1 unvisited, -2 on the stack, >= 0 the longest path below).
  auto acyclic = [&](bool declarator, const char *what) {
    Links links(types, declarator);
    std::vector<int> depth(n, -1);
    std::vector<std::pair<int, size_t>> stack;  // (type, next link to follow)
    for (int root = 0; root < n; ++root) {
      if (depth[root] != -1) continue;
      depth[root] = -2;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        auto &[id, next] = stack.back();
        if (next == links.count(id)) {
          const int done = id;
          int d = 0;
          for (size_t i = 0; i < links.count(done); ++i)
            d = std::max(d, depth[links.at(done, i)] + 1);
          depth[done] = d;
          stack.pop_back();
          if (declarator && d > kMaxDeclaratorDepth) return fail_at(done, "type nests too deeply");
          continue;
        }
        int child = links.at(id, next++);
        if (depth[child] == -2)
          return fail_at(child, std::string("type contains itself through ") + what);
        if (depth[child] != -1) continue;
        depth[child] = -2;
        stack.push_back({child, 0});
      }
    }
    return true;
  };
  return acyclic(true, "pointer/array/typedef/function links") &&
         acyclic(false, "members, arrays and typedefs");
}

std::unique_ptr<KernelCatalog> Reader::read(std::string *error) {
  std::string release;
  size_t ntypes = 0, ntps = 0, nscs = 0;
  TypeTable types;
  std::vector<KTracepoint> tps;
  std::vector<KSyscall> scs;
  bool ok = read_header(&release, &ntypes, &ntps, &nscs);
  ntypes_ = ntypes;
  // Counts come from the file: never reserve more than it can hold.
  if (ok && (ntypes > text_.size() || ntps > text_.size() || nscs > text_.size()))
    ok = fail("counts larger than the file");
  // Every type line takes at least 8 bytes ("t 1 void").
  if (ok) types.reserve(std::min(ntypes, text_.size() / 8));
  for (size_t i = 0; ok && i < ntypes; ++i) ok = read_type(&types, i);
  tps.resize(ok ? ntps : 0);
  for (size_t i = 0; ok && i < ntps; ++i) ok = read_tracepoint(&tps[i]);
  scs.resize(ok ? nscs : 0);
  for (size_t i = 0; ok && i < nscs; ++i) ok = read_syscall(&scs[i]);
  std::string_view line;
  if (ok) ok = next_line(&line) && (line == "end" || fail("expected 'end'"));
  ok = ok && check_cycles(types);
  if (!ok) {
    *error = error_;
    return nullptr;
  }
  return std::make_unique<KernelCatalog>(std::move(release), std::move(types), std::move(tps),
                                         std::move(scs));
}

}  // namespace

std::unique_ptr<KernelCatalog> KernelCatalog::parse(std::string_view text,
                                                    const std::string &origin, std::string *error) {
  return Reader(text, origin).read(error);
}

std::string KernelCatalog::to_text(const std::vector<std::string> &notes) const {
  std::string out = std::string(kMagic) + ' ' + std::to_string(kFormatVersion) + '\n';
  out += "release " + release_ + '\n';
  for (const std::string &note : notes) {
    std::string line = note;
    std::replace(line.begin(), line.end(), '\n', ' ');
    out += "# " + line + '\n';
  }
  out += "counts " + std::to_string(types_.size()) + ' ' + std::to_string(tracepoints_.size()) +
         ' ' + std::to_string(syscalls_.size()) + '\n';
  for (size_t i = 0; i < types_.size(); ++i)
    write_type(out, static_cast<int>(i), types_.at(static_cast<int>(i)));
  for (const KTracepoint &tp : tracepoints_) {
    out += "tp " + (tp.system.empty() ? std::string("-") : tp.system) + ' ' + tp.name + ' ' +
           std::to_string(tp.args.size()) + '\n';
    write_params(out, tp.args);
  }
  for (const KSyscall &sc : syscalls_) {
    out += "sc " + std::to_string(sc.nr) + ' ' + sc.name + ' ' +
           (sc.prototype_known ? std::to_string(sc.args.size()) : "-") + '\n';
    if (!sc.prototype_known) continue;
    write_params(out, sc.args);
  }
  out += "end\n";
  return out;
}

}  // namespace xtap
