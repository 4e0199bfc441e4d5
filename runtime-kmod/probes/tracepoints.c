// SPDX-License-Identifier: GPL-2.0
/* kernel.trace("...") provider: callbacks on the kernel's tracepoints. */
#include <linux/compat.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>
#include "internal.h"
#include "context_inline.h"

struct xtap_tracepoint {
	const struct xtap_tracepoint_spec *spec;
	struct tracepoint
		*tp; /* found at arm time; NULL if the kernel has none */
	bool armed;
	u32 next_same_nr; /* syscall events: 1 + the next spec of this syscall, 0 ends */
};

static struct xtap_tracepoint *xtap_tps;
static u32 xtap_ntps;

/*
 * The syscall events: for each raw tracepoint (0 sys_enter, 1 sys_exit) and
 * syscall number, 1 + the first spec of that syscall (0: none). One
 * dispatcher per raw tracepoint runs them, so that `syscall.*` costs one
 * callback per syscall rather than one per probed syscall.
 */
#define XTAP_SYSCALL_SLOTS 1024
static u32 (*xtap_sc_first)[XTAP_SYSCALL_SLOTS];
static struct tracepoint *xtap_sc_tp[2];
static bool xtap_sc_armed[2];
static const char *const xtap_sc_tp_names[2] = { "sys_enter", "sys_exit" };

static void xtap_tracepoint_run_regs(const struct xtap_tracepoint_spec *spec,
				     const u64 *args,
				     struct pt_regs *syscall_regs)
{
	struct xtap_context *c = xtap_enter_inline(spec->probe, NULL);

	if (!c)
		return;
	c->args = args;
	c->syscall_regs = syscall_regs;
	spec->probe->handler(c);
	c->args = NULL;
	c->syscall_regs = NULL;
	xtap_leave_inline(c);
}
NOKPROBE_SYMBOL(xtap_tracepoint_run_regs);

void xtap_tracepoint_run(void *data, const u64 *args)
{
	xtap_tracepoint_run_regs(data, args, NULL);
}
NOKPROBE_SYMBOL(xtap_tracepoint_run);

u64 xtap_probe_arg(struct xtap_context *c, int n)
{
	unsigned long argv[6];

	if (n < 1 || n > 6)
		return 0;
	if (c->regs)
		return regs_get_kernel_argument(c->regs, n - 1);
	if (!c->syscall_regs)
		return 0;
	syscall_get_arguments(current, c->syscall_regs, argv);
	return argv[n - 1];
}

static void xtap_syscall_dispatch(int dir, struct pt_regs *regs, long nr,
				  long arg)
{
	const u64 args[] = { (u64)(unsigned long)regs, (u64)arg };
	u32 i;

	if (nr < 0 || nr >= XTAP_SYSCALL_SLOTS)
		return;
	for (i = xtap_sc_first[dir][nr]; i; i = xtap_tps[i - 1].next_same_nr)
		xtap_tracepoint_run_regs(xtap_tps[i - 1].spec, args, regs);
}
NOKPROBE_SYMBOL(xtap_syscall_dispatch);

/* The raw_syscalls tracepoints' prototypes. */
static void xtap_sys_enter_cb(void *data, struct pt_regs *regs, long id)
{
	if (!in_compat_syscall())
		xtap_syscall_dispatch(0, regs, id, id);
}
NOKPROBE_SYMBOL(xtap_sys_enter_cb);

/*
 * The table is indexed by native syscall numbers; a 32-bit task's numbers
 * mean other calls, so its syscalls are left out on both sides.
 */
static void xtap_sys_exit_cb(void *data, struct pt_regs *regs, long ret)
{
	if (!in_compat_syscall())
		xtap_syscall_dispatch(1, regs, xtap_syscall_nr(regs), ret);
}
NOKPROBE_SYMBOL(xtap_sys_exit_cb);

static void *const xtap_sc_callbacks[2] = { xtap_sys_enter_cb,
					    xtap_sys_exit_cb };

static int xtap_syscall_dir(const struct xtap_tracepoint_spec *spec)
{
	if (spec->syscall_nr < 0)
		return -1;
	return strcmp(spec->name, xtap_sc_tp_names[0]) ? 1 : 0;
}

/* The syscall events: the raw tracepoints' first argument is the regs. */
u64 xtap_syscall_arg(struct xtap_context *c, int i)
{
	unsigned long argv[6];

	if (!c->args || i < 0 || i >= 6)
		return 0;
	syscall_get_arguments(
		current, (struct pt_regs *)(unsigned long)c->args[0], argv);
	return argv[i];
}

long xtap_syscall_nr(const void *regs)
{
	if (in_compat_syscall())
		return -1;
	return syscall_get_nr(current, (struct pt_regs *)regs);
}

