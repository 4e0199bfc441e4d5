// SPDX-License-Identifier: GPL-2.0
/* Context functions: who and where the probe fired (execname, pid, uid ...). */
#include <linux/cred.h>
#include <linux/hardirq.h>
#include <linux/random.h>
#include <asm/irq_regs.h>
#include <asm/ptrace.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/timex.h>
#include <linux/uidgid.h>
#include "internal.h"

s64 xtap_pid(void)
{
	return task_tgid_nr(current);
}

s64 xtap_tid(void)
{
	return task_pid_nr(current);
}

s64 xtap_ppid(void)
{
	s64 ppid;

	rcu_read_lock();
	ppid = task_tgid_nr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
	return ppid;
}

s64 xtap_uid(void)
{
	return from_kuid_munged(current_user_ns(), current_uid());
}

s64 xtap_gid(void)
{
	return from_kgid_munged(current_user_ns(), current_gid());
}

s64 xtap_cpu(void)
{
	return raw_smp_processor_id();
}

s64 xtap_gettimeofday_ns(void)
{
	/* The seqcount reader could spin forever if the NMI hit the writer. */
	if (in_nmi())
		return ktime_get_real_fast_ns();
	return ktime_get_real_ns();
}

s64 xtap_target(void)
{
	return xtap_sess.target;
}

/* pp(): the probe point as the script wrote it. */
char *xtap_pp(struct xtap_context *c, char *dst)
{
	strscpy(dst, c->probe ? c->probe->point : "",
		xtap_sess.limits.maxstringlen);
	return dst;
}

/*
 * The function a kernel.function/kernel.statement/module(...)/process(...)
 * point names, as stap's ppfunc() parses it from pp():
 * kernel.function("vfs_read@fs/x.c:1") gives vfs_read. False for other points and for wildcards.
 */
static bool xtap_pp_function(const char *pp, char *dst, size_t size)
{
	const char *start = strstr(pp, ".function(\"");
	const char *wild;
	size_t n;

	if (!start)
		start = strstr(pp, ".statement(\"");
	if (!start || (strncmp(pp, "kernel.", 7) && strncmp(pp, "module(", 7) &&
		       strncmp(pp, "process(", 8)))
		return false;
	start = strchr(start, '"') + 1;
	n = strcspn(start, "@\"");
	wild = strpbrk(start, "*?[");
	if (!n || n >= size || (wild && wild < start + n))
		return false;
	memcpy(dst, start, n);
	dst[n] = '\0';
	return true;
}

/*
 * probefunc(): the function a kernel.function or statement point names;
 * for other kprobes the symbol of the probed address; else "".
 */
char *xtap_probefunc(struct xtap_context *c, char *dst)
{
	struct xtap_cpu_ctx *cc = container_of(c, struct xtap_cpu_ctx, c);

	if (c->probe && c->probe->point &&
	    xtap_pp_function(c->probe->point, dst,
			     xtap_sess.limits.maxstringlen))
		return dst;
	if (cc->probe_addr)
		snprintf(dst, xtap_sess.limits.maxstringlen, "%ps",
			 (void *)cc->probe_addr);
	else
		dst[0] = '\0';
	return dst;
}

/*
 * What @entry's saved values are keyed by (translator/passes/expand_entry.cpp):
 * the kretprobe instance in kretprobes, which the entry and the return of
 * one call share; elsewhere (system call events) the thread.
 */
s64 xtap_entry_key(struct xtap_context *c)
{
	struct xtap_cpu_ctx *cc = container_of(c, struct xtap_cpu_ctx, c);

	return cc->entry_key ? (s64)cc->entry_key : xtap_tid();
}

s64 xtap_jiffies(void)
{
	return get_jiffies_64();
}

s64 xtap_local_clock_ns(void)
{
	return local_clock();
}

/* cpu_clock_ns(cpu): that CPU's scheduler clock, read from any CPU. */
s64 xtap_cpu_clock_ns(struct xtap_context *c, s64 cpu)
{
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
		xtap_error(c, "cpu_clock_ns: there is no CPU %lld", cpu);
		return 0;
	}
	return cpu_clock(cpu);
}

/*
 * symname(), symdata(): the kernel's own symbolizer (kallsyms, modules
 * included), which never sleeps. An address without a symbol prints as
 * 0x... in both.
 */
char *xtap_symname(char *dst, s64 addr)
{
	snprintf(dst, xtap_sess.limits.maxstringlen, "%ps",
		 (void *)(unsigned long)addr);
	return dst;
}

char *xtap_symdata(char *dst, s64 addr)
{
	snprintf(dst, xtap_sess.limits.maxstringlen, "%pS",
		 (void *)(unsigned long)addr);
	return dst;
}

/*
 * modname(): the "[module]" part of the symbol that covers addr, or
 * "kernel" for the kernel's own symbols; an address no symbol covers is an
 * error, as stap's.
 */
char *xtap_modname(struct xtap_context *c, char *dst, s64 addr)
{
	char buf[KSYM_SYMBOL_LEN];
	char *open, *end;

	snprintf(buf, sizeof(buf), "%pS", (void *)(unsigned long)addr);
	open = strrchr(buf, '[');
	if (open) {
		end = strpbrk(open + 1, " ]");
		if (end)
			*end = '\0';
		strscpy(dst, open + 1, xtap_sess.limits.maxstringlen);
		return dst;
	}
	if (!strncmp(buf, "0x", 2)) {
		xtap_error(c, "no module or kernel symbol at address 0x%llx",
			   (unsigned long long)addr);
		dst[0] = '\0';
		return dst;
	}
	strscpy(dst, "kernel", xtap_sess.limits.maxstringlen);
	return dst;
}

s64 xtap_get_cycles(void)
{
	return (s64)get_cycles();
}

/*
 * user_mode(): did the probe hit user code? Kprobes and uprobes have the
 * registers; a timer probe looks at the interrupted context's.
 */
s64 xtap_user_mode(struct xtap_context *c)
{
	struct pt_regs *regs = c->regs;

	if (!regs && in_hardirq())
		regs = get_irq_regs();
	return regs ? !!user_mode(regs) : 0;
}

/* randint(n): uniform in 0..n-1; n must be in 1..2^20, as stap. */
s64 xtap_randint(struct xtap_context *c, s64 n)
{
	if (n < 1 || n > (1 << 20)) {
		xtap_error(c, "randint: %lld is out of range 1..1048576", n);
		return 0;
	}
	return get_random_u32() % (u32)n;
}

/* ip_ntop(): the IPv4 address in the low 32 bits, as stored in memory. */
char *xtap_ip_ntop(char *dst, s64 addr)
{
	__be32 ip = (__be32)(u32)addr;

	snprintf(dst, xtap_sess.limits.maxstringlen, "%pI4", &ip);
	return dst;
}

/* addr(): the instruction pointer of the probe's registers, 0 without. */
s64 xtap_addr(struct xtap_context *c)
{
	return c->regs ? (s64)instruction_pointer(c->regs) : 0;
}

/*
 * uaddr(): where the current task was in user space: the probe's own
 * registers when it hit user code, else the user registers the kernel saved
 * on entry; 0 for kernel threads.
 */
s64 xtap_uaddr(struct xtap_context *c)
{
	struct pt_regs *regs = c->regs;

	if (!regs && in_hardirq())
		regs = get_irq_regs();
	if (regs && user_mode(regs))
		return (s64)instruction_pointer(regs);
	if (!current->mm || (current->flags & PF_KTHREAD))
		return 0;
	return (s64)instruction_pointer(task_pt_regs(current));
}
