// NAME.mod.o as C without headers (mod_object.h).
//
// GCC emits a file's variables in the reverse of their order in the source
// and gives each section its place when the first variable in it is
// emitted; the symbol table lists local symbols in the order they were
// emitted. The C written here defines the template's symbols in the
// reverse of that order, so that GCC lays out the sections and their
// contents as it did for Kbuild's NAME.mod.c. Each variable carries its own
// alignment, which GCC then keeps as it is (it raises only the alignment
// of variables that do not state one); the CRC list states none, as in the
// kernel's own definition. Whatever this gets wrong shows when the template
// is compiled from it and compared (recipe.cpp).
#include "kbuild/mod_object.h"

#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "kbuild/rel_object.h"

namespace xtap::kbuild {
namespace {

constexpr const char *kNameToken = "{{XTAP_NAME}}";
constexpr const char *kVersionsToken = "{{XTAP_VERSIONS}}";
constexpr const char *kNameLenHeader = "/* xtap mod object: name field ";
constexpr const char *kVersionsHead = "static const struct modversion_info ____versions[]";

// The CRC entries of a NAME.mod.c (`\t{ 0x1234abcd, "symbol" },` lines) and
// the text around them.
struct SplitModC {
  std::string rest;
  std::vector<std::pair<std::string, std::string>> versions;  // crc, symbol
  bool has_versions = false;
};

bool is_symbol_name(const std::string &s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$')) return false;
  return true;
}

std::optional<SplitModC> split_mod_c(const std::string &text) {
  SplitModC out;
  std::istringstream in(text);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!inside && line == kVersionsHead) {
      inside = out.has_versions = true;
    } else if (inside && line == "};") {
      inside = false;
    } else if (inside && line.starts_with("\t{ 0x")) {
      size_t comma = line.find(", \"");
      size_t end = line.rfind("\" },");
      if (comma == std::string::npos || end == std::string::npos || end <= comma + 3)
        return std::nullopt;
      std::string crc = line.substr(3, comma - 3), sym = line.substr(comma + 3, end - comma - 3);
      if (crc.size() < 3 || crc.find_first_not_of("0123456789abcdefx") != std::string::npos ||
          !is_symbol_name(sym))
        return std::nullopt;
      out.versions.emplace_back(crc, sym);
      continue;
    }
    out.rest += line + "\n";
  }
  if (inside) return std::nullopt;
  return out;
}

std::string c_bytes(std::string_view bytes) {
  if (bytes.find_first_not_of('\0') == std::string_view::npos) return "{ 0 }";
  std::string s = "{";
  char buf[8];
  for (size_t i = 0; i < bytes.size(); i++) {
    snprintf(buf, sizeof buf, "%s0x%02x",
             i == 0   ? "\n\t"
             : i % 16 ? ","
                      : ",\n\t",
             static_cast<unsigned char>(bytes[i]));
    s += buf;
  }
  return s + "\n}";
}

uint64_t largest_power_of_two_dividing(uint64_t v, uint64_t cap) {
  if (v == 0) return cap ? cap : 1;
  uint64_t p = v & -v;
  return std::min(p, cap ? cap : p);
}

struct Writer {
  const RelObject &obj;
  const std::string &template_name;
  uint64_t name_len;  // MODULE_NAME_LEN
  std::ostringstream defs;
  std::set<std::string> externs;
  std::string why;
  int types = 0;

  Writer(const RelObject &o, const std::string &name, uint64_t len)
      : obj(o), template_name(name), name_len(len) {}

  std::string attributes(const RelObject::Section &sec, uint64_t align, bool user_align) {
    std::string a = "__attribute__((__used__, __section__(\"" + sec.name + "\")";
    if (user_align) a += ", __aligned__(" + std::to_string(align) + ")";
    return a + "))";
  }