static int xtap_tracepoints_alloc(const void *specs, u32 n)
{
	const struct xtap_tracepoint_spec *tspecs = specs;
	u32 i;

	if (!n)
		return 0;
	xtap_tps = kcalloc(n, sizeof(*xtap_tps), GFP_KERNEL);
	if (!xtap_tps)
		return -ENOMEM;
	xtap_ntps = n;
	for (i = 0; i < n; i++)
		xtap_tps[i].spec = &tspecs[i];
	for (i = 0; i < n; i++)
		if (tspecs[i].syscall_nr >= XTAP_SYSCALL_SLOTS)
			return -EINVAL;
	for (i = 0; i < n; i++)
		if (tspecs[i].syscall_nr >= 0)
			break;
	if (i == n)
		return 0;
	xtap_sc_first = kcalloc(2, sizeof(*xtap_sc_first), GFP_KERNEL);
	if (!xtap_sc_first)
		return -ENOMEM;
	/* Chained in reverse, so that each syscall runs its probes in script order. */
	for (i = n; i-- > 0;) {
		int dir = xtap_syscall_dir(&tspecs[i]);
		s32 nr = tspecs[i].syscall_nr;

		if (dir < 0)
			continue;
		xtap_tps[i].next_same_nr = xtap_sc_first[dir][nr];
		xtap_sc_first[dir][nr] = i + 1;
	}
	return 0;
}

static void xtap_tracepoints_free(void)
{
	kfree(xtap_sc_first);
	xtap_sc_first = NULL;
	kfree(xtap_tps);
	xtap_tps = NULL;
	xtap_ntps = 0;
}

/*
 * Every built-in tracepoint, exported to modules or not, by name. Specs
 * are few and tracepoints a couple of thousand: a linear match per
 * tracepoint at arm time is cheap enough.
 */
static void xtap_tracepoint_find(struct tracepoint *tp, void *priv)
{
	u32 i;

	for (i = 0; i < xtap_ntps; i++)
		if (!xtap_tps[i].tp &&
		    !strcmp(tp->name, xtap_tps[i].spec->name))
			xtap_tps[i].tp = tp;
	for (i = 0; i < 2; i++)
		if (!strcmp(tp->name, xtap_sc_tp_names[i]))
			xtap_sc_tp[i] = tp;
}

static void xtap_tracepoints_disarm(void);

static int xtap_tracepoints_arm(void)
{
	u32 i;
	int err;

	for (i = 0; i < xtap_ntps; i++)
		xtap_tps[i].tp = NULL;
	xtap_sc_tp[0] = xtap_sc_tp[1] = NULL;
	for_each_kernel_tracepoint(xtap_tracepoint_find, NULL);
	for (i = 0; i < xtap_ntps; i++) {
		struct xtap_tracepoint *xt = &xtap_tps[i];
		const struct xtap_tracepoint_spec *spec = xt->spec;
		int dir = xtap_syscall_dir(spec);

		if (dir >= 0 && xtap_sc_armed[dir])
			continue;
		if (dir >= 0)
			err = xt->tp ? tracepoint_probe_register(
					       xt->tp, xtap_sc_callbacks[dir],
					       NULL) :
				       -ENOENT;
		else
			err = xt->tp ? tracepoint_probe_register(xt->tp,
								 spec->callback,
								 (void *)spec) :
				       -ENOENT;
		if (!err && dir >= 0) {
			xtap_sc_armed[dir] = true;
			continue;
		}
		if (!err) {
			xt->armed = true;
			continue;
		}
		if (spec->optional)
			continue;
		if (!xt->tp)
			xtap_fatal(
				"cannot register %s at %s: this kernel has no tracepoint %s",
				spec->probe->point, spec->probe->location,
				spec->name);
		else
			xtap_fatal("cannot register %s at %s: %s (%d)",
				   spec->probe->point, spec->probe->location,
				   xtap_errno_text(err), err);
		xtap_tracepoints_disarm();
		return err;
	}
	return 0;
}

static void xtap_tracepoints_disarm(void)
{
	bool any = false;
	u32 i;

	for (i = 0; i < xtap_ntps; i++) {
		struct xtap_tracepoint *xt = &xtap_tps[i];

		if (!xt->armed)
			continue;
		tracepoint_probe_unregister(xt->tp, xt->spec->callback,
					    (void *)xt->spec);
		xt->armed = false;
		any = true;
	}
	for (i = 0; i < 2; i++) {
		if (!xtap_sc_armed[i])
			continue;
		tracepoint_probe_unregister(xtap_sc_tp[i], xtap_sc_callbacks[i],
					    NULL);
		xtap_sc_armed[i] = false;
		any = true;
	}
	/* No callback of ours runs or starts after this. */
	if (any)
		tracepoint_synchronize_unregister();
}

const struct xtap_family_ops xtap_tracepoint_ops = {
	.name = "tracepoint",
	.alloc = xtap_tracepoints_alloc,
	.arm = xtap_tracepoints_arm,
	.disarm = xtap_tracepoints_disarm,
	.free = xtap_tracepoints_free,
};
