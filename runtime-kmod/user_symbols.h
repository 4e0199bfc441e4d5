/* SPDX-License-Identifier: GPL-2.0 */
/* Between user_symbols.c (tables, vmas) and user_stack.c (stacks). */
#ifndef XTAP_USER_SYMBOLS_H
#define XTAP_USER_SYMBOLS_H

#include <xtap/runtime.h>

/* Where a user address is: its file, as a table or a name, and the offset in it. */
struct xtap_uloc {
	const struct xtap_ubinary *bin; /* NULL: no table for this file */
	unsigned long offset; /* file offset of the address */
	unsigned long map_size; /* length of its mapping */
	bool mapped; /* in a file-backed mapping */
	char mod[128]; /* the file's name when bin is NULL */
};

/* stap's symbol forms (its _STP_SYM_SYMBOL, _DATA, _SIMPLE, _FULL) */
enum xtap_usym_form {
	XTAP_USYM_NAME,
	XTAP_USYM_DATA,
	XTAP_USYM_SIMPLE,
	XTAP_USYM_FULL
};

/* false when the address is in no file mapping or the map can't be read now */
bool xtap_uresolve(struct xtap_context *c, unsigned long addr,
		   struct xtap_uloc *loc);
const struct xtap_usym *xtap_usym_find(const struct xtap_ubinary *bin,
				       u64 offset);
int xtap_usym_format(struct xtap_context *c, char *buf, size_t size,
		     unsigned long addr, enum xtap_usym_form form);
/* addr is the first instruction of a known function: its frame is not set up yet */
bool xtap_uaddr_at_function_start(struct xtap_context *c, unsigned long addr);

/* Calls fn for each hex address of a "0x... 0x..." string (print_usyms, sprint_syms). */
void xtap_each_addr(const char *addrs,
		    void (*fn)(void *arg, unsigned long addr), void *arg);

/* Appends one line to dst (used of size bytes) unless it would not fit whole. */
bool xtap_append_line(char *dst, u32 *used, u32 size, const char *line);

#endif /* XTAP_USER_SYMBOLS_H */
