#include "codegen/data_symbols.h"

#include <map>
#include <vector>

#include "common/c_writer.h"

namespace xtap {

std::string relocate_data_symbols(const std::string &c) {
  static const std::string call = "xtap_data_symbol(\"";
  std::map<std::string, size_t> slot;
  std::vector<std::string> names;
  std::string body;
  size_t pos = 0;
  for (size_t at; (at = c.find(call, pos)) != std::string::npos;) {
    size_t name_end = c.find("\")", at + call.size());
    if (name_end == std::string::npos) break;
    std::string name = c.substr(at + call.size(), name_end - at - call.size());
    auto [it, fresh] = slot.emplace(name, names.size());
    if (fresh) names.push_back(name);
    body += c.substr(pos, at - pos) + "xtap_data_addrs[" + std::to_string(it->second) + "]";
    pos = name_end + 2;
  }
  body += c.substr(pos);
  std::string table, init;
  if (!names.empty()) {
    table = "static unsigned long xtap_data_addrs[" + std::to_string(names.size()) + "];\n";
    table += "static const char *const xtap_data_names[] = {";
    for (const auto &n : names) table += " " + c_string_literal(n) + ",";
    table += " };";
    init = "int err = xtap_resolve_data_symbols(xtap_data_names, xtap_data_addrs, " +
           std::to_string(names.size()) + ");\n\tif (err)\n\t\treturn err;";
  }
  for (auto [marker, text] :
       {std::pair{kDataSymbolsTableMarker, table}, {kDataSymbolsInitMarker, init}}) {
    size_t m = body.find(marker);
    if (m != std::string::npos) body.replace(m, std::string(marker).size(), text);
  }
  return body;
}

}  // namespace xtap
