// SPDX-License-Identifier: GPL-2.0
/* The probe's stack and registers: stack(), stack_used(), print_regs(), is_return(). */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>
#include "internal.h"

#define XTAP_MAXSTACK 64

/* stack(n): n = 0 the probe point, 1 its caller ..., from the kernel's unwinder. */
s64 xtap_stack_addr(struct xtap_context *c, s64 n)
{
	struct unwind_state state;
	s64 i = 0;

	if (n < 0 || n >= XTAP_MAXSTACK || (c->regs && user_mode(c->regs)))
		goto none;
	if (c->regs) {
		if (n == 0)
			return instruction_pointer(c->regs);
		i = 1;
	}
	for (unwind_start(&state, current, c->regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state), i++) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		if (i == n)
			return addr;
	}
none:
	xtap_error(c, "cannot unwind the stack to level %lld", n);
	return 0;
}

s64 xtap_stack_size(void)
{
	return THREAD_SIZE;
}

/* Bytes of the current kernel stack in use, from its top to the stack pointer. */
s64 xtap_stack_used(void)
{
	unsigned long base = (unsigned long)task_stack_page(current);
	unsigned long sp = current_stack_pointer;

	if (sp < base || sp >= base + THREAD_SIZE)
		return 0; /* on an interrupt or exception stack */
	return base + THREAD_SIZE - sp;
}

/* The probe's saved registers, as the kernel's oops shows them. */
void xtap_print_regs(struct xtap_context *c)
{
	struct pt_regs *r = c->regs;

	if (!r)
		return;
	xtap_printf(c, "RIP: %016lx\nRSP: %016lx  EFLAGS: %08lx\n", r->ip,
		    r->sp, r->flags);
	xtap_printf(c, "RAX: %016lx RBX: %016lx RCX: %016lx\n", r->ax, r->bx,
		    r->cx);
	xtap_printf(c, "RDX: %016lx RSI: %016lx RDI: %016lx\n", r->dx, r->si,
		    r->di);
	xtap_printf(c, "RBP: %016lx R08: %016lx R09: %016lx\n", r->bp, r->r8,
		    r->r9);
	xtap_printf(c, "R10: %016lx R11: %016lx R12: %016lx\n", r->r10, r->r11,
		    r->r12);
	xtap_printf(c, "R13: %016lx R14: %016lx R15: %016lx\n", r->r13, r->r14,
		    r->r15);
	xtap_printf(c, "CS: %04lx SS: %04lx ORIG_RAX: %016lx\n", r->cs, r->ss,
		    r->orig_ax);
}

/* 1 in a return probe: its probe point ends in .return (maybe with .maxactive(N)). */
s64 xtap_is_return(struct xtap_context *c)
{
	const char *p = c->probe ? c->probe->point : NULL;

	return p && strstr(p, ".return") ? 1 : 0;
}

s64 xtap_registers_valid(struct xtap_context *c)
{
	return c->regs != NULL;
}

/* The module the probe point is in ("kernel" for the kernel), "" without registers. */
char *xtap_probemod(struct xtap_context *c, char *dst)
{
	char buf[KSYM_SYMBOL_LEN];
	char *open, *end;

	dst[0] = '\0';
	if (!c->regs || user_mode(c->regs))
		return dst;
	/* __module_address() is not exported: the module as %pS names it */
	snprintf(buf, sizeof(buf), "%pS", (void *)instruction_pointer(c->regs));
	open = strrchr(buf, '[');
	if (!open) {
		strscpy(dst, "kernel", xtap_strsize());
		return dst;
	}
	end = strpbrk(open + 1, " ]");
	if (end)
		*end = '\0';
	strscpy(dst, open + 1, xtap_strsize());
	return dst;
}

/* The probe family from its probe point: "kprobe", "uprobe", "timer", "begin" ... */
char *xtap_probe_type(struct xtap_context *c, char *dst)
{
	static const struct {
		const char *prefix, *type;
	} kinds[] = {
		{ "kernel.function", "kprobe" },
		{ "module(", "kprobe" },
		{ "kprobe.", "kprobe" },
		{ "kernel.statement", "kprobe" },
		{ "process", "uprobe" },
		{ "kernel.trace", "tracepoint" },
		{ "timer.", "timer" },
		{ "perf.", "perf" },
		{ "procfs", "procfs" },
		{ "netfilter", "netfilter" },
		{ "begin", "begin" },
		{ "end", "end" },
		{ "error", "error" },
	};
	const char *p = c->probe ? c->probe->point : "";
	size_t i;

	dst[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strncmp(p, kinds[i].prefix, strlen(kinds[i].prefix))) {
			strscpy(dst, kinds[i].type, xtap_strsize());
			break;
		}
	return dst;
}
