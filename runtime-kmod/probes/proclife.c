// SPDX-License-Identifier: GPL-2.0
/*
 * process("PATH").begin/.end/.thread.begin/.thread.end: a task of a
 * process whose executable is PATH starts or ends, in its own context.
 *
 * Three hooks serve every spec, registered only when a spec needs them:
 *   - the sched_process_exec tracepoint: a process has exec'ed (begin, in
 *     its new program, as stap's process.begin on exec);
 *   - a kprobe on schedule_tail: a forked task's first run, in the child
 *     (begin for a process forked by one running PATH, thread.begin for a
 *     new thread), as the tapset's process.begin;
 *   - a kprobe on do_exit: the task is leaving, its mm still attached
 *     (sched_process_exit comes after exit_mm(), too late to see the
 *     executable).
 * PATH is matched by the inode and device of the executable's file
 * (mm->exe_file), looked up once at arm time, not by name (exe_match.c).
 *
 * Processes already running when the session starts get no begin: stap
 * runs their begin in their context through task_work, but
 * task_work_cancel() is not exported, so a work still queued when the
 * module unloads could not be taken back.
 */
#include <linux/binfmts.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include "internal.h"

struct xtap_proclife {
	const struct xtap_proclife_spec *spec;
	struct xtap_exe_id exe; /* ino 0: not armed */
};

static struct xtap_proclife *xtap_pls;
static u32 xtap_npls;
static struct tracepoint *xtap_pl_exec_tp;
static bool xtap_pl_exec_armed, xtap_pl_fork_armed, xtap_pl_exit_armed;

/* Runs the specs of `event` that match the current task. */
static void xtap_pl_fire(u8 event, struct pt_regs *regs)
{
	pid_t tgid = task_tgid_nr(current);
	u32 i;

	if (xtap_sess.target > 0 && !xtap_target_set_pid(tgid))
		return;
	for (i = 0; i < xtap_npls; i++) {
		const struct xtap_proclife_spec *spec = xtap_pls[i].spec;
		struct xtap_context *c;

		if (spec->event != event || (spec->pid && spec->pid != tgid))
			continue;
		if (!xtap_current_exe_is(&xtap_pls[i].exe))
			continue;
		c = xtap_enter(spec->probe, regs);
		if (!c)
			continue;
		spec->probe->handler(c);
		xtap_leave(c);
	}
}
NOKPROBE_SYMBOL(xtap_pl_fire);

static void xtap_pl_exec(void *data, struct task_struct *p, pid_t old_pid,
			 struct linux_binprm *bprm)
{
	xtap_pl_fire(XTAP_PROC_BEGIN, NULL);
}
NOKPROBE_SYMBOL(xtap_pl_exec);

static int xtap_pl_fork(struct kprobe *kp, struct pt_regs *regs)
{
	xtap_pl_fire(current->pid == current->tgid ? XTAP_PROC_BEGIN :
						     XTAP_PROC_THREAD_BEGIN,
		     regs);
	return 0;
}
NOKPROBE_SYMBOL(xtap_pl_fork);

static int xtap_pl_exit(struct kprobe *kp, struct pt_regs *regs)
{
	xtap_pl_fire(current->pid == current->tgid ? XTAP_PROC_END :
						     XTAP_PROC_THREAD_END,
		     regs);
	return 0;
}
NOKPROBE_SYMBOL(xtap_pl_exit);

static struct kprobe xtap_pl_fork_kp = { .symbol_name = "schedule_tail",
					 .pre_handler = xtap_pl_fork };
static struct kprobe xtap_pl_exit_kp = { .symbol_name = "do_exit",
					 .pre_handler = xtap_pl_exit };

static int xtap_proclife_alloc(const void *specs, u32 n)
{
	const struct xtap_proclife_spec *s = specs;
	u32 i;

	if (!n)
		return 0;
	xtap_pls = kcalloc(n, sizeof(*xtap_pls), GFP_KERNEL);
	if (!xtap_pls)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		xtap_pls[i].spec = &s[i];
	xtap_npls = n;
	return 0;
}

static void xtap_pl_find_exec(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		xtap_pl_exec_tp = tp;
}

static void xtap_proclife_disarm(void)
{
	if (xtap_pl_exec_armed) {
		tracepoint_probe_unregister(xtap_pl_exec_tp, xtap_pl_exec,
					    NULL);
		tracepoint_synchronize_unregister();
		xtap_pl_exec_armed = false;
	}
	/* unregister_kprobe() waits until no handler runs */
	if (xtap_pl_fork_armed) {
		unregister_kprobe(&xtap_pl_fork_kp);
		xtap_pl_fork_armed = false;
	}
	if (xtap_pl_exit_armed) {
		unregister_kprobe(&xtap_pl_exit_kp);
		xtap_pl_exit_armed = false;
	}
}

/* A kprobe can be registered once: clear what the last session left. */
static int xtap_pl_kprobe(struct kprobe *kp, bool *armed)
{
	const char *sym = kp->symbol_name;
	void *handler = kp->pre_handler;
	int err;

	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = sym;
	kp->pre_handler = handler;
	err = register_kprobe(kp);
	*armed = !err;
	if (err)
		xtap_fatal(
			"cannot register the kprobe on %s that process(...).begin/.end need: %s (%d)",
			sym, xtap_errno_text(err), err);
	return err;
}

static int xtap_proclife_arm(void)
{
	bool begin = false, fork = false, exit = false;
	u32 i;
	int err = 0;

	for (i = 0; i < xtap_npls; i++) {
		const struct xtap_proclife_spec *spec = xtap_pls[i].spec;

		err = xtap_exe_lookup(spec->path, &xtap_pls[i].exe);
		if (err) {
			if (spec->optional)
				continue;
			xtap_fatal("cannot register %s at %s: %s: %s (%d)",
				   spec->probe->point, spec->probe->location,
				   spec->path, xtap_errno_text(err), err);
			return err;
		}
		begin |= spec->event == XTAP_PROC_BEGIN;
		fork |= spec->event == XTAP_PROC_BEGIN ||
			spec->event == XTAP_PROC_THREAD_BEGIN;
		exit |= spec->event == XTAP_PROC_END ||
			spec->event == XTAP_PROC_THREAD_END;
	}
	if (begin) {
		for_each_kernel_tracepoint(xtap_pl_find_exec, NULL);
		err = xtap_pl_exec_tp ?
			      tracepoint_probe_register(xtap_pl_exec_tp,
							xtap_pl_exec, NULL) :
			      -ENOENT;
		if (err) {
			xtap_fatal(
				"cannot register the sched_process_exec tracepoint that process(...).begin needs: %s (%d)",
				xtap_errno_text(err), err);
			return err;
		}
		xtap_pl_exec_armed = true;
	}
	if (fork)
		err = xtap_pl_kprobe(&xtap_pl_fork_kp, &xtap_pl_fork_armed);
	if (!err && exit)
		err = xtap_pl_kprobe(&xtap_pl_exit_kp, &xtap_pl_exit_armed);
	if (err)
		xtap_proclife_disarm();
	return err;
}

static void xtap_proclife_free(void)
{
	kfree(xtap_pls);
	xtap_pls = NULL;
	xtap_npls = 0;
}

const struct xtap_family_ops xtap_proclife_ops = {
	.name = "proclife",
	.alloc = xtap_proclife_alloc,
	.arm = xtap_proclife_arm,
	.disarm = xtap_proclife_disarm,
	.free = xtap_proclife_free,
};
