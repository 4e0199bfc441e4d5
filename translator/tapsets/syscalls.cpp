#include "tapsets/syscalls.h"

#include <fnmatch.h>

#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "symbols/catalog.h"
#include "symbols/syscall_params.h"

namespace xtap {
namespace {

// Arguments stap decodes into words (flags, modes, fds, signals): the
// argument's PARAM_str variable is this expression, in which the generated
// variables of the same call may be named. The functions are hand-written
// in tapsets/syscall_decode.stp. `calls` lists the system calls it applies
// to, space separated, or is empty for every call with such a parameter.
// An `optional` one is left out of argstr with its comma when it is ""
// (open's mode without O_CREAT, as strace prints it); it must come last.
struct ArgDecoder {
  const char *calls;
  const char *param;
  const char *expr;
  bool optional = false;
};

const ArgDecoder kDecoders[] = {
    {"", "dfd", "_dfd_str(dfd)"},
    {"", "olddfd", "_dfd_str(olddfd)"},
    {"", "newdfd", "_dfd_str(newdfd)"},
    {"open openat creat", "flags", "_sys_open_flag_str(flags)"},
    {"open openat", "mode", "_open_mode_str(flags, mode)", true},
    {"creat mkdir mkdirat chmod fchmod fchmodat mknod mknodat", "mode", "sprintf(\"%#o\", mode)"},
    {"access faccessat faccessat2", "mode", "_access_mode_str(mode)"},
    {"mprotect pkey_mprotect", "prot", "_mprotect_prot_str(prot)"},
    {"lseek", "whence", "_seek_whence_str(whence)"},
    {"kill tkill tgkill rt_sigqueueinfo rt_tgsigqueueinfo pidfd_send_signal", "sig",
     "_signal_name(sig)"},
    {"futex", "op", "_futex_op_str(op)"},
    {"socket socketpair", "family", "_sock_family_str(family)"},
    {"socket socketpair", "type", "_sock_type_str(type)"},
    {"write pwrite64", "buf", "user_string_n_quoted(buf_uaddr, count)"},
    {"execve execveat", "argv", "_argv_str(argv_uaddr)"},
    {"execve execveat", "envp", "_envp_str(envp_uaddr)"},
    {"sendto", "buff", "user_string_n_quoted(buff_uaddr, len)"},
};

// Where stap's tapset names a variable otherwise than the kernel's
// prototype does (futex_uaddr for uaddr_uaddr, s for a socket's fd), its
// name is set too, from ours.
struct StapName {
  const char *calls;
  const char *ours;
  const char *stap;
};

const StapName kStapNames[] = {
    {"futex", "uaddr_uaddr", "futex_uaddr"},
    {"ioctl", "cmd", "request"},
    {"ioctl", "arg", "argp"},
    {"exit exit_group", "error_code", "status"},
    {"sendto sendmsg recvfrom recvmsg shutdown", "fd", "s"},
    {"connect accept accept4 bind listen getsockname getpeername", "fd", "sockfd"},
    {"sendto", "buff_uaddr", "buf_uaddr"},
    {"recvfrom", "ubuf_uaddr", "buf_uaddr"},
    {"recvfrom", "size", "len"},
    {"sendto recvfrom", "addr_uaddr", "to_uaddr"},
    {"sendto", "addr_len", "tolen"},
    {"accept accept4", "upeer_sockaddr_uaddr", "addr_uaddr"},
    {"accept accept4", "upeer_addrlen_uaddr", "addrlen_uaddr"},
    {"connect", "uservaddr_uaddr", "serv_addr_uaddr"},
    {"bind", "umyaddr_uaddr", "my_addr_uaddr"},
    {"nanosleep clock_nanosleep", "rqtp_uaddr", "req_uaddr"},
    {"nanosleep clock_nanosleep", "rmtp_uaddr", "rem_uaddr"},
    {"clock_nanosleep", "which_clock", "clk_id"},
    {"wait4", "upid", "pid"},
    {"wait4", "stat_addr_uaddr", "status_uaddr"},
    {"wait4", "ru_uaddr", "rusage_uaddr"},
    {"readv writev", "vec_uaddr", "vector_uaddr"},
    {"readv writev", "vlen", "count"},
    {"lseek", "fd", "fildes"},
    {"fstat newfstat", "fd", "filedes"},
    {"rename renameat renameat2", "oldname", "oldpath"},
    {"rename renameat renameat2", "oldname_unquoted", "oldpath_unquoted"},
    {"rename renameat renameat2", "newname", "newpath"},
    {"rename renameat renameat2", "newname_unquoted", "newpath_unquoted"},
    {"munmap", "addr", "start"},
    {"munmap", "len", "length"},
    {"kill tkill tgkill", "sig_str", "sig_name"},
    {"execve execveat", "argv_str", "args"},
    {"execve execveat", "envp_str", "env_str"},
    {"", "dfd", "dirfd"},
    {"", "dfd_str", "dirfd_str"},
};

// How stap formats the return value: 2 (hex) for calls that return an
// address, 1 (decimal) for the rest.
const std::set<std::string> kAddressReturns = {"brk", "mmap", "mremap", "shmat"};

// Integer arguments that hold user addresses: printed in hex.
const std::set<std::string> kAddressInts = {"addr",     "start",    "brk",
                                            "new_addr", "old_addr", "uaddr"};

// Names the aliases set themselves, and the language's keywords: a
// parameter of such a name gets a "_str" (or "_") suffix.
const std::set<std::string> kReserved = {"name", "argstr", "retval", "retstr", "syscall_nr"};
const std::set<std::string> kKeywords = {"probe",  "global",  "function", "if",       "else",
                                         "for",    "foreach", "in",       "limit",    "return",
                                         "delete", "while",   "break",    "continue", "next",
                                         "string", "long",    "try",      "catch",    "private"};

bool listed(const char *calls, const std::string &name) {
  if (!*calls) return true;
  std::istringstream ss(calls);
  std::string w;
  while (ss >> w)
    if (w == name) return true;
  return false;
}

const ArgDecoder *decoder_for(const std::string &call, const std::string &param) {
  for (const auto &d : kDecoders)
    if (param == d.param && listed(d.calls, call)) return &d;
  return nullptr;
}

enum class ArgKind { Signed, Unsigned, Address, String, Pointer };

ArgKind classify(const TypeTable &types, const KParam &p) {
  const KType &t = types.at(types.strip_typedefs(p.type));
  if (t.kind == KTypeKind::Pointer || t.kind == KTypeKind::Array) {
    const KType &elem = types.at(types.strip_typedefs(t.target));
    bool text = elem.kind == KTypeKind::Int && elem.size == 1 && t.is_const;
    // write(2)'s buf is const char * too, but it holds bytes, not a string.
    return text && p.name != "buf" && p.name != "buff" ? ArgKind::String : ArgKind::Pointer;
  }
  if (kAddressInts.count(p.name) && !t.is_signed) return ArgKind::Address;
  return t.is_signed ? ArgKind::Signed : ArgKind::Unsigned;
}

// The script variable of a parameter.
std::string var_name(const KParam &p) {
  if (kReserved.count(p.name)) return p.name + "_str";
  if (kKeywords.count(p.name)) return p.name + "_";
  return p.name;
}

// The words of an integer argument that no decoder knows: stap's PARAM_str
// of flag-like arguments, here the number in hex (octal for modes).
std::string generic_words(const std::string &param) {
  if (param == "mode") return "sprintf(\"%#o\", mode)";
  bool flag_like = param == "flags" || param.ends_with("_flags") || param == "prot" ||
                   param == "options" || param == "how" || param == "which" || param == "cmd" ||
                   param == "op" || param == "whence";
  return flag_like ? "sprintf(\"%#x\", " + param + ")" : "";
}

// One entry alias as it is written: the variables it sets, in order, and
// argstr's format and values.
class EntryAlias {
 public:
  void set(const std::string &var, const std::string &expr) {
    if (!defined_.insert(var).second) return;
    body_ += "\t" + var + " = " + expr + "\n";
  }
  bool has(const std::string &var) const { return defined_.count(var) != 0; }
  void show(const std::string &conv, const std::string &value) {
    fmt_ += (fmt_.empty() ? "" : ", ") + conv;
    args_ += ", " + value;
  }
  // Shown with its comma only when not "" (open's mode without O_CREAT).
  void show_optional(const std::string &var) {
    optional_ += " . (" + var + " == \"\" ? \"\" : \", \" . " + var + ")";
  }
  std::string argstr() const {
    return (fmt_.empty() ? std::string("\"\"") : "sprintf(\"" + fmt_ + "\"" + args_ + ")") +
           optional_;
  }
  const std::string &body() const { return body_; }

