// The build directory layout of a script module (module_layout.h).
#include "kbuild/module_layout.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "common/file_io.h"
#include "kbuild/run_make.h"

namespace fs = std::filesystem;

namespace xtap::kbuild {

std::vector<std::string> runtime_objects(const std::string &rt) {
  // Link the runtime's compiled object (one: xtap_runtime_all.o), not its
  // linked xtap_runtime.o: kernels that run objtool on whole modules (IBT,
  // 6.12's call padding) would otherwise process the runtime twice.
  std::vector<std::string> objs;
  std::error_code ec;
  for (auto &e : fs::recursive_directory_iterator(rt, ec)) {
    std::string r = fs::relative(e.path(), rt).string();
    if (e.path().extension() != ".o" || r == "xtap_runtime.o" || r.starts_with("features/") ||
        r.ends_with(".mod.o") || e.path().filename().string()[0] == '.')
      continue;
    objs.push_back(r);
  }
  std::sort(objs.begin(), objs.end());
  return objs;
}

std::string runtime_copy_name(const std::string &rel) {
  std::string flat = rel;
  std::replace(flat.begin(), flat.end(), '/', '_');
  return "xtap_rt_" + flat;
}

std::string module_kbuild_file(const std::string &name, const std::string &rt,
                               const std::vector<std::string> &rt_objs) {
  std::ostringstream kb;
  kb << "obj-m := " << name << ".o\n" << name << "-y := xtap_script.o";
  for (const auto &o : rt_objs) kb << " " << runtime_copy_name(o);
  kb << "\nccflags-y := -I" << rt << "/include -I" << rt << "\n"
     << "# The runtime is compiled once per kernel: link copies of its cached\n"
     << "# objects (modpost reads every object's .cmd file, so give each one).\n";
  for (const auto &o : rt_objs) {
    std::string flat = runtime_copy_name(o);
    kb << "$(obj)/" << flat << ": " << rt << "/" << o << "\n"
       << "\t@cp $< $@\n"
       << "\t@echo 'cmd_$@ := cp $< $@' > $(obj)/." << flat << ".cmd\n";
  }
  return kb.str();
}

bool kbuild_module_in(const std::string &build_dir, const std::string &dir, const std::string &name,
                      int jobs, bool echo, const std::vector<std::string> &extra_args,
                      std::string *error) {
  std::string log = dir + "/build.log";
  std::vector<std::string> args = {"-C" + build_dir, "M=" + dir, "-j" + std::to_string(jobs)};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  args.push_back("modules");
  std::string make_error;
  int rc = run_make(args, log, echo, &make_error);
  if (rc != 0 || !fs::exists(dir + "/" + name + ".ko")) {
    *error = rc < 0 ? make_error : read_file(log);
    return false;
  }
  return true;
}

}  // namespace xtap::kbuild
