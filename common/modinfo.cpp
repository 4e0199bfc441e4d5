// .modinfo through the minimal ELF reader: no libelf, so xtap-run stays tiny.
#include "common/modinfo.h"

#include <cstdlib>
#include <cstring>

#include "common/elf_file.h"
#include "common/file_io.h"

namespace xtap {

std::string ModInfo::release() const { return vermagic.substr(0, vermagic.find(' ')); }

namespace {

// Debian and most distributions ship their own modules compressed; the
// kernel's finit_module can take them, but reading .modinfo would need the
// decompressors, which xtap-run does without.
std::string compression_of(const std::string &bytes) {
  static const struct {
    const char *magic;
    size_t len;
    const char *name;
  } kinds[] = {
      {"\xfd\x37zXZ\0", 6, "xz"}, {"\x28\xb5\x2f\xfd", 4, "zstd"}, {"\x1f\x8b", 2, "gzip"}};
  for (const auto &k : kinds)
    if (bytes.size() >= k.len && std::memcmp(bytes.data(), k.magic, k.len) == 0) return k.name;
  return "";
}

}  // namespace

std::string module_name_from_path(const std::string &path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".ko") == 0) base.resize(base.size() - 3);
  for (char &c : base)
    if (c == '-') c = '_';
  return base;
}

ModInfo parse_modinfo(std::string_view sec, const std::string &path) {
  ModInfo mi;
  while (!sec.empty()) {
    auto nul = sec.find('\0');
    std::string_view entry = sec.substr(0, nul);
    if (entry.starts_with("name=")) mi.name = entry.substr(5);
    if (entry.starts_with("vermagic=")) mi.vermagic = entry.substr(9);
    if (entry.starts_with("xtap_wildcard=")) {
      std::string v(entry.substr(14));
      auto colon = v.find(':');
      if (colon != std::string::npos && colon > 0)
        mi.wildcards.emplace_back(std::atoi(v.substr(0, colon).c_str()), v.substr(colon + 1));
    }
    if (nul == std::string_view::npos) break;
    sec.remove_prefix(nul + 1);
  }
  if (mi.name.empty()) mi.name = module_name_from_path(path);
  return mi;
}

std::optional<ModInfo> read_modinfo(const std::string &path, std::string *err) {
  bool ok = false;
  std::string bytes = read_file(path, &ok);
  if (!ok) {
    *err = "cannot open " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  return modinfo_of(std::move(bytes), path, err);
}

std::optional<ModInfo> modinfo_of(std::string bytes, const std::string &path, std::string *err) {
  if (std::string kind = compression_of(bytes); !kind.empty()) {
    *err = path + " is " + kind +
           "-compressed: decompress it first (xtap-run reads modules as plain ELF)";
    return std::nullopt;
  }
  std::string why;
  auto elf = ElfFile::parse(std::move(bytes), &why);
  if (!elf) {
    *err = path + " is not a kernel module (" + why + ")";
    return std::nullopt;
  }
  // The kernel would refuse it too, but as "invalid module format", which
  // reads as a module built for another kernel.
  if (auto bad = elf->section_outside_file()) {
    *err = path + " is not a kernel module (corrupt ELF headers: section " + std::to_string(*bad) +
           " lies outside the file)";
    return std::nullopt;
  }
  auto sec = elf->section(".modinfo");
  if (!sec) {
    *err = path + " has no .modinfo section: not a kernel module";
    return std::nullopt;
  }
  ModInfo mi = parse_modinfo(*sec, path);
  if (mi.vermagic.empty()) {
    *err = path + " has no vermagic: not a kernel module";
    return std::nullopt;
  }
  return mi;
}

}  // namespace xtap