  // One symbol's bytes [value, value + size) of `sec`.
  bool define(const RelObject::Symbol &sym, const RelObject::Section &sec) {
    if (sym.value + sym.size > sec.bytes.size()) {
      why = "symbol " + sym.name + " lies outside " + sec.name;
      return false;
    }
    std::string_view bytes(sec.bytes.data() + sym.value, sym.size);
    const bool writable = sec.flags & SHF_WRITE;
    const std::string storage =
        std::string(sym.bind == STB_LOCAL ? "static " : "") + (writable ? "" : "const ");
    const uint64_t align = largest_power_of_two_dividing(sym.value, sec.align);

    if (sym.name == "____versions" && sec.relocs.empty()) {
      defs << "static const struct modversion_info ____versions[] " << attributes(sec, 0, false)
           << " = {\n"
           << kVersionsToken << "};\n\n";
      return true;
    }
    const std::string modinfo_name = "name=" + template_name + std::string(1, '\0');
    if (sec.name == ".modinfo" && bytes == modinfo_name) {
      defs << storage << "char " << sym.name << "[] " << attributes(sec, 1, true)
           << " = \"name=" << kNameToken << "\";\n\n";
      return true;
    }
    // Relocations within the symbol become pointers; the module name, when
    // the symbol holds it (__this_module), a char array.
    std::vector<const RelObject::Reloc *> relocs;
    for (const auto &r : sec.relocs)
      if (r.offset >= sym.value && r.offset < sym.value + sym.size) {
        if (r.type != R_X86_64_64 || r.offset + 8 > sym.value + sym.size || r.offset % 8) {
          why = "relocation of type " + std::to_string(r.type) + " in " + sym.name;
          return false;
        }
        relocs.push_back(&r);
      }
    std::sort(relocs.begin(), relocs.end(), [](auto *a, auto *b) { return a->offset < b->offset; });
    uint64_t name_at = UINT64_MAX;
    if (!relocs.empty()) {
      size_t p = bytes.find(template_name + std::string(1, '\0'));
      if (p == std::string_view::npos || p + name_len > bytes.size()) {
        why = sym.name + " has relocations but not the module name";
        return false;
      }
      name_at = p;
      for (uint64_t i = p + template_name.size(); i < p + name_len; i++)
        if (bytes[i]) {
          why = "the name field of " + sym.name + " is not " + std::to_string(name_len) + " bytes";
          return false;
        }
    }
    if (relocs.empty()) {
      defs << storage << "unsigned char " << sym.name << "[" << sym.size << "] "
           << attributes(sec, align, true) << " = " << c_bytes(bytes) << ";\n\n";
      return true;
    }
    // struct { bytes; name; bytes; pointer; ... } with no padding: every
    // field but the pointers is a byte array, and the pointers are at
    // multiples of 8.
    std::string type = "xtap_mod_object_" + std::to_string(types++);
    std::ostringstream fields, init;
    uint64_t at = 0;
    int n = 0;
    auto bytes_until = [&](uint64_t end) {
      if (end <= at) return;
      fields << "\tunsigned char b" << n << "[" << end - at << "];\n";
      init << "\t" << c_bytes(bytes.substr(at, end - at)) << ",\n";
      n++;
      at = end;
    };
    size_t ri = 0;
    while (at < sym.size) {
      uint64_t next_reloc = ri < relocs.size() ? relocs[ri]->offset - sym.value : sym.size;
      if (name_at != UINT64_MAX && name_at >= at && name_at < next_reloc) {
        bytes_until(name_at);
        fields << "\tchar name[" << name_len << "];\n";
        init << "\t\"" << kNameToken << "\",\n";
        at = name_at + name_len;
        name_at = UINT64_MAX;
        continue;
      }
      bytes_until(next_reloc);
      if (ri < relocs.size()) {
        const auto &r = *relocs[ri++];
        externs.insert(r.symbol);
        fields << "\tvoid *p" << n++ << ";\n";
        init << "\t" << r.symbol;
        if (r.addend) init << " + " << r.addend;
        init << ",\n";
        at += 8;
      }
    }
    defs << "struct " << type << " {\n"
         << fields.str() << "};\n"
         << storage << "struct " << type << " " << sym.name << " "
         << attributes(sec, sec.align, true) << " = {\n"
         << init.str() << "};\n\n";
    return true;
  }
};

}  // namespace

