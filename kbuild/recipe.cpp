// Recording Kbuild's commands for a template module, once per cached
// runtime: the template has the layout of every script module (its own
// xtap_script.c plus copies of the runtime objects), is built through the
// kernel's make with V=1, and its .cmd files (and, for module BTF, the
// verbose log) give the exact compile, link, modpost and BTF commands.
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "common/file_io.h"
#include "common/process.h"
#include "kbuild/cache_lock.h"
#include "kbuild/direct_build.h"
#include "kbuild/mod_object.h"
#include "kbuild/module_layout.h"
#include "kbuild/rel_object.h"
#include "kbuild/script_pch.h"

extern char **environ;

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

constexpr const char *kFormat = "xtap-kbuild-recipe 3";
constexpr const char *kTemplateName = "xtaprecipemod";

// Calls into the runtime are what every script module makes; the template
// needs none of them to have the same objects, flags and link.
const char *kTemplateSource = R"(// SPDX-License-Identifier: GPL-2.0
/* The template module whose Kbuild commands xtap records (kbuild/recipe.cpp). */
#include <linux/string.h>
#include <linux/version.h>
#include <xtap/runtime.h>

static int __init xtap_recipe_init(void)
{
	return 0;
}

static void __exit xtap_recipe_exit(void)
{
}

module_init(xtap_recipe_init);
module_exit(xtap_recipe_exit);
)";

// Kbuild's make exports its variables (SRCARCH, srctree, ...) to every
// command, and some tools read them (6.12's objtool needs SRCARCH): the
// template dumps that environment while it builds.
const char *kEnvDumpRule =
    "$(obj)/xtap_script.o: $(obj)/xtap_kbuild.env\n"
    "$(obj)/xtap_kbuild.env:\n"
    "\t@env -0 > $@\n";

// The command Kbuild saved for `target` in `cmd_file` (`cmd_T := ...`, or
// `savedcmd_T := ...` since 6.3), with make's escapes ($$, $(pound)) undone.
bool saved_command(const fs::path &cmd_file, const std::string &target, std::string *cmd,
                   std::string *why) {
  bool ok = false;
  std::string text = read_file(cmd_file.string(), &ok);
  if (!ok) {
    *why = "Kbuild left no " + cmd_file.filename().string();
    return false;
  }
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    for (const char *prefix : {"cmd_", "savedcmd_"}) {
      std::string head = prefix + target + " := ";
      if (!line.starts_with(head)) continue;
      std::string c = replace_all(line.substr(head.size()), "$(pound)", "#");
      c = replace_all(c, "$$", "$");
      if (c.find("$(") != std::string::npos) {
        *why = "the command in " + cmd_file.filename().string() + " has a make expression";
        return false;
      }
      *cmd = c;
      return true;
    }
  }
  *why = "no command for " + target + " in " + cmd_file.filename().string();
  return false;
}

// The module BTF command from the V=1 log: `if [ ! -f vmlinux ]; then ...
// else pahole ... --btf_base vmlinux M.ko; resolve_btfids ... M.ko; fi;`,
// over several lines (its printf has a newline).
bool btf_command(const std::string &log, const std::string &ko, std::string *cmd) {
  std::istringstream in(log);
  std::string line, acc;
  bool inside = false;
  while (std::getline(in, line)) {
    size_t s = line.find_first_not_of(' ');
    if (!inside && s != std::string::npos && line.compare(s, 20, "if [ ! -f vmlinux ];") == 0) {
      inside = true;
      acc = line.substr(s);
    } else if (inside) {
      acc += "\n" + line;
    }
    if (inside && line.ends_with("fi;")) {
      if (acc.find(ko) == std::string::npos || acc.find("--btf_base") == std::string::npos)
        return false;
      *cmd = acc;
      return true;
    }
  }
  return false;
}

