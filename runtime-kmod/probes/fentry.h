/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function-entry probes through one ftrace_ops per probe family (fentry.c):
 * add the functions (each is checked to be traceable), arm once, disarm
 * once. The family's own ftrace callback finds its probes by the call's
 * address (xtap_fentry_find), so that a hit costs no indirect call
 * before the script's handler.
 */
#ifndef XTAP_PROBES_FENTRY_H
#define XTAP_PROBES_FENTRY_H

#include <linux/ftrace.h>
#include <linux/types.h>

struct xtap_fentry_site {
	unsigned long ip; /* the function's __fentry__ call */
	u32 seq; /* order of adding: probes on one function run in it */
	void *owner;
};

struct xtap_fentry {
	struct ftrace_ops ops;
	struct xtap_fentry_site *sites; /* by ip (then seq) once armed */
	u32 nsites, cap;
	/*
	 * Open addressing on the address, built at arming: 1 + the index of
	 * the first site at an ip, 0 for an empty slot; twice as many slots
	 * as sites or more, so that a hit looks at one or two whatever the
	 * number of functions armed.
	 */
	u32 *index;
	u32 index_mask;
	bool registered;
	atomic64_t
		missed; /* calls ftrace's recursion guard kept from the callback */
};

/*
 * `func` must take ftrace's recursion guard itself (ftrace_test_recursion_
 * trylock(), which also keeps preemption off): the ops says so, which
 * spares a wrapper around it.
 */
struct xtap_fentry *xtap_fentry_new(ftrace_func_t func, u32 max_sites);
/* `ip`: a function's __fentry__ call. 0, or -EBUSY when full or armed. */
int xtap_fentry_add(struct xtap_fentry *fe, unsigned long ip, void *owner);
/*
 * Filters on every site's address (in batches) and registers the ops. The
 * sites whose address ftrace refused (it cannot trace the function) are
 * left with ip 0, first in fe->sites: the caller gives them kprobes.
 * Registered only if some site is left.
 */
int xtap_fentry_arm(struct xtap_fentry *fe);
/* Returns the calls ftrace's recursion guard kept from the callback. */
u64 xtap_fentry_disarm(struct xtap_fentry *fe);
void xtap_fentry_free(struct xtap_fentry *fe);

static __always_inline u32 xtap_fentry_slot(unsigned long ip, u32 mask)
{
	/* The low bits of a code address are few; a multiplicative hash. */
	return (u32)((ip * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* The first site at `ip`, or NULL; the others at `ip` follow it. */
static __always_inline const struct xtap_fentry_site *
xtap_fentry_find(const struct xtap_fentry *fe, unsigned long ip)
{
	u32 h = xtap_fentry_slot(ip, fe->index_mask), i;

	while ((i = fe->index[h]) != 0) {
		if (fe->sites[i - 1].ip == ip)
			return &fe->sites[i - 1];
		h = (h + 1) & fe->index_mask;
	}
	return NULL;
}

#endif
