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

struct xtap_tracepoint {
	const struct xtap_tracepoint_spec *spec;
	struct tracepoint *tp;	/* found at arm time; NULL if the kernel has none */
	bool armed;
};

static struct xtap_tracepoint *xtap_tps;
static u32 xtap_ntps;

void xtap_tracepoint_run(void *data, const u64 *args)
{
	const struct xtap_tracepoint_spec *spec = data;
	struct xtap_context *c = xtap_enter(spec->probe, NULL);

	if (!c)
		return;
	c->args = args;
	spec->probe->handler(c);
	c->args = NULL;
	xtap_leave(c);
}
NOKPROBE_SYMBOL(xtap_tracepoint_run);

/* The syscall events: the raw tracepoints' first argument is the regs. */
u64 xtap_syscall_arg(struct xtap_context *c, int i)
{
	unsigned long argv[6];

	if (!c->args || i < 0 || i >= 6)
		return 0;
	syscall_get_arguments(current, (struct pt_regs *)(unsigned long)c->args[0], argv);
	return argv[i];
}

bool xtap_syscall_compat(void)
{
	return in_compat_syscall();
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
	return 0;
}

static void xtap_tracepoints_free(void)
{
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
		if (!xtap_tps[i].tp && !strcmp(tp->name, xtap_tps[i].spec->name))
			xtap_tps[i].tp = tp;
}

static void xtap_tracepoints_disarm(void);

static int xtap_tracepoints_arm(void)
{
	u32 i;
	int err;

	for (i = 0; i < xtap_ntps; i++)
		xtap_tps[i].tp = NULL;
	for_each_kernel_tracepoint(xtap_tracepoint_find, NULL);
	for (i = 0; i < xtap_ntps; i++) {
		struct xtap_tracepoint *xt = &xtap_tps[i];
		const struct xtap_tracepoint_spec *spec = xt->spec;

		err = xt->tp ? tracepoint_probe_register(xt->tp, spec->callback, (void *)spec) : -ENOENT;
		if (!err) {
			xt->armed = true;
			continue;
		}
		if (spec->optional)
			continue;
		if (!xt->tp)
			xtap_fatal("cannot register %s at %s: this kernel has no tracepoint %s",
				   spec->probe->point, spec->probe->location, spec->name);
		else
			xtap_fatal("cannot register %s at %s: %s (%d)", spec->probe->point,
				   spec->probe->location, xtap_errno_text(err), err);
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
		tracepoint_probe_unregister(xt->tp, xt->spec->callback, (void *)xt->spec);
		xt->armed = false;
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