// The variables Kbuild's make adds to or changes in xtap's environment,
// without make's own (MAKEFLAGS carries the jobserver).
std::vector<std::pair<std::string, std::string>> kbuild_environment(const std::string &dump) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;
  while (pos < dump.size()) {
    size_t end = dump.find('\0', pos);
    if (end == std::string::npos) end = dump.size();
    std::string entry = dump.substr(pos, end - pos);
    pos = end + 1;
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (name.starts_with("MAKE") || name == "MFLAGS" || name == "GNUMAKEFLAGS" || name == "_" ||
        name == "PWD" || name == "OLDPWD" || name == "SHLVL" ||
        name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
            std::string::npos)
      continue;
    const char *mine = getenv(name.c_str());
    if (mine && value == mine) continue;
    if (value.find('\n') != std::string::npos) continue;
    out.emplace_back(name, value);
  }
  return out;
}

bool kernel_has(const Target &t, const std::string &option) {
  std::istringstream in(read_file(t.build_dir + "/include/config/auto.conf"));
  for (std::string line; std::getline(in, line);)
    if (line == option + "=y") return true;
  return false;
}

std::string serialize(const Recipe &r) {
  std::ostringstream o;
  auto item = [&](const std::string &kind, const std::string &name, const std::string &body) {
    o << kind << " " << name << " " << body.size() << "\n" << body << "\n";
  };
  o << kFormat << "\n";
  for (auto &[k, v] : r.env) item("env", k, v);
  for (auto &[k, v] : r.steps) item("step", k, v);
  item("file", "modules.order", r.modules_order);
  item("file", "mod_skeleton", r.mod_skeleton);
  item("file", "template_modc", r.template_modc);
  item("file", "no_fast_mod", r.no_fast_mod);
  item("file", "no_pch", r.no_pch);
  return o.str();
}

bool parse(const std::string &text, Recipe *r) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kFormat) return false;
  std::string kind, name;
  size_t len;
  while (in >> kind >> name >> len) {
    in.get();
    std::string body(len, '\0');
    if (!in.read(body.data(), len)) return false;
    in.get();
    if (kind == "env") r->env.emplace_back(name, body);
    else if (kind == "step") r->steps.emplace_back(name, body);
    else if (kind == "file" && name == "modules.order") r->modules_order = body;
    else if (kind == "file" && name == "mod_skeleton") r->mod_skeleton = body;
    else if (kind == "file" && name == "template_modc") r->template_modc = body;
    else if (kind == "file" && name == "no_fast_mod") r->no_fast_mod = body;
    else if (kind == "file" && name == "no_pch") r->no_pch = body;
    else return false;
  }
  return !r->steps.empty();
}

// Kbuild's compile of DIR/NAME.mod.c made to compile xtap's headerless
// DIR/headerless/NAME.mod.c (the same file name: it is in the object's
// symbol table) into `object`, without DWARF (its types stand in for the
// kernel's, and module BTF is made from DWARF); "" when the command does
// not end in the source.
std::string fast_mod_command(const std::string &compile_mod, const std::string &dir,
                             const std::string &name, const std::string &object) {
  const std::string src = " " + dir + "/" + name + ".mod.c",
                    out = " -o " + dir + "/" + name + ".mod.o";
  std::string cmd = compile_mod;
  while (!cmd.empty() && isspace(static_cast<unsigned char>(cmd.back()))) cmd.pop_back();
  size_t o = cmd.find(out);
  if (!cmd.ends_with(src) || o == std::string::npos) return "";
  cmd.replace(o, out.size(), " -o " + object);
  cmd.resize(cmd.size() - src.size());
  return cmd + " -g0 " + dir + "/headerless/" + name + ".mod.c";
}

