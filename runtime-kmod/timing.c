// SPDX-License-Identifier: GPL-2.0
/*
 * -t: per-probe hit counts and handler cycles, and the report printed at
 * the end of the session in stap's words ("----- probe hit report:").
 *
 * Only a script built with -t has timed handlers (a generated wrapper that
 * calls xtap_timing_add), so a session without -t pays nothing on its hot
 * path. The counters are per CPU and touched with interrupts off, so a hit
 * takes no lock and no atomic; the report sums the CPUs after every probe
 * is disarmed and the end probes have run.
 */
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timex.h>
#include "cpu_array.h"
#include "internal.h"

struct xtap_timing_stat {
	u64 count;
	u64 sum;
	u64 min;
	u64 max;
};

int xtap_timing_alloc(const struct xtap_script *s)
{
	if (!s->timing || !s->ntiming)
		return 0;
	/*
	 * 32 bytes a probe: __alloc_percpu() refused more than 1024 probes
	 * (syscall.* and syscall.*.return with -t).
	 */
	xtap_sess.timing = (struct xtap_timing_stat **)xtap_cpu_array_alloc(
		array_size(s->ntiming, sizeof(struct xtap_timing_stat)));
	return xtap_sess.timing ? 0 : -ENOMEM;
}

void xtap_timing_free(void)
{
	xtap_cpu_array_free((void **)xtap_sess.timing);
	xtap_sess.timing = NULL;
}

void xtap_timing_add(struct xtap_context *c, u64 start)
{
	u64 cycles = get_cycles() - start;
	u32 i = c->probe->timing;
	struct xtap_timing_stat *t;

	if (unlikely(!xtap_sess.timing || !i || i > xtap_sess.script->ntiming))
		return;
	t = xtap_sess.timing[raw_smp_processor_id()] + (i - 1);
	if (!t->count || cycles < t->min)
		t->min = cycles;
	if (cycles > t->max)
		t->max = cycles;
	t->sum += cycles;
	t->count++;
}

/* One line of the report as one text record of the output stream. */
static void xtap_timing_line(char *buf, u32 cap, const char *fmt, ...)
	__printf(3, 4);
static void xtap_timing_line(char *buf, u32 cap, const char *fmt, ...)
{
	struct xtap_rec_hdr *h = (struct xtap_rec_hdr *)buf;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + sizeof(*h), cap - sizeof(*h), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = min_t(int, n, cap - sizeof(*h) - 1);
	h->size = sizeof(*h) + n;
	h->type = XTAP_REC_TEXT;
	h->flags = 0;
	xtap_relay_write(h, h->size);
}

/*
 * Probe i's counters summed over the CPUs. While handlers run, a CPU's
 * counters may be read mid-update: a snapshot may be one hit behind.
 */
void xtap_timing_read(u32 i, u64 *count, u64 *sum, u64 *min, u64 *max)
{
	int cpu;

	*count = *sum = *min = *max = 0;
	if (!xtap_sess.timing || i >= xtap_sess.script->ntiming)
		return;
	for_each_possible_cpu(cpu) {
		const struct xtap_timing_stat *t = xtap_sess.timing[cpu] + i;
		u64 n = READ_ONCE(t->count);

		if (!n)
			continue;
		if (!*count || READ_ONCE(t->min) < *min)
			*min = READ_ONCE(t->min);
		*max = max(*max, READ_ONCE(t->max));
		*sum += READ_ONCE(t->sum);
		*count += n;
	}
}

/*
 * After the end probes: one line per probe that ran, as stap prints it:
 *   PP, (LOCATION), hits: N, cycles: MINmin/AVGavg/MAXmax, from: DERIVATION, index: I
 */
void xtap_timing_report(void)
{
	const struct xtap_script *s = xtap_sess.script;
	u32 cap = min_t(u32, 4096, xtap_relay_max_record());
	char lost[256];
	char *buf;
	u32 i;

	if (!xtap_sess.timing)
		return;
	buf = kmalloc(cap, GFP_KERNEL);
	if (!buf)
		return;
	xtap_timing_line(buf, cap, "----- probe hit report: \n");
	for (i = 0; i < s->ntiming; i++) {
		const struct xtap_timing_desc *d = &s->timing[i];
		struct xtap_timing_stat all;

		xtap_timing_read(i, &all.count, &all.sum, &all.min, &all.max);
		if (!all.count)
			continue;
		/* What the probe lost, after stap's fields, only if anything. */
		if (!xtap_probe_acct_line(d->id, lost, sizeof(lost)))
			lost[0] = 0;
		xtap_timing_line(
			buf, cap,
			"%s, (%s), hits: %llu, cycles: %llumin/%lluavg/%llumax, from: %s, index: %u%s\n",
			d->point, d->location, all.count, all.min,
			div64_u64(all.sum, all.count), all.max, d->derivation,
			i, lost);
	}
	kfree(buf);
}
