#include "symbols/syscall_params.h"

#include <map>
#include <vector>

#include "symbols/catalog.h"

namespace xtap {
namespace {

// The calls whose prototypes leave names out on 6.1 and 6.12 (x86-64's
// variant of each: clone without CONFIG_CLONE_BACKWARDS*).
const std::map<std::string, std::vector<std::string>> &define_names() {
  static const std::map<std::string, std::vector<std::string>> names = {
      {"socket", {"family", "type", "protocol"}},
      {"socketpair", {"family", "type", "protocol", "usockvec"}},
      {"bind", {"fd", "umyaddr", "addrlen"}},
      {"listen", {"fd", "backlog"}},
      {"accept", {"fd", "upeer_sockaddr", "upeer_addrlen"}},
      {"accept4", {"fd", "upeer_sockaddr", "upeer_addrlen", "flags"}},
      {"connect", {"fd", "uservaddr", "addrlen"}},
      {"getsockname", {"fd", "usockaddr", "usockaddr_len"}},
      {"getpeername", {"fd", "usockaddr", "usockaddr_len"}},
      {"sendto", {"fd", "buff", "len", "flags", "addr", "addr_len"}},
      {"recvfrom", {"fd", "ubuf", "size", "flags", "addr", "addr_len"}},
      {"shutdown", {"fd", "how"}},
      {"clone", {"clone_flags", "newsp", "parent_tidptr", "child_tidptr", "tls"}},
      {"io_submit", {"ctx_id", "nr", "iocbpp"}},
      {"pselect6", {"n", "inp", "outp", "exp", "tsp", "sig"}},
      {"ppoll", {"ufds", "nfds", "tsp", "sigmask", "sigsetsize"}},
      {"rt_sigaction", {"sig", "act", "oact", "sigsetsize"}},
  };
  return names;
}

}  // namespace

std::string syscall_param_name(const KSyscall &sc, size_t i) {
  if (i < sc.args.size() && !sc.args[i].name.empty()) return sc.args[i].name;
  auto it = define_names().find(sc.name);
  if (it != define_names().end() && i < it->second.size()) return it->second[i];
  return "arg" + std::to_string(i + 1);
}

}  // namespace xtap