std::optional<std::string> describe_mod_object(const std::string &template_obj,
                                               const std::string &template_modc,
                                               const std::string &template_name, std::string *why) {
  auto obj = read_rel_object(template_obj, why);
  if (!obj) return std::nullopt;
  auto modc = split_mod_c(template_modc);
  if (!modc || !modc->has_versions || modc->versions.empty()) {
    *why = "the template's .mod.c has no CRC list xtap can read";
    return std::nullopt;
  }
  const auto *versions = obj->section("__versions");
  if (!versions || versions->size % modc->versions.size()) {
    *why = "the template's __versions section does not match its .mod.c";
    return std::nullopt;
  }
  const uint64_t entry = versions->size / modc->versions.size();
  if (entry <= 8) {
    *why = "__versions entries of " + std::to_string(entry) + " bytes";
    return std::nullopt;
  }
  Writer w(*obj, template_name, entry - 8);

  // Every allocated section with contents must be made of the symbols in it.
  for (const auto &sec : obj->sections) {
    if (sec.size == 0) continue;
    uint64_t covered = 0;
    for (const auto &s : obj->symbols)
      if (s.section == sec.name && s.type == STT_OBJECT) covered += s.size;
    if (covered > sec.size || sec.size - covered >= std::max<uint64_t>(sec.align, 1) * 8 ||
        sec.type == SHT_NOBITS) {
      *why = "section " + sec.name + " is not made of data symbols alone";
      return std::nullopt;
    }
  }
  // Emission order: the local symbols in symbol-table order, each global
  // just before the first local in a later section than its own.
  auto index_of = [&](const std::string &name) {
    for (size_t i = 0; i < obj->sections.size(); i++)
      if (obj->sections[i].name == name) return static_cast<int>(i);
    return -1;
  };
  std::vector<const RelObject::Symbol *> emitted, globals;
  for (const auto &s : obj->symbols) {
    if (s.type != STT_OBJECT || s.section.empty()) continue;
    if (index_of(s.section) < 0) {
      *why = "symbol " + s.name + " is in a section the loader does not see";
      return std::nullopt;
    }
    (s.bind == STB_LOCAL ? emitted : globals).push_back(&s);
  }
  for (const auto *g : globals) {
    auto at = std::find_if(emitted.begin(), emitted.end(), [&](const RelObject::Symbol *s) {
      return s->bind == STB_LOCAL && index_of(s->section) > index_of(g->section);
    });
    emitted.insert(at, g);
  }
  for (auto it = emitted.rbegin(); it != emitted.rend(); ++it)
    if (!w.define(**it, *obj->section((*it)->section))) {
      *why = w.why;
      return std::nullopt;
    }

  std::ostringstream out;
  out << kNameLenHeader << w.name_len << " */\n"
      << "/* NAME.mod.o of an xtap script module, written from the template's\n"
      << "   (kbuild/mod_object.cpp): no kernel headers. */\n\n"
      << "struct modversion_info {\n\tunsigned long crc;\n\tchar name[" << w.name_len
      << "];\n};\n\n";
  for (const auto &e : w.externs) out << "extern char " << e << "[];\n";
  if (!w.externs.empty()) out << "\n";
  out << w.defs.str();
  return out.str();
}

std::optional<std::string> mod_object_source(const std::string &skeleton,
                                             const std::string &template_modc,
                                             const std::string &module_modc,
                                             const std::string &name) {
  if (!skeleton.starts_with(kNameLenHeader)) return std::nullopt;
  const uint64_t name_len =
      strtoull(skeleton.c_str() + std::string(kNameLenHeader).size(), nullptr, 10);
  auto mine = split_mod_c(module_modc), tmpl = split_mod_c(template_modc);
  if (!mine || !tmpl || !mine->has_versions || mine->versions.empty() || mine->rest != tmpl->rest)
    return std::nullopt;
  if (name.size() >= name_len || !is_symbol_name(name)) return std::nullopt;
  std::string versions;
  for (const auto &[crc, sym] : mine->versions) {
    if (sym.size() >= name_len) return std::nullopt;
    versions += "\t{ " + crc + ", \"" + sym + "\" },\n";
  }
  std::string out = skeleton;
  for (size_t p; (p = out.find(kNameToken)) != std::string::npos;)
    out.replace(p, std::string(kNameToken).size(), name);
  size_t p = out.find(kVersionsToken);
  if (p == std::string::npos) return std::nullopt;
  out.replace(p, std::string(kVersionsToken).size(), versions);
  return out;
}

}  // namespace xtap::kbuild