 private:
  std::set<std::string> defined_;
  std::string body_, fmt_, args_, optional_;
};

void entry_alias(std::ostream &os, const KernelCatalog &cat, const KSyscall &sc) {
  EntryAlias a;
  a.set("name", "\"" + sc.name + "\"");
  std::vector<std::pair<std::string, std::string>>
      words;  // after every argument: decoders may read later ones
  for (size_t i = 0; i < sc.args.size() && i < 6; ++i) {
    const KParam p{syscall_param_name(sc, i), sc.args[i].type};
    std::string v = var_name(p);
    std::string target = "$" + p.name;
    const ArgDecoder *d = decoder_for(sc.name, p.name);
    ArgKind kind = classify(cat.types(), p);
    switch (kind) {
      case ArgKind::String:
        a.set(v, "user_string_quoted(" + target + ")");
        a.set(v + "_unquoted", "user_string_nofault(" + target + ")");
        a.set(v + "_uaddr", target);
        a.show("%s", v);
        continue;
      case ArgKind::Pointer:
        a.set(v + "_uaddr", target);
        if (!d) a.show("%p", v + "_uaddr");
        break;
      case ArgKind::Address:
        a.set(v, target);
        a.show("%p", v);
        continue;
      case ArgKind::Signed:
      case ArgKind::Unsigned:
        a.set(v, target);
        if (!d) a.show(kind == ArgKind::Signed ? "%d" : "%u", v);
        break;
    }
    std::string str = p.name + "_str";
    if (d) {
      words.emplace_back(str, d->expr);
      if (d->optional) a.show_optional(str);
      else a.show("%s", str);
    } else if (kind != ArgKind::Pointer && !generic_words(p.name).empty()) {
      words.emplace_back(str, generic_words(p.name));
    }
  }
  for (const auto &[var, expr] : words) a.set(var, expr);
  // stap names the one path argument pathname, path or filename, by call.
  for (const char *path : {"filename", "pathname", "path"})
    if (a.has(path))
      for (const char *other : {"filename", "pathname", "path"})
        if (!a.has(other)) {
          a.set(other, path);
          a.set(std::string(other) + "_unquoted", std::string(path) + "_unquoted");
        }
  for (const auto &r : kStapNames)
    if (listed(r.calls, sc.name) && a.has(r.ours)) a.set(r.stap, r.ours);
  os << "probe syscall." << sc.name << " = kernel.trace(\"syscalls:sys_enter_" << sc.name
     << "\") {\n"
     << a.body() << "\targstr = " << a.argstr() << "\n}\n";
}

void return_alias(std::ostream &os, const KSyscall &sc) {
  os << "probe syscall." << sc.name << ".return = kernel.trace(\"syscalls:sys_exit_" << sc.name
     << "\") {\n"
     << "\tname = \"" << sc.name << "\"\n"
     << "\tretval = $ret\n"
     << "\tretstr = return_str(" << (kAddressReturns.count(sc.name) ? 2 : 1) << ", $ret)\n"
     << "}\n";
}

// syscall_name(nr): a table of the target's names, in C.
void name_function(std::ostream &os, const KernelCatalog &cat) {
  int max = -1;
  for (const auto &sc : cat.syscalls()) max = std::max(max, sc.nr);
  os << "// The name of native system call nr of this kernel, or \"sys_NR\".\n"
     << "function syscall_name:string(nr:long) %{\n"
     << "\tstatic const char *const names[" << max + 1 << "] = {\n";
  for (const auto &sc : cat.syscalls())
    if (sc.nr >= 0) os << "\t\t[" << sc.nr << "] = \"" << sc.name << "\",\n";
  os << "\t};\n"
     << "\ts64 nr = STAP_ARG_nr;\n\n"
     << "\tif (nr >= 0 && nr < ARRAY_SIZE(names) && names[nr])\n"
     << "\t\tstrscpy(STAP_RETVALUE, names[nr], MAXSTRINGLEN);\n"
     << "\telse\n"
     << "\t\tsnprintf(STAP_RETVALUE, MAXSTRINGLEN, \"sys_%lld\", (long long)nr);\n"
     << "%}\n\n";
}

// stap's syscall.send and syscall.recv, on kernels whose table has no send
// or recv of their own (x86-64): sendto without a destination, recvfrom
// without a source, as the C library makes them. Their returns test the
// address saved at entry, so sendto's own probes do not see them twice.
void socket_shorthand(std::ostream &os, const KernelCatalog &cat, const std::string &name,
                      const std::string &full) {
  bool has_full = false;
  for (const auto &sc : cat.syscalls()) {
    if (sc.nr < 0) continue;
    if (sc.name == name) return;
    if (sc.name == full) has_full = sc.args.size() >= 5 && syscall_param_name(sc, 4) == "addr";
  }
  if (!has_full) return;
  os << "probe syscall." << name << " = syscall." << full << " {\n"
     << "\tif ($addr != 0) next\n"
     << "\tname = \"" << name << "\"\n"
     << "\targstr = sprintf(\"%d, %p, %u, %s\", s, buf_uaddr, len, flags_str)\n"
     << "}\n"
     << "probe syscall." << name << ".return = syscall." << full << ".return {\n"
     << "\tif (@entry($addr) != 0) next\n"
     << "\tname = \"" << name << "\"\n"
     << "}\n"
     << "probe nd_syscall." << name << " = syscall." << name << " { }\n"
     << "probe nd_syscall." << name << ".return = syscall." << name << ".return { }\n\n";
}

}  // namespace

bool names_syscall_tapset(const std::string &first) {
  for (const char *name : {"syscall", "nd_syscall", "syscall_any", "nd_syscall_any"})
    if (fnmatch(first.c_str(), name, 0) == 0) return true;
  return false;
}

std::string generate_syscall_tapset(const KernelCatalog &cat) {
  std::ostringstream os;
  os << "// Generated by xtap from the catalog of " << cat.release()
     << " (translator/tapsets/syscalls.cpp).\n\n";
  name_function(os, cat);
  os << "probe syscall_any = kernel.trace(\"raw_syscalls:sys_enter\") {\n"
     << "\tsyscall_nr = $id\n"
     << "\tname = syscall_name($id)\n"
     << "}\n"
     << "probe syscall_any.return = kernel.trace(\"raw_syscalls:sys_exit\") {\n"
     << "\tsyscall_nr = _syscall_nr_at_exit($regs)\n"
     << "\tname = syscall_name(syscall_nr)\n"
     << "\tretval = $ret\n"
     << "\tretstr = return_str(1, $ret)\n"
     << "}\n"
     << "probe nd_syscall_any = syscall_any { }\n"
     << "probe nd_syscall_any.return = syscall_any.return { }\n\n";
  for (const auto &sc : cat.syscalls()) {
    if (sc.nr < 0) continue;
    entry_alias(os, cat, sc);
    return_alias(os, sc);
    os << "probe nd_syscall." << sc.name << " = syscall." << sc.name << " { }\n"
       << "probe nd_syscall." << sc.name << ".return = syscall." << sc.name << ".return { }\n\n";
  }
  socket_shorthand(os, cat, "send", "sendto");
  socket_shorthand(os, cat, "recv", "recvfrom");
  return os.str();
}

}  // namespace xtap
