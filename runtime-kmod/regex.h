/* SPDX-License-Identifier: GPL-2.0 */
/* Compiled regular expressions: a program for the Pike VM in regex.c. */
#ifndef XTAP_REGEX_H
#define XTAP_REGEX_H

#include <linux/types.h>
#include <xtap/limits.h> /* XTAP_RE_MAX_*, shared with the translator's checker */

enum xtap_re_op {
	XTAP_RE_CHAR, /* c */
	XTAP_RE_ANY, /* any byte */
	XTAP_RE_CLASS, /* a byte in classes[x] */
	XTAP_RE_MATCH,
	XTAP_RE_JMP, /* goto x */
	XTAP_RE_SPLIT, /* goto x, else goto y (x preferred) */
	XTAP_RE_SAVE, /* capture slot x = position */
	XTAP_RE_BOL, /* ^ */
	XTAP_RE_EOL, /* $ */
};

struct xtap_re_inst {
	u8 op;
	u8 c;
	u32 x, y;
};

struct xtap_re_prog {
	u32 ninst;
	u32 nsave; /* capture slots: 2 per group, group 0 the whole match */
	u32 ngroups; /* groups in the pattern, capturing or past the limit */
	struct xtap_re_inst *inst;
	unsigned long (*classes)[BITS_TO_LONGS(256)];
};

/* Why a pattern does not compile, and at which byte of it. */
struct xtap_re_error {
	char msg[192];
	size_t offset;
};

/* Process context. On failure (NULL), *err says why. */
struct xtap_re_prog *xtap_re_compile(const char *src,
				     struct xtap_re_error *err);
void xtap_re_free(struct xtap_re_prog *p);

#endif /* XTAP_REGEX_H */