// Describes the template's NAME.mod.o as C (mod_object.h), compiles that
// for the template and checks it gives Kbuild's object. Sets the recipe's
// fast_mod fields, or says in no_fast_mod why not.
void record_fast_mod(const Target &t, const fs::path &tdir, const std::string &name, Recipe *r) {
  const std::string d = tdir.string(), kbuild_obj = d + "/" + name + ".mod.o";
  std::string compile_mod;
  for (const auto &[step, cmd] : r->steps)
    if (step == "compile_mod") compile_mod = cmd;
  const std::string modc = read_file(d + "/" + name + ".mod.c");
  std::string why;
  auto skeleton = describe_mod_object(kbuild_obj, modc, name, &why);
  auto source = skeleton ? mod_object_source(*skeleton, modc, modc, name) : std::nullopt;
  std::string cmd = fast_mod_command(compile_mod, d, name, d + "/xtap_check.mod.o");
  if (!skeleton) {
    r->no_fast_mod = why;
    return;
  }
  if (!source || cmd.empty()) {
    r->no_fast_mod = !source ? "the template's own .mod.c does not fit its description"
                             : "Kbuild's compile of the .mod.c does not end in its source";
    return;
  }
  std::error_code ec;
  fs::create_directories(tdir / "headerless", ec);
  if (!write_file(d + "/headerless/" + name + ".mod.c", *source) ||
      run_recorded(t, r->env, cmd, d + "/xtap_check.log") != 0) {
    r->no_fast_mod =
        "its description did not compile: " + read_file(d + "/xtap_check.log").substr(0, 400);
    return;
  }
  auto mine = read_rel_object(d + "/xtap_check.mod.o", &why);
  auto kbuilds = read_rel_object(kbuild_obj, &why);
  std::string diff = mine && kbuilds ? rel_object_difference(*kbuilds, *mine) : why;
  if (!diff.empty()) {
    r->no_fast_mod = "its description compiles to another object: " + diff;
    return;
  }
  r->mod_skeleton = *skeleton;
  r->template_modc = modc;
  r->steps.emplace_back("fast_mod", fast_mod_command(compile_mod, d, name, kbuild_obj));
}

// Builds the template in `tdir` through Kbuild and reads its commands.
bool record(const Target &t, const Env &env, const std::string &rt, const fs::path &tdir, Recipe *r,
            std::string *why) {
  std::vector<std::string> objs = runtime_objects(rt);
  std::error_code ec;
  fs::remove_all(tdir, ec);
  fs::create_directories(tdir, ec);
  if (!write_file((tdir / "xtap_script.c").string(), kTemplateSource) ||
      !write_file((tdir / "Kbuild").string(),
                  module_kbuild_file(kTemplateName, rt, objs) + kEnvDumpRule)) {
    *why = "cannot write the template module in " + tdir.string();
    return false;
  }
  std::string out;
  if (!kbuild_module_in(t.build_dir, tdir.string(), kTemplateName, env.jobs, env.verbose, {"V=1"},
                        &out)) {
    *why = "the template module did not build through Kbuild:\n" + out;
    return false;
  }
  const std::string d = tdir.string(), n = kTemplateName;
  struct Saved {
    const char *step;
    std::string file, target;
  };
  const Saved saved[] = {
      {"compile", "." + std::string("xtap_script.o.cmd"), d + "/xtap_script.o"},
      {"link", "." + n + ".o.cmd", d + "/" + n + ".o"},
      {"modpost", ".Module.symvers.cmd", d + "/Module.symvers"},
      {"compile_mod", "." + n + ".mod.o.cmd", d + "/" + n + ".mod.o"},
      {"link_ko", "." + n + ".ko.cmd", d + "/" + n + ".ko"},
  };
  for (const auto &s : saved) {
    std::string cmd;
    if (!saved_command(tdir / s.file, s.target, &cmd, why)) return false;
    r->steps.emplace_back(s.step, cmd);
  }
  // The object list is written per module (NAME.mod): the link must read it.
  if (r->steps[1].second.find("@" + d + "/" + n + ".mod") == std::string::npos) {
    *why = "Kbuild's link of the module objects does not read " + n + ".mod";
    return false;
  }
  if (kernel_has(t, "CONFIG_DEBUG_INFO_BTF_MODULES")) {
    std::string cmd;
    if (!btf_command(read_file((tdir / "build.log").string()), d + "/" + n + ".ko", &cmd)) {
      *why = "CONFIG_DEBUG_INFO_BTF_MODULES is set but Kbuild's BTF command was not found";
      return false;
    }
    r->steps.emplace_back("btf", cmd);
  }
  r->modules_order = read_file((tdir / "modules.order").string());
  r->env = kbuild_environment(read_file((tdir / "xtap_kbuild.env").string()));
  record_fast_mod(t, tdir, n, r);

  // The template's directory and name become tokens; .module-common.o
  // (6.12: vermagic and the ORC header, the same for every module) stays
  // where the template built it.
  const std::string common = d + "/.module-common.o", keep = "\x01";
  auto tokens = [&](std::string s) {
    s = replace_all(s, common, keep);
    s = replace_all(s, d, kRecipeDirToken);
    s = replace_all(s, n, kRecipeNameToken);
    return replace_all(s, keep, common);
  };
  for (auto &[name, cmd] : r->steps) cmd = tokens(cmd);
  for (auto &[name, value] : r->env) value = tokens(value);
  r->modules_order = tokens(r->modules_order);
  record_script_pch(t, tdir, n, tdir.parent_path() / "pch", r);
  // The runtime copies and the module itself are not needed any more.
  for (auto &e : fs::directory_iterator(tdir, ec)) {
    std::string f = e.path().filename().string();
    if ((f.ends_with(".o") && f != ".module-common.o") || f.ends_with(".ko"))
      fs::remove(e.path(), ec);
  }
  return true;
}

}  // namespace

