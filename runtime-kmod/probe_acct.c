// SPDX-License-Identifier: GPL-2.0
/*
 * Per-probe loss accounting: each probe's runs skipped (over its budget,
 * its CPU over the overload threshold, re-entry, a lock not had) and the
 * output records it wrote that found its CPU's buffer full. The counters
 * are per CPU and touched with interrupts off on their own CPU, so a hit
 * takes no lock and no atomic; they are summed once the probes are
 * disarmed, and sent to the runner as one PROBE_STATS message per probe
 * that lost something, and written on the -t report's lines.
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include "cpu_array.h"
#include "internal.h"

#define XTAP_PROBE_NAMES_MAX 1024 /* point and location, in one message */

int xtap_probe_acct_alloc(const struct xtap_script *s)
{
	const struct xtap_limits *l = &xtap_sess.limits;
	u32 i;

	xtap_sess.cpu_cap = l->overload_skip && l->overload_threshold ?
				    l->overload_threshold :
				    U64_MAX;
	xtap_sess.guard = l->overload_threshold != 0;
	if (!s->nprobes || !s->probe_descs)
		return 0;
	for (i = 0; i < s->nprobes; i++)
		if (s->probe_descs[i].budget_ns)
			xtap_sess.guard = true;
	/* 64 bytes a probe: past __alloc_percpu()'s limit at 512 probes. */
	xtap_sess.acct = (struct xtap_probe_acct **)xtap_cpu_array_alloc(
		array_size(s->nprobes, sizeof(struct xtap_probe_acct)));
	xtap_sess.budget_warned = bitmap_zalloc(s->nprobes, GFP_KERNEL);
	if (!xtap_sess.acct || !xtap_sess.budget_warned)
		return -ENOMEM;
	return 0;
}

void xtap_probe_acct_free(void)
{
	xtap_cpu_array_free((void **)xtap_sess.acct);
	xtap_sess.acct = NULL;
	bitmap_free(xtap_sess.budget_warned);
	xtap_sess.budget_warned = NULL;
}

/* This CPU's counters of p, or NULL for a probe without any (none so built). */
static struct xtap_probe_acct *xtap_acct_of(const struct xtap_probe *p)
{
	if (unlikely(!xtap_sess.acct || !p->id ||
		     p->id > xtap_sess.script->nprobes))
		return NULL;
	return xtap_probe_acct(p);
}

/* A run that could not begin (xtap_enter_refused), interrupts off. */
void xtap_probe_refused(const struct xtap_probe *p, bool reentrant)
{
	struct xtap_probe_acct *a = xtap_acct_of(p);

	if (!a)
		return;
	if (reentrant)
		a->skipped_reentrant++;
	else
		a->skipped_lock++;
}

/* A record of p's run that found the relay buffer full; interrupts off. */
void xtap_probe_dropped(const struct xtap_probe *p, u32 bytes)
{
	struct xtap_probe_acct *a = xtap_acct_of(p);

	if (!a)
		return;
	a->dropped_records++;
	a->dropped_bytes += bytes;
}

/*
 * A run the guard skipped, interrupts off: counted, and the first of each
 * probe (or the first of the session, for the CPU-wide threshold) told as
 * a warning, so that a user watching stderr learns it as it happens.
 */
void xtap_probe_over(const struct xtap_probe *p, bool cpu_wide)
{
	struct xtap_probe_acct *a = xtap_acct_of(p);
	const struct xtap_limits *l = &xtap_sess.limits;
	char msg[320];

	if (!a)
		return;
	if (cpu_wide) {
		a->skipped_overload++;
		if (atomic_xchg(&xtap_sess.overload_warned, 1))
			return;
		snprintf(
			msg, sizeof(msg),
			"handlers took more than STP_OVERLOAD_THRESHOLD=%llu of STP_OVERLOAD_INTERVAL=%llu cycles on CPU %d: "
			"runs on it are skipped and counted until the interval ends (XTAP_OVERLOAD=skip)",
			l->overload_threshold, l->overload_interval,
			smp_processor_id());
	} else {
		u32 i = p->id - 1;

		a->skipped_budget++;
		if (test_and_set_bit(i, xtap_sess.budget_warned))
			return;
		snprintf(
			msg, sizeof(msg),
			"probe %s (%s) is over its budget of %llu ns per second on CPU %d: its runs are skipped and counted until the interval ends",
			p->point, p->location,
			xtap_sess.script->probe_descs[i].budget_ns,
			smp_processor_id());
	}
	atomic64_inc(&xtap_sess.warnings);
	xtap_msg_text(XTAP_MSG_WARNING, msg);
}

