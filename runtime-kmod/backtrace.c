// SPDX-License-Identifier: GPL-2.0
/* Kernel backtraces of the probe point: backtrace(), print_backtrace(). */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/unwind.h>
#include "internal.h"
#include "user_symbols.h"

/* stap's default depth (MAXBACKTRACE) */
#define XTAP_MAXBACKTRACE 20

/*
 * The probe point and the return addresses above it, with the kernel's own
 * unwinder (ORC on Debian's kernels), which reads the stack within its
 * bounds and never faults: from the probe's registers when it has them
 * (kprobes), else from here. Stops at user space. Returns the count.
 */
static int xtap_kernel_stack(struct xtap_context *c, unsigned long *addrs,
			     int max)
{
	struct unwind_state state;
	int n = 0;

	if (c->regs && user_mode(c->regs))
		return 0;
	/* the unwinder starts at the caller of the registers' frame */
	if (c->regs && max > 0)
		addrs[n++] = instruction_pointer(c->regs);
	for (unwind_start(&state, current, c->regs, NULL);
	     !unwind_done(&state) && n < max; unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		addrs[n++] = addr;
	}
	return n;
}

/* "0xffffffff81234567 0xffffffff81234890 ..." */
char *xtap_backtrace(struct xtap_context *c, char *dst)
{
	unsigned long addrs[XTAP_MAXBACKTRACE];
	u32 size = xtap_sess.limits.maxstringlen, used = 0;
	int i, n = xtap_kernel_stack(c, addrs, ARRAY_SIZE(addrs));

	dst[0] = '\0';
	for (i = 0; i < n && used < size - 1; i++)
		used += scnprintf(dst + used, size - used, "%s0x%lx",
				  i ? " " : "", addrs[i]);
	return dst;
}

static void xtap_print_sym(struct xtap_context *c, unsigned long addr)
{
	xtap_printf(c, " 0x%lx : %pS\n", addr, (void *)addr);
}

/* One line a frame: " 0xffffffff81234567 : vfs_read+0x4/0x1a0" */
void xtap_print_backtrace(struct xtap_context *c)
{
	unsigned long addrs[XTAP_MAXBACKTRACE];
	int i, n = xtap_kernel_stack(c, addrs, ARRAY_SIZE(addrs));

	for (i = 0; i < n; i++)
		xtap_print_sym(c, addrs[i]);
}

static void xtap_print_sym_one(void *c, unsigned long addr)
{
	xtap_print_sym(c, addr);
}

/* print_syms(backtrace()): the same lines for a string of hex addresses. */
void xtap_print_syms(struct xtap_context *c, const char *addrs)
{
	xtap_each_addr(addrs, xtap_print_sym_one, c);
}

/* stap's simple kernel form (sprint_backtrace, sprint_syms): "vfs_read+0x4 [module]\n", the size dropped. */
static void xtap_ksym_simple(char *line, size_t size, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];
	char *slash, *rest;

	sprint_symbol(sym, addr);
	slash = strchr(sym, '/');
	if (slash) {
		rest = strchr(slash, ' ');
		if (rest)
			memmove(slash, rest, strlen(rest) + 1);
		else
			*slash = '\0';
	}
	scnprintf(line, size, "%s\n", sym);
}

struct xtap_ksyms_out {
	char *dst;
	u32 used, size;
	bool full;
};

static void xtap_ksyms_one(void *arg, unsigned long addr)
{
	struct xtap_ksyms_out *o = arg;
	char line[KSYM_SYMBOL_LEN + 2];

	xtap_ksym_simple(line, sizeof(line), addr);
	if (!o->full && !xtap_append_line(o->dst, &o->used, o->size, line))
		o->full = true;
}

char *xtap_sprint_syms(char *dst, const char *addrs)
{
	struct xtap_ksyms_out o = { .dst = dst,
				    .size = xtap_sess.limits.maxstringlen };

	dst[0] = '\0';
	xtap_each_addr(addrs, xtap_ksyms_one, &o);
	return dst;
}

/* sprint_backtrace(): the kernel stack in the simple form, whole lines that fit. */
char *xtap_sprint_backtrace(struct xtap_context *c, char *dst)
{
	unsigned long addrs[XTAP_MAXBACKTRACE];
	struct xtap_ksyms_out o = { .dst = dst,
				    .size = xtap_sess.limits.maxstringlen };
	int i, n = xtap_kernel_stack(c, addrs, ARRAY_SIZE(addrs));

	dst[0] = '\0';
	for (i = 0; i < n; i++)
		xtap_ksyms_one(&o, addrs[i]);
	return dst;
}
