// SPDX-License-Identifier: GPL-2.0
/*
 * register("rdi") and u_register("rdi"): a register of the probe's
 * pt_regs by its x86-64 name (user registers in uprobes, kernel ones in
 * kprobes). The 32-bit names (eax, edi) read the low half, sign- or
 * zero-extended as the caller asks.
 */
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <asm/syscall.h>
#include "compat/maccess.h"
#include "internal.h"

struct xtap_reg_name {
	const char *name;
	size_t offset;
};

#define XTAP_REG(n, field)                         \
	{                                          \
		n, offsetof(struct pt_regs, field) \
	}
static const struct xtap_reg_name xtap_regs64[] = {
	XTAP_REG("ax", ax),	      XTAP_REG("bx", bx),
	XTAP_REG("cx", cx),	      XTAP_REG("dx", dx),
	XTAP_REG("si", si),	      XTAP_REG("di", di),
	XTAP_REG("bp", bp),	      XTAP_REG("sp", sp),
	XTAP_REG("ip", ip),	      XTAP_REG("r8", r8),
	XTAP_REG("r9", r9),	      XTAP_REG("r10", r10),
	XTAP_REG("r11", r11),	      XTAP_REG("r12", r12),
	XTAP_REG("r13", r13),	      XTAP_REG("r14", r14),
	XTAP_REG("r15", r15),	      XTAP_REG("flags", flags),
	XTAP_REG("orig_ax", orig_ax), XTAP_REG("cs", cs),
	XTAP_REG("ss", ss),
};

/* "rax"/"ax"/"eax" -> "ax" with *half set for the e- names; "r8".. as is. */
static const struct xtap_reg_name *xtap_find_reg(const char *name, bool *half)
{
	const char *base = name;
	size_t i;

	*half = false;
	if (!strcmp(name, "eflags") || !strcmp(name, "rflags"))
		base = "flags";
	else if (!strcmp(name, "orig_rax"))
		base = "orig_ax";
	else if (name[0] == 'r' && name[1] &&
		 !(name[1] >= '0' && name[1] <= '9'))
		base = name + 1;
	else if (name[0] == 'e' && strlen(name) == 3)
		base = name + 1, *half = true;
	for (i = 0; i < ARRAY_SIZE(xtap_regs64); i++)
		if (!strcmp(base, xtap_regs64[i].name))
			return &xtap_regs64[i];
	return NULL;
}

s64 xtap_register(struct xtap_context *c, const char *name, int is_signed)
{
	const struct xtap_reg_name *r;
	bool half;
	u64 v;

	if (!c->regs) {
		xtap_error(
			c,
			"cannot access register '%s' here (no registers in this probe)",
			name);
		return 0;
	}
	r = xtap_find_reg(name, &half);
	if (!r) {
		xtap_error(c, "Unknown register: %s", name);
		return 0;
	}
	v = *(const unsigned long *)((const char *)c->regs + r->offset);
	if (half)
		return is_signed ? (s64)(s32)v : (s64)(u32)v;
	return (s64)v;
}

/* uarch_bytes(): the size of a long in the current task (4 for 32-bit) */
s64 xtap_user_word_size(void)
{
	return xtap_user_long_size();
}

/*
 * _stp_syscall_nr(): the system call the current task is in, from its
 * saved user registers (a syscall probe's own, else those of its entry
 * into the kernel); -1 outside one.
 */
s64 xtap_current_syscall_nr(struct xtap_context *c)
{
	struct pt_regs *regs = c->syscall_regs;

	if (!regs) {
		if (!current->mm || (current->flags & PF_KTHREAD)) {
			xtap_error(c, "Cannot access syscall number "
				      "(no registers available)");
			return 0;
		}
		regs = task_pt_regs(current);
	}
	return syscall_get_nr(current, regs);
}
