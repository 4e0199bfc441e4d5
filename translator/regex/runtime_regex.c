// SPDX-License-Identifier: GPL-2.0
/*
 * The translator's door to the runtime's regex compiler
 * (runtime-kmod/regex_compile.c, compiled for user space against
 * runtime-kmod/userspace/): compiles a pattern as the module will at session
 * start and reports what pass 2 needs, so the two can never disagree.
 */
#include "runtime_regex.h"
#include "regex.h"

int xtap_userspace_regex_check(const char *src, struct xtap_userspace_regex *out) {
  struct xtap_re_error err = {"", 0};
  struct xtap_re_prog *prog = xtap_re_compile(src, &err);

  snprintf(out->error, sizeof(out->error), "%s", prog ? "" : err.msg);
  out->offset = prog ? 0 : err.offset;
  out->instructions = prog ? prog->ninst : 0;
  out->captures = prog ? prog->nsave / 2 - 1 : 0;
  out->groups = prog ? prog->ngroups : 0;
  xtap_re_free(prog);
  return prog != NULL;
}
