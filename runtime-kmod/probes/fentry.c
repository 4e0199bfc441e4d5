// SPDX-License-Identifier: GPL-2.0
/*
 * Function entry through ftrace: kernel.function("f") and .call probes on
 * functions the kernel can trace are called from the function's __fentry__
 * site by one ftrace_ops of our own, instead of through a kprobe. A kprobe
 * on the same site rides ftrace too, but through the kprobes' shared ops and
 * its handler (the kprobe table's lookup, current_kprobe, the kprobe status
 * per CPU) before ours; an ops of our own gets a trampoline that calls the
 * family's callback (kprobes.c) directly. Functions ftrace cannot trace
 * (notrace, the syscall wrappers), module functions and what kprobes
 * refuse stay with kprobes (kprobes.c).
 *
 * The ops saves the full register set (FTRACE_OPS_FL_SAVE_REGS), so that a
 * handler sees what a kprobe's would: every register, for $vars, register()
 * and guru-mode writes, and the stack unwinder.
 */
#include <linux/ftrace.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "internal.h"
#include "probes/fentry.h"

struct xtap_fentry *xtap_fentry_new(ftrace_func_t func, u32 max_sites)
{
	struct xtap_fentry *fe = kzalloc(sizeof(*fe), GFP_KERNEL);

	if (!fe)
		return NULL;
	fe->sites = kcalloc(max_sites ?: 1, sizeof(*fe->sites), GFP_KERNEL);
	if (!fe->sites) {
		kfree(fe);
		return NULL;
	}
	fe->cap = max_sites;
	fe->ops.func = func;
	fe->ops.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION;
	atomic64_set(&fe->missed, 0);
	return fe;
}

int xtap_fentry_add(struct xtap_fentry *fe, unsigned long ip, void *owner)
{
	int err;

	if (fe->registered || fe->nsites >= fe->cap)
		return -EBUSY;
	/* Fails (-EINVAL) unless ftrace can trace the function. */
	err = ftrace_set_filter_ip(&fe->ops, ip, 0, 0);
	if (err)
		return err;
	fe->sites[fe->nsites].ip = ip;
	fe->sites[fe->nsites].seq = fe->nsites;
	fe->sites[fe->nsites].owner = owner;
	fe->nsites++;
	return 0;
}

static int xtap_fentry_site_cmp(const void *a, const void *b)
{
	const struct xtap_fentry_site *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int xtap_fentry_arm(struct xtap_fentry *fe)
{
	int err;

	/* An ops with an empty filter would trace every function. */
	if (!fe->nsites)
		return 0;
	sort(fe->sites, fe->nsites, sizeof(*fe->sites), xtap_fentry_site_cmp,
	     NULL);
	err = register_ftrace_function(&fe->ops);
	if (err)
		return err;
	fe->registered = true;
	return 0;
}

/* Waits for callbacks in flight: unregistering synchronizes RCU tasks. */
u64 xtap_fentry_disarm(struct xtap_fentry *fe)
{
	if (fe->registered)
		unregister_ftrace_function(&fe->ops);
	fe->registered = false;
	return atomic64_xchg(&fe->missed, 0);
}

void xtap_fentry_free(struct xtap_fentry *fe)
{
	if (!fe)
		return;
	xtap_fentry_disarm(fe);
	ftrace_free_filter(&fe->ops);
	kfree(fe->sites);
	kfree(fe);
}
