// A script module's NAME.mod.o without the kernel headers.
//
// modpost writes NAME.mod.c: the module's .modinfo strings, its
// `__this_module` and the CRCs of the kernel symbols it uses (__versions).
// Compiling it parses <linux/module.h> and what that pulls in, most of a
// second, although only the module name and the CRC list differ from one
// module to the next. So, once per recorded runtime, the template module's
// .mod.o is described as plain C with no #include: its bytes, relocations
// and symbols, with the name and the CRC list left as placeholders. That C
// is checked by compiling it for the template and comparing the object
// with Kbuild's, section by section and symbol by symbol; a script module
// whose NAME.mod.c differs from the template's in anything but the CRC
// list compiles its own NAME.mod.c, as Kbuild would.
#pragma once

#include <optional>
#include <string>

namespace xtap::kbuild {

// The placeholder C for the template's `template_obj` (its NAME.mod.o,
// compiled by Kbuild from `template_modc` for module `template_name`);
// nullopt with *why when the object holds something this cannot describe.
std::optional<std::string> describe_mod_object(const std::string &template_obj,
                                               const std::string &template_modc,
                                               const std::string &template_name, std::string *why);

// The C for module `name`'s NAME.mod.o from `skeleton` (describe_mod_object)
// and the module's own NAME.mod.c, or nullopt when that differs from
// `template_modc` in more than its CRC list (or a name is too long).
std::optional<std::string> mod_object_source(const std::string &skeleton,
                                             const std::string &template_modc,
                                             const std::string &module_modc,
                                             const std::string &name);

}  // namespace xtap::kbuild
