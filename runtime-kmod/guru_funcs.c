// SPDX-License-Identifier: GPL-2.0
/*
 * Guru-mode functions (-g): writes to kernel and user memory and to the
 * probed function's arguments, printk(), panic(), raise(), delays.
 */
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/panic.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <asm/syscall.h>
#include <xtap/memory.h>
#include "internal.h"

/* size bytes of src to user addr of the current task: 0, or the fault raised. */
int xtap_uwrite(struct xtap_context *c, unsigned long addr, const void *src,
		u32 size)
{
	if (!addr || copy_to_user_nofault((void __user *)addr, src, size)) {
		xtap_fault(c, "user write", addr);
		return -EFAULT;
	}
	return 0;
}

/* s and its terminator (at most max bytes, max < 0: no limit but MAXSTRINGLEN) to addr. */
static void xtap_write_str(struct xtap_context *c, s64 addr, const char *s,
			   s64 max, int user)
{
	size_t len = strlen(s) + 1;
	size_t i;

	if (max >= 0 && len > max)
		len = max;
	for (i = 0; i < len; i++) {
		char ch = i + 1 == len ? '\0' : s[i];
		int err = user ? xtap_uwrite(c, addr + i, &ch, 1) :
				 xtap_kwrite(c, addr + i, &ch, 1);

		if (err)
			return;
	}
}

void xtap_kwrite_str(struct xtap_context *c, s64 addr, const char *s, s64 max)
{
	xtap_write_str(c, addr, s, max, 0);
}

void xtap_uwrite_str(struct xtap_context *c, s64 addr, const char *s, s64 max)
{
	xtap_write_str(c, addr, s, max, 1);
}

/*
 * Argument n (1..6) of the probed function (kprobes: its registers) or of
 * the system call (syscall probes: the task's saved user registers), as a
 * value of size bytes (4 signed, -4 unsigned, 8).
 */
void xtap_set_arg(struct xtap_context *c, s64 n, s64 v, int size)
{
	static const int kernel_regs[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	static const int syscall_regs[] = {
		offsetof(struct pt_regs, di), offsetof(struct pt_regs, si),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, r10),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	};
	struct pt_regs *r = c->regs ? c->regs : c->syscall_regs;
	unsigned long val = size == 4  ? (unsigned long)(s64)(s32)v :
			    size == -4 ? (unsigned long)(u32)v :
					 (unsigned long)v;

	if (n < 1 || n > 6 || !r) {
		xtap_error(c, "cannot set argument %lld in this probe", n);
		return;
	}
	*(unsigned long *)((char *)r +
			   (c->regs ? kernel_regs : syscall_regs)[n - 1]) = val;
}

void xtap_printk(s64 level, const char *msg)
{
	if (level < 0 || level > 7)
		level = 4;
	printk("%c%c%s\n", KERN_SOH_ASCII, (char)('0' + level), msg);
}

void xtap_panic(const char *msg)
{
	panic("%s", msg);
}

/* signo to the current thread, as raise(3) does. */
void xtap_raise(struct xtap_context *c, s64 sig)
{
	if (sig < 1 || sig > _NSIG) {
		xtap_error(c, "invalid signal %lld", sig);
		return;
	}
	send_sig((int)sig, current, 0);
}

/* Busy-waits n microseconds (millis: milliseconds); bounded to one second. */
void xtap_delay(struct xtap_context *c, s64 n, int millis)
{
	if (n < 0 || n > (millis ? 1000 : 1000000)) {
		xtap_error(
			c,
			"delay of %lld %s is out of range (at most one second)",
			n, millis ? "ms" : "us");
		return;
	}
	if (millis)
		mdelay(n);
	else
		udelay(n);
}

void xtap_dump_stack(void)
{
	dump_stack();
}

/* msg and a newline into the ftrace ring buffer (through __trace_puts(),
 * which needs no trace_printk() buffers, so loading the module prints no
 * trace_printk notice). */
void xtap_ftrace(struct xtap_context *c, const char *msg)
{
	char *line = container_of(c, struct xtap_cpu_ctx, c)->str_tmp;
	size_t len = strscpy(line, msg, xtap_strsize() - 1) < 0 ?
			     xtap_strsize() - 2 :
			     strlen(line);

	line[len] = '\n';
	line[len + 1] = '\0';
	__trace_puts(_THIS_IP_, line, len + 1);
}