/* Probe id's counters summed over the CPUs. */
static void xtap_probe_sum(u32 id, struct xtap_probe_acct *all)
{
	int cpu;

	memset(all, 0, sizeof(*all));
	if (!xtap_sess.acct || !id || id > xtap_sess.script->nprobes)
		return;
	for_each_possible_cpu(cpu) {
		const struct xtap_probe_acct *a =
			xtap_sess.acct[cpu] + (id - 1);

		all->skipped_budget += a->skipped_budget;
		all->skipped_overload += a->skipped_overload;
		all->skipped_reentrant += a->skipped_reentrant;
		all->skipped_lock += a->skipped_lock;
		all->dropped_records += a->dropped_records;
		all->dropped_bytes += a->dropped_bytes;
	}
}

static bool xtap_probe_lost(const struct xtap_probe_acct *a)
{
	return a->skipped_budget || a->skipped_overload ||
	       a->skipped_reentrant || a->skipped_lock || a->dropped_records;
}

/*
 * After the probes are disarmed, before DONE: one PROBE_STATS message per
 * probe that lost something, and the guard's totals into DONE. Messages
 * that do not fit the queue (the runner reads it only after STOP) are
 * counted in DONE, which the queue keeps room for.
 */
void xtap_probe_acct_report(struct xtap_done *d)
{
	const struct xtap_script *s = xtap_sess.script;
	char *names;
	u32 i;

	if (!xtap_sess.acct)
		return;
	names = kmalloc(XTAP_PROBE_NAMES_MAX, GFP_KERNEL);
	for (i = 0; i < s->nprobes; i++) {
		const struct xtap_probe_desc *pd = &s->probe_descs[i];
		struct xtap_probe_stats st = { .size = sizeof(st), .index = i };
		struct xtap_probe_acct all;
		u32 len = 0;

		xtap_probe_sum(i + 1, &all);
		d->skipped_budget += all.skipped_budget;
		d->skipped_overload += all.skipped_overload;
		if (!xtap_probe_lost(&all))
			continue;
		st.budget_ns = pd->budget_ns;
		st.skipped_budget = all.skipped_budget;
		st.skipped_overload = all.skipped_overload;
		st.skipped_reentrant = all.skipped_reentrant;
		st.skipped_lock = all.skipped_lock;
		st.dropped_records = all.dropped_records;
		st.dropped_bytes = all.dropped_bytes;
		if (names) {
			len = scnprintf(names, XTAP_PROBE_NAMES_MAX - 1, "%s",
					pd->point ?: "");
			names[len++] = 0;
			len += scnprintf(names + len,
					 XTAP_PROBE_NAMES_MAX - len, "%s",
					 pd->location ?: "");
			len++;
		}
		if (!xtap_msg_queue_parts(XTAP_MSG_PROBE_STATS, &st, sizeof(st),
					  names, names ? len : 0))
			d->probe_stats_lost++;
	}
	kfree(names);
}

/*
 * -t: what the report's line of probe id adds to stap's fields when the
 * probe lost something (", skipped: ..."); false when it lost nothing.
 */
bool xtap_probe_acct_line(u32 id, char *buf, size_t len)
{
	struct xtap_probe_acct a;

	xtap_probe_sum(id, &a);
	if (!xtap_probe_lost(&a))
		return false;
	snprintf(
		buf, len,
		", skipped: %llu over budget, %llu over threshold, %llu reentrant, %llu lock, dropped: %llu records (%llu bytes)",
		a.skipped_budget, a.skipped_overload, a.skipped_reentrant,
		a.skipped_lock, a.dropped_records, a.dropped_bytes);
	return true;
}
