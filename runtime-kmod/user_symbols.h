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

/* May this probe read current's vmas (try the mm lock)? Never in NMI. */
bool xtap_vmas_readable(struct xtap_context *c);
struct vm_area_struct;
/* The table of the file vma maps, or NULL; the caller holds the mm lock. */
const struct xtap_ubinary *xtap_ubin_of_vma(struct vm_area_struct *vma);
/* Does any loaded table carry call-frame information? */
bool xtap_ucfi_loaded(void);

/* A user frame's registers, as the unwinder steps from callee to caller. */
struct xtap_uframe {
	unsigned long ip, sp, bp;
	bool exact; /* ip is where the task was (a signal came), not a return address */
};

/*
 * user_unwind.c: the stack from frame f by CFI (frame pointers where a
 * file has none), f.ip first; the number of addresses, or -1 when it
 * cannot run here (NMI, the mm lock taken, no CFI loaded) and the caller
 * follows frame pointers. entry_check: f is a probe's own registers, where
 * a uprobe at a function's first instruction has not pushed its frame.
 */
int xtap_user_unwind(struct xtap_context *c, struct xtap_uframe f,
		     bool entry_check, unsigned long *addrs, int max);

/* Calls fn for each hex address of a "0x... 0x..." string (print_usyms, sprint_syms). */
void xtap_each_addr(const char *addrs,
		    void (*fn)(void *arg, unsigned long addr), void *arg);

/* Appends one line to dst (used of size bytes) unless it would not fit whole. */
bool xtap_append_line(char *dst, u32 *used, u32 size, const char *line);

#endif /* XTAP_USER_SYMBOLS_H */
