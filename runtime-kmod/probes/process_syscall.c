// SPDX-License-Identifier: GPL-2.0
/*
 * process("PATH").syscall[.return], process(PID).syscall[.return] and
 * process.syscall[.return]: a system call of a matching process, at its
 * entry or its return, in the calling thread's context.
 *
 * One callback on each raw_syscalls tracepoint (sys_enter, sys_exit) serves
 * every spec, registered only when a spec needs it; it runs the specs whose
 * process matches: PATH by the inode of the task's executable
 * (exe_match.c), PID by the thread group, no argument any user task. With
 * -c or -x, only the target's process hierarchy, as stap's process probes.
 * stap found these events through utrace; the tracepoints see the same
 * calls (a 32-bit task's with its own ABI's numbers, as stap reports them).
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>
#include "internal.h"
#include "context_inline.h"

struct xtap_psc {
	const struct xtap_process_syscall_spec *spec;
	struct xtap_exe_id exe; /* process("PATH"): ino 0 if PATH is missing */
};

static struct xtap_psc *xtap_pscs;
static u32 xtap_npscs;
static const char *const xtap_psc_tp_names[2] = { "sys_enter", "sys_exit" };
static struct tracepoint *xtap_psc_tp[2];
static bool xtap_psc_armed[2];

static bool xtap_psc_matches(const struct xtap_psc *p, bool is_return,
			     pid_t tgid)
{
	const struct xtap_process_syscall_spec *spec = p->spec;

	if (spec->is_return != is_return || (spec->pid && spec->pid != tgid))
		return false;
	return !spec->path || xtap_current_exe_is(&p->exe);
}
NOKPROBE_SYMBOL(xtap_psc_matches);

/* The values of c->args[]: number, six arguments, return value. */
static void xtap_psc_values(struct pt_regs *regs, long ret, u64 *v)
{
	unsigned long argv[6];
	int i;

	v[0] = (u64)syscall_get_nr(current, regs);
	syscall_get_arguments(current, regs, argv);
	for (i = 0; i < 6; i++)
		v[i + 1] = argv[i];
	v[7] = (u64)ret;
}
NOKPROBE_SYMBOL(xtap_psc_values);

static void xtap_psc_fire(bool is_return, struct pt_regs *regs, long ret)
{
	pid_t tgid = task_tgid_nr(current);
	bool ready = false;
	u64 values[8];
	u32 i;

	/* kernel threads make no system calls of a process */
	if (!current->mm || (current->flags & PF_KTHREAD))
		return;
	for (i = 0; i < xtap_npscs; i++) {
		const struct xtap_probe *probe = xtap_pscs[i].spec->probe;
		struct xtap_context *c;

		if (!xtap_psc_matches(&xtap_pscs[i], is_return, tgid))
			continue;
		if (!ready) {
			if (xtap_sess.target > 0 && !xtap_target_set_pid(tgid))
				return;
			xtap_psc_values(regs, ret, values);
			ready = true;
		}
		c = xtap_enter_inline(probe, NULL);
		if (!c)
			continue;
		c->args = values;
		c->syscall_regs = regs;
		probe->handler(c);
		c->args = NULL;
		c->syscall_regs = NULL;
		xtap_leave_inline(c);
	}
}
NOKPROBE_SYMBOL(xtap_psc_fire);

static void xtap_psc_enter(void *data, struct pt_regs *regs, long id)
{
	xtap_psc_fire(false, regs, 0);
}
NOKPROBE_SYMBOL(xtap_psc_enter);

static void xtap_psc_exit(void *data, struct pt_regs *regs, long ret)
{
	xtap_psc_fire(true, regs, ret);
}
NOKPROBE_SYMBOL(xtap_psc_exit);

static void *const xtap_psc_callbacks[2] = { xtap_psc_enter, xtap_psc_exit };

static int xtap_psc_alloc(const void *specs, u32 n)
{
	const struct xtap_process_syscall_spec *s = specs;
	u32 i;

	if (!n)
		return 0;
	xtap_pscs = kcalloc(n, sizeof(*xtap_pscs), GFP_KERNEL);
	if (!xtap_pscs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		xtap_pscs[i].spec = &s[i];
	xtap_npscs = n;
	return 0;
}

static void xtap_psc_find(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < 2; i++)
		if (!strcmp(tp->name, xtap_psc_tp_names[i]))
			xtap_psc_tp[i] = tp;
}

static void xtap_psc_disarm(void)
{
	bool any = false;
	int i;

	for (i = 0; i < 2; i++) {
		if (!xtap_psc_armed[i])
			continue;
		tracepoint_probe_unregister(xtap_psc_tp[i],
					    xtap_psc_callbacks[i], NULL);
		xtap_psc_armed[i] = false;
		any = true;
	}
	/* No callback of ours runs or starts after this. */
	if (any)
		tracepoint_synchronize_unregister();
}

/* Looks PATH up for each spec that names one; which tracepoints are needed. */
static int xtap_psc_find_programs(bool need[2])
{
	u32 i;

	for (i = 0; i < xtap_npscs; i++) {
		const struct xtap_process_syscall_spec *spec =
			xtap_pscs[i].spec;
		int err = spec->path ? xtap_exe_lookup(spec->path,
						       &xtap_pscs[i].exe) :
				       0;

		if (err && spec->optional)
			continue;
		if (err) {
			xtap_fatal("cannot register %s at %s: %s: %s (%d)",
				   spec->probe->point, spec->probe->location,
				   spec->path, xtap_errno_text(err), err);
			return err;
		}
		need[spec->is_return ? 1 : 0] = true;
	}
	return 0;
}

static int xtap_psc_arm(void)
{
	bool need[2] = { false, false };
	int err = xtap_psc_find_programs(need);
	int i;

	if (err)
		return err;
	xtap_psc_tp[0] = xtap_psc_tp[1] = NULL;
	for_each_kernel_tracepoint(xtap_psc_find, NULL);
	for (i = 0; i < 2; i++) {
		if (!need[i])
			continue;
		err = xtap_psc_tp[i] ?
			      tracepoint_probe_register(xtap_psc_tp[i],
							xtap_psc_callbacks[i],
							NULL) :
			      -ENOENT;
		if (err) {
			xtap_fatal(
				"cannot register the raw_syscalls:%s tracepoint that process(...).syscall needs: %s (%d)",
				xtap_psc_tp_names[i], xtap_errno_text(err),
				err);
			xtap_psc_disarm();
			return err;
		}
		xtap_psc_armed[i] = true;
	}
	return 0;
}

static void xtap_psc_free(void)
{
	kfree(xtap_pscs);
	xtap_pscs = NULL;
	xtap_npscs = 0;
}

const struct xtap_family_ops xtap_process_syscall_ops = {
	.name = "process_syscall",
	.alloc = xtap_psc_alloc,
	.arm = xtap_psc_arm,
	.disarm = xtap_psc_disarm,
	.free = xtap_psc_free,
};
