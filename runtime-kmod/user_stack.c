// SPDX-License-Identifier: GPL-2.0
/*
 * User-space stacks: ubacktrace(), print_ubacktrace(), sprint_ubacktrace(),
 * ustack(n), print_usyms(), sprint_usyms().
 *
 * The walk unwinds by the files' call-frame information (user_unwind.c),
 * which the module carries for the programs and libraries of a script
 * that asks for stacks. Where it cannot run (NMI: the vmas cannot be
 * read; the mm lock is taken) it follows frame pointers (saved rbp,
 * return address above it) through copy_from_user_nofault(), so it never
 * faults or sleeps; code built without frame pointers (most of Debian's
 * libraries) then ends the walk early or, rarely, adds a bogus frame: the
 * first frame, from the registers, is always right.
 */
#include <linux/hardirq.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/irq_regs.h>
#include <asm/ptrace.h>
#include "compat/maccess.h"
#include "internal.h"
#include "user_symbols.h"

/* stap's default depth (MAXBACKTRACE) */
#define XTAP_MAXUBACKTRACE 20

/* The user registers of the current task: the probe's, else those saved on kernel entry. */
static struct pt_regs *xtap_user_regs(struct xtap_context *c)
{
	struct pt_regs *regs = c->regs;

	if (!regs && in_hardirq())
		regs = get_irq_regs();
	if (regs && user_mode(regs))
		return regs;
	if (!current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	return task_pt_regs(current);
}

/* The frames above fp, each saved fp with its return address above it. */
static int xtap_user_frames(unsigned long fp, unsigned long sp,
			    unsigned long *addrs, int n, int max)
{
	while (n < max) {
		unsigned long frame[2]; /* saved fp, return address */

		/* frames lie above the stack pointer, each above the last */
		if (!fp || (fp & (sizeof(long) - 1)) || fp < sp ||
		    fp >= TASK_SIZE - sizeof(frame))
			break;
		if (copy_from_user_nofault(frame, (const void __user *)fp,
					   sizeof(frame)) ||
		    !frame[1])
			break;
		addrs[n++] = frame[1];
		if (frame[0] <= fp)
			break;
		sp = fp;
		fp = frame[0];
	}
	return n;
}

static int xtap_user_stack(struct xtap_context *c, unsigned long *addrs,
			   int max)
{
	struct pt_regs *regs = xtap_user_regs(c);
	unsigned long sp, ret;
	int n = 0;

	if (!regs || max <= 0)
		return 0;
#ifdef CONFIG_X86_64
	if (xtap_user_long_size() == sizeof(long)) {
		struct xtap_uframe f = { instruction_pointer(regs),
					 user_stack_pointer(regs), regs->bp };

		n = xtap_user_unwind(c, f, true, addrs, max);
		if (n >= 0)
			return n;
		n = 0;
	}
#endif
	addrs[n++] = instruction_pointer(regs);
#ifdef CONFIG_X86_64
	if (xtap_user_long_size() != sizeof(long))
		return n; /* 32-bit task: its frames are not walked */
	sp = user_stack_pointer(regs);
	/*
	 * A uprobe on a function fires at its first instruction, before the
	 * function pushed a frame: its return address is on top of the
	 * stack, and fp still is the caller's frame.
	 */
	if (n < max && xtap_uaddr_at_function_start(c, addrs[0]) &&
	    !copy_from_user_nofault(&ret, (const void __user *)sp,
				    sizeof(ret)) &&
	    ret)
		addrs[n++] = ret;
	n = xtap_user_frames(regs->bp, sp, addrs, n, max);
#endif
	return n;
}

/* "0x4005d4 0x400612 ...": the walk's addresses. */
char *xtap_ubacktrace(struct xtap_context *c, char *dst)
{
	unsigned long addrs[XTAP_MAXUBACKTRACE];
	u32 size = xtap_sess.limits.maxstringlen, used = 0;
	int i, n = xtap_user_stack(c, addrs, ARRAY_SIZE(addrs));

	dst[0] = '\0';
	for (i = 0; i < n && used < size - 1; i++)
		used += scnprintf(dst + used, size - used, "%s0x%lx",
				  i ? " " : "", addrs[i]);
	return dst;
}

s64 xtap_ustack(struct xtap_context *c, s64 n)
{
	unsigned long addrs[XTAP_MAXUBACKTRACE];
	int count;

	if (n < 0 || n >= XTAP_MAXUBACKTRACE)
		return 0;
	count = xtap_user_stack(c, addrs, n + 1);
	return n < count ? (s64)addrs[n] : 0;
}

static void xtap_print_uaddr(struct xtap_context *c, unsigned long addr)
{
	char line[256];

	xtap_usym_format(c, line, sizeof(line), addr, XTAP_USYM_FULL);
	xtap_printf(c, "%s", line);
}

/* One line a frame: " 0x4005d4 : main+0x10/0x30 [/usr/bin/prog]". */
void xtap_print_ubacktrace(struct xtap_context *c)
{
	unsigned long addrs[XTAP_MAXUBACKTRACE];
	int i, n = xtap_user_stack(c, addrs, ARRAY_SIZE(addrs));

	if (!n) {
		xtap_printf(c, "<no user backtrace at %s>\n", c->probe->point);
		return;
	}
	for (i = 0; i < n; i++)
		xtap_print_uaddr(c, addrs[i]);
}

/*
 * print_ubacktrace(pc, sp, fp): the same walk from registers the script
 * supplies (a context saved earlier, another thread's), in the current
 * task's address space.
 */
void xtap_print_ubacktrace_from(struct xtap_context *c, s64 pc, s64 sp, s64 fp)
{
	unsigned long addrs[XTAP_MAXUBACKTRACE];
	int i, n = 0;

	if (current->mm && !(current->flags & PF_KTHREAD) &&
	    xtap_user_long_size() == sizeof(long)) {
		struct xtap_uframe f = { pc, sp, fp };

		n = max(0, xtap_user_unwind(c, f, false, addrs,
					    ARRAY_SIZE(addrs)));
	}
	if (!n && current->mm && !(current->flags & PF_KTHREAD)) {
		addrs[n++] = pc;
		if (xtap_user_long_size() == sizeof(long))
			n = xtap_user_frames(fp, sp, addrs, n,
					     ARRAY_SIZE(addrs));
	}
	if (!n) {
		xtap_printf(c, "<no user backtrace at %s>\n", c->probe->point);
		return;
	}
	for (i = 0; i < n; i++)
		xtap_print_uaddr(c, addrs[i]);
}

bool xtap_append_line(char *dst, u32 *used, u32 size, const char *line)
{
	size_t len = strlen(line);

	if (*used + len + 1 > size)
		return false;
	memcpy(dst + *used, line, len + 1);
	*used += len;
	return true;
}

/* "main+0x10 [prog]\n" a frame, as stap's sprint_ubacktrace(). */
char *xtap_sprint_ubacktrace(struct xtap_context *c, char *dst)
{
	unsigned long addrs[XTAP_MAXUBACKTRACE];
	u32 size = xtap_sess.limits.maxstringlen, used = 0;
	int i, n = xtap_user_stack(c, addrs, ARRAY_SIZE(addrs));
	char line[256];

	dst[0] = '\0';
	for (i = 0; i < n; i++) {
		xtap_usym_format(c, line, sizeof(line), addrs[i],
				 XTAP_USYM_SIMPLE);
		if (!xtap_append_line(dst, &used, size, line))
			break;
	}
	return dst;
}

/* Calls fn for each hex address of a "0x... 0x..." string. */
void xtap_each_addr(const char *addrs,
		    void (*fn)(void *arg, unsigned long addr), void *arg)
{
	const char *p = addrs;

	while (*p) {
		unsigned long long addr;
		char word[24];
		int len = strcspn(p, " ");

		if (len && len < sizeof(word)) {
			memcpy(word, p, len);
			word[len] = '\0';
			if (!kstrtoull(word, 16, &addr))
				fn(arg, addr);
		}
		p += len;
		p += strspn(p, " ");
	}
}

struct xtap_usyms_out {
	struct xtap_context *c;
	char *dst;
	u32 used, size;
	bool full;
};

static void xtap_usyms_one(void *arg, unsigned long addr)
{
	struct xtap_usyms_out *o = arg;
	char data[224], line[256];

	/* stap's print_usyms(): " 0x... : " and usymdata() */
	xtap_usym_format(o->c, data, sizeof(data), addr, XTAP_USYM_DATA);
	scnprintf(line, sizeof(line), " 0x%lx : %s\n", addr, data);
	if (!o->dst)
		xtap_printf(o->c, "%s", line);
	else if (!o->full && !xtap_append_line(o->dst, &o->used, o->size, line))
		o->full = true;
}

void xtap_print_usyms(struct xtap_context *c, const char *addrs)
{
	struct xtap_usyms_out o = { .c = c };

	xtap_each_addr(addrs, xtap_usyms_one, &o);
}

char *xtap_sprint_usyms(struct xtap_context *c, char *dst, const char *addrs)
{
	struct xtap_usyms_out o = { .c = c,
				    .dst = dst,
				    .size = xtap_sess.limits.maxstringlen };

	dst[0] = '\0';
	xtap_each_addr(addrs, xtap_usyms_one, &o);
	return dst;
}