std::string recipe_command(const std::string &cmd, const std::string &dir,
                           const std::string &name) {
  return replace_all(replace_all(cmd, kRecipeDirToken, dir), kRecipeNameToken, name);
}

int run_recorded(const Target &t, const std::vector<std::pair<std::string, std::string>> &env,
                 const std::string &cmd, const std::string &log) {
  std::ostringstream sh;
  for (const auto &[k, v] : env)
    sh << "export " << k << "='" << replace_all(v, "'", "'\\''") << "'\n";
  sh << cmd << "\n";
  process::SpawnSpec spec;
  spec.argv = {"sh", "-c", sh.str()};
  spec.cwd = t.build_dir;
  spec.stdout_path = spec.stderr_path = log;
  std::string error;
  return process::run_to_end(spec, &error);
}

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  if (from.empty()) return s;
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

bool ensure_recipe(const Target &t, const Env &env, const std::string &rt, Recipe *r,
                   std::string *why) {
  // Beside the runtime, not in it: older xtap versions sharing the cache
  // link every object under the runtime's directory.
  const fs::path dir = fs::path(env.cache_dir) / "recipes" / fs::path(rt).filename();
  const fs::path file = dir / "recipe.txt", failed = dir / "failed.txt";
  auto load = [&]() {
    bool ok = false;
    std::string text = read_file(file.string(), &ok);
    *r = Recipe{};
    return ok && parse(text, r);
  };
  if (load()) return true;
  auto failure = [&](const std::string &reason) {
    std::string first = reason.substr(0, reason.find('\n'));
    return "Kbuild's commands for " + t.release + " could not be recorded: " + first + " (" +
           failed.string() + "; remove it to retry)";
  };
  if (fs::exists(failed)) {
    *why = failure(read_file(failed.string()));
    return false;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  CacheLock lock(dir.string());
  if (load()) return true;
  if (fs::exists(failed)) return ensure_recipe(t, env, rt, r, why);

  *r = Recipe{};
  std::string reason;
  if (!record(t, env, rt, dir / "template", r, &reason)) {
    write_file(failed.string(), reason);
    *why = failure(reason);
    return false;
  }
  fs::path partial = file.string() + ".tmp" + std::to_string(getpid());
  if (!write_file(partial.string(), serialize(*r))) {
    *why = "cannot write " + partial.string();
    return false;
  }
  fs::rename(partial, file, ec);
  if (ec) {
    *why = "cannot write " + file.string() + ": " + ec.message();
    return false;
  }
  return true;
}

}  // namespace xtap::kbuild
