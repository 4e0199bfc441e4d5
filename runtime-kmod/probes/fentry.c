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
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "internal.h"
#include "compat/ftrace.h"
#include "probes/fentry.h"

/*
 * Addresses given to ftrace's filter at once: each call copies the filter
 * hash once, and between calls the CPU is given up, so that thousands of
 * functions neither cost n^2 copies nor hold the CPU for long.
 */
#define XTAP_FENTRY_BATCH 1024

struct xtap_fentry *xtap_fentry_new(ftrace_func_t func, u32 max_sites)
{
	struct xtap_fentry *fe = kzalloc(sizeof(*fe), GFP_KERNEL);

	if (!fe)
		return NULL;
	fe->sites = kvcalloc(max_sites ?: 1, sizeof(*fe->sites), GFP_KERNEL);
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

/* Only noted here: xtap_fentry_arm() gives ftrace the filter in batches. */
int xtap_fentry_add(struct xtap_fentry *fe, unsigned long ip, void *owner)
{
	if (fe->registered || fe->nsites >= fe->cap)
		return -EBUSY;
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

static void xtap_fentry_sort(struct xtap_fentry *fe)
{
	sort(fe->sites, fe->nsites, sizeof(*fe->sites), xtap_fentry_site_cmp,
	     NULL);
}

/*
 * A batch ftrace refused as a whole (one address it cannot trace): the
 * addresses one at a time, the refused ones' sites marked with ip 0.
 */
static u32 xtap_fentry_filter_each(struct xtap_fentry *fe, u32 from, u32 to)
{
	u32 i, refused = 0;
	unsigned long ip;

	for (i = from; i < to; i++) {
		ip = fe->sites[i].ip;
		if (i > from && ip == fe->sites[i - 1].ip)
			continue;
		if (!ftrace_set_filter_ip(&fe->ops, ip, 0, 0))
			continue;
		for (; i < to && fe->sites[i].ip == ip; i++, refused++)
			fe->sites[i].ip = 0;
		i--;
	}
	return refused;
}

/*
 * Gives ftrace the sites' addresses (sorted, each once), a batch per
 * call. Returns how many sites ftrace refused (their ip is now 0), or
 * -ENOMEM.
 */
static int xtap_fentry_filter(struct xtap_fentry *fe)
{
	unsigned long *ips =
		kmalloc_array(XTAP_FENTRY_BATCH, sizeof(*ips), GFP_KERNEL);
	u32 from = 0, to, n, refused = 0;

	if (!ips)
		return -ENOMEM;
	while (from < fe->nsites) {
		for (n = 0, to = from; to < fe->nsites; to++) {
			unsigned long ip = fe->sites[to].ip;

			if (n && ips[n - 1] == ip)
				continue;
			if (n == XTAP_FENTRY_BATCH)
				break;
			ips[n++] = ip;
		}
		if (xtap_ftrace_set_filter_ips(&fe->ops, ips, n))
			refused += xtap_fentry_filter_each(fe, from, to);
		from = to;
		cond_resched();
	}
	kfree(ips);
	return refused;
}

/* The address index of the sorted sites (xtap_fentry_find). */
static int xtap_fentry_index(struct xtap_fentry *fe)
{
	u32 n = roundup_pow_of_two(2 * fe->nsites), i, h;

	fe->index = kvcalloc(n, sizeof(*fe->index), GFP_KERNEL);
	if (!fe->index)
		return -ENOMEM;
	fe->index_mask = n - 1;
	for (i = 0; i < fe->nsites; i++) {
		unsigned long ip = fe->sites[i].ip;

		if (!ip || (i && fe->sites[i - 1].ip == ip))
			continue;
		h = xtap_fentry_slot(ip, fe->index_mask);
		while (fe->index[h])
			h = (h + 1) & fe->index_mask;
		fe->index[h] = i + 1;
	}
	return 0;
}

int xtap_fentry_arm(struct xtap_fentry *fe)
{
	int err;

	/* An ops with an empty filter would trace every function. */
	if (!fe->nsites)
		return 0;
	xtap_fentry_sort(fe);
	err = xtap_fentry_filter(fe);
	if (err < 0)
		return err;
	/* The refused sites (ip 0) go first, before every real address. */
	if (err)
		xtap_fentry_sort(fe);
	if ((u32)err == fe->nsites)
		return 0;
	err = xtap_fentry_index(fe);
	if (err)
		return err;
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
	kvfree(fe->index);
	kvfree(fe->sites);
	kfree(fe);
}
