/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What translator/regex/regex_check.cpp learns from the runtime's regex
 * compiler (runtime_regex.c). Plain C, so that both sides can include it.
 */
#ifndef XTAP_RUNTIME_REGEX_H
#define XTAP_RUNTIME_REGEX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct xtap_userspace_regex {
  char error[192];           /* "" when the pattern compiles */
  size_t offset;             /* where the error is, a byte offset into the pattern */
  unsigned int instructions; /* the program's size */
  unsigned int captures;     /* groups that capture (at most XTAP_RE_MAX_GROUPS - 1) */
  unsigned int groups;       /* groups in the pattern */
};

/* 1 when `src` compiles; *out says how, or why not. */
int xtap_userspace_regex_check(const char *src, struct xtap_userspace_regex *out);

#ifdef __cplusplus
}
#endif

#endif
