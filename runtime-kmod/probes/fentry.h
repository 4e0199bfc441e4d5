/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function-entry probes through one ftrace_ops per probe family (fentry.c):
 * add the functions (each is checked to be traceable), arm once, disarm
 * once. The hit callback runs with preemption off and ftrace's recursion
 * guard held, with the full registers of the function's entry.
 */
#ifndef XTAP_PROBES_FENTRY_H
#define XTAP_PROBES_FENTRY_H

#include <linux/types.h>

struct pt_regs;
struct xtap_fentry;

/* `ip`: the function's __fentry__ call site, where a kprobe would be. */
typedef void (*xtap_fentry_hit_fn)(void *owner, unsigned long ip, struct pt_regs *regs);

struct xtap_fentry *xtap_fentry_new(xtap_fentry_hit_fn hit, u32 max_sites);
/*
 * `ip`: a function's __fentry__ call. 0, or why ftrace cannot call `owner`'s
 * probe there (the caller uses a kprobe).
 */
int xtap_fentry_add(struct xtap_fentry *fe, unsigned long ip, void *owner);
int xtap_fentry_arm(struct xtap_fentry *fe);
/* Returns the calls ftrace's recursion guard kept from the callback. */
u64 xtap_fentry_disarm(struct xtap_fentry *fe);
void xtap_fentry_free(struct xtap_fentry *fe);

#endif
