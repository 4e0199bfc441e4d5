// The script's compile with a precompiled header (script_pch.h).
#include "kbuild/script_pch.h"

#include <vector>

#include "common/file_io.h"
#include "kbuild/rel_object.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {
namespace {

constexpr const char *kHeader = "xtap_pch.h";

// What every generated xtap_script.c includes first (codegen/module.cpp).
constexpr const char *kScriptIncludes =
    "#include <linux/string.h>\n"
    "#include <linux/version.h>\n"
    "#include <xtap/runtime.h>\n";

struct CompileParts {
  std::string includes;  // " -include A -include B ..." as in the command
  std::vector<std::string> include_files;
  std::string modname, kmodname;  // the -D options naming the module
};

bool find_parts(const std::string &compiler, CompileParts *p, std::string *why) {
  for (size_t at = compiler.find(" -include "); at != std::string::npos;
       at = compiler.find(" -include ", at + 1)) {
    size_t start = at + 10, end = compiler.find(' ', start);
    std::string file = compiler.substr(start, end - start);
    if (!p->includes.empty() && compiler.find(p->includes) + p->includes.size() != at) {
      *why = "its forced includes are not next to each other";
      return false;
    }
    p->includes += " -include " + file;
    p->include_files.push_back(file);
  }
  p->modname = std::string(" -DKBUILD_MODNAME='\"") + kRecipeNameToken + "\"'";
  p->kmodname = std::string(" -D__KBUILD_MODNAME=kmod_") + kRecipeNameToken;
  if (p->include_files.empty() || compiler.find(p->modname) == std::string::npos ||
      compiler.find(p->kmodname) == std::string::npos) {
    *why = "the compile command has no forced includes or no KBUILD_MODNAME";
    return false;
  }
  return true;
}

}  // namespace

std::string script_name_header(const std::string &name) {
  return "/* The module's own name, after the precompiled headers (kbuild/script_pch.h). */\n"
         "#undef KBUILD_MODNAME\n#define KBUILD_MODNAME \"" +
         name +
         "\"\n"
         "#undef __KBUILD_MODNAME\n#define __KBUILD_MODNAME kmod_" +
         name + "\n";
}

void record_script_pch(const Target &t, const fs::path &tdir, const std::string &name,
                       const fs::path &pch_dir, Recipe *r) {
  std::string compile;
  for (const auto &[step, cmd] : r->steps)
    if (step == "compile") compile = cmd;
  const std::string object = std::string(" -c -o ") + kRecipeDirToken + "/xtap_script.o";
  size_t c = compile.find(object);
  CompileParts parts;
  std::string why;
  if (c == std::string::npos) {
    r->no_pch = "the compile command does not write xtap_script.o";
    return;
  }
  const std::string compiler = compile.substr(0, c);
  if (!find_parts(compiler, &parts, &why)) {
    r->no_pch = why;
    return;
  }

  // The headers: the forced includes, then the script's own first lines.
  std::error_code ec;
  fs::remove_all(pch_dir, ec);
  fs::create_directories(pch_dir, ec);
  std::string header = "/* Precompiled once per kernel runtime (kbuild/script_pch.h). */\n";
  for (const auto &f : parts.include_files) header += "#include \"" + f + "\"\n";
  header += kScriptIncludes;
  const std::string h = (pch_dir / kHeader).string();
  std::string precompile = replace_all(compiler, parts.includes, "");
  size_t mmd = precompile.find(" -Wp,-MMD,");
  if (mmd != std::string::npos) precompile.erase(mmd, precompile.find(' ', mmd + 1) - mmd);
  precompile =
      recipe_command(precompile, tdir.string(), name) + " -x c-header -o " + h + ".gch " + h;
  if (!write_file(h, header) || run_recorded(t, r->env, precompile, h + ".log") != 0) {
    r->no_pch = "the headers did not precompile: " + read_file(h + ".log").substr(0, 400);
    return;
  }

  // The script's compile: the template's name on the command line, the
  // precompiled headers first, then the module's own name.
  std::string with_pch =
      replace_all(compile, parts.modname, std::string(" -DKBUILD_MODNAME='\"") + name + "\"'");
  with_pch = replace_all(with_pch, parts.kmodname, " -D__KBUILD_MODNAME=kmod_" + name);
  with_pch = replace_all(
      with_pch, parts.includes,
      " -Winvalid-pch -include " + h + " -include " + kRecipeDirToken + "/" + kScriptNameHeader);

  // Checked on the template: the header must be used, and the object must
  // be the one Kbuild compiled.
  const fs::path check = tdir / "pch-check";
  fs::create_directories(check, ec);
  fs::copy_file(tdir / "xtap_script.c", check / "xtap_script.c",
                fs::copy_options::overwrite_existing, ec);
  const std::string log = (check / "compile.log").string();
  if (ec || !write_file((check / kScriptNameHeader).string(), script_name_header(name)) ||
      run_recorded(t, r->env, recipe_command(with_pch, check.string(), name), log) != 0) {
    r->no_pch = "the template did not compile with it: " + read_file(log).substr(0, 400);
    return;
  }
  if (read_file(log).find("invalid-pch") != std::string::npos) {
    r->no_pch = "GCC did not use it: " + read_file(log).substr(0, 400);
    return;
  }
  auto kbuilds = read_rel_object((tdir / "xtap_script.o").string(), &why);
  auto mine = read_rel_object((check / "xtap_script.o").string(), &why);
  std::string diff = kbuilds && mine ? rel_object_difference(*kbuilds, *mine) : why;
  fs::remove_all(check, ec);
  if (!diff.empty()) {
    r->no_pch = "the template compiled with it is another object: " + diff;
    return;
  }
  r->steps.emplace_back("compile_pch", with_pch);
}

}  // namespace xtap::kbuild
