// SPDX-License-Identifier: GPL-2.0
/* Statistics (<<<): per-CPU accumulation, stap-exact aggregation, scalar globals. */
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "cpu_array.h"
#include "internal.h"
#include "stat.h"

/*
 * A scalar statistic is added to without a lock (a probe whose only use of
 * it is <<< takes none, as in stap): each CPU adds to its own part with
 * interrupts off, and a handler never nests on its CPU. Readers and
 * `delete` hold the global's exclusive lock, so they exclude each other but
 * not the adders on other CPUs:
 * - a reader copies each part under its sequence count (odd while its CPU
 *   adds), so it never sees a half-made add;
 * - `delete` bumps the generation instead of zeroing other CPUs' parts
 *   under their feet; a part of an older generation reads as empty, and
 *   its CPU zeroes it before its next add.
 */
struct xtap_stat_part {
	u32 seq;
	u32 gen;
	struct xtap_stat_data d; /* with its histogram: l.size bytes */
};

struct xtap_stat_moments {
	s64 count, avg_s, variance_s;
};

struct xtap_stat {
	struct xtap_stat_layout l;
	u32 gen; /* bumped by xtap_stat_clear() */
	struct xtap_stat_part **parts; /* one per possible CPU */
	/* Pass 1's consistent view of each CPU, for pass 2 (readers are serialised). */
	struct xtap_stat_moments *moments;
};

#define XTAP_STAT_PART_SIZE(l) (offsetof(struct xtap_stat_part, d) + (l)->size)
#define XTAP_STAT_READ_TRIES 1000

static struct xtap_stat **xtap_stats;
static u16 xtap_nstats;
static void **xtap_scratch; /* per-CPU aggregate for extraction */
static void **xtap_part_copy; /* per-CPU copy of one part being read */

int xtap_stat_layout_init(struct xtap_stat_layout *l,
			  const struct xtap_stat_desc *d, const char *name)
{
	s64 buckets;

	l->desc = d;
	l->nbuckets = 0;
	if (d->bit_shift > 62) {
		xtap_init_error(
			"statistic '%s': @variance bit shift %u is not within 0..62",
			name, d->bit_shift);
		return -EINVAL;
	}
	switch (d->hist) {
	case XTAP_HIST_NONE:
		break;
	case XTAP_HIST_LOG:
		l->nbuckets = XTAP_HIST_LOG_BUCKETS;
		break;
	case XTAP_HIST_LINEAR:
		/*
		 * Checked here, not by the translator, as stap does: the
		 * session does not start, with stap's words.
		 */
		if (d->step == 0) {
			xtap_init_error(
				"statistic '%s': histogram: interval cannot be zero",
				name);
			return -EINVAL;
		}
		/* Like stap: one bucket per interval plus under- and overflow. */
		buckets = 0;
		if (d->step > 0)
			buckets = div64_s64((s64)((u64)d->hi - (u64)d->lo),
					    d->step) +
				  3;
		if (d->hi < d->lo || buckets < 3 ||
		    buckets > XTAP_HIST_MAX_BUCKETS) {
			xtap_init_error(
				"statistic '%s': histogram: Number of buckets must be between 1 and %d, (high - low) / step of @hist_linear(%lld, %lld, %lld)",
				name, XTAP_HIST_MAX_BUCKETS - 2, d->lo, d->hi,
				d->step);
			return -EINVAL;
		}
		l->nbuckets = buckets;
		break;
	default:
		xtap_init_error("statistic '%s': unknown histogram kind %u",
				name, d->hist);
		return -EINVAL;
	}
	l->npct = 0;
	l->pct_bits = d->pct_bits;
	if (d->pct_bits) {
		if (d->pct_bits < XTAP_PCT_MIN_BITS ||
		    d->pct_bits > XTAP_PCT_MAX_BITS) {
			xtap_init_error(
				"statistic '%s': percentile bits %u are not within %d..%d",
				name, d->pct_bits, XTAP_PCT_MIN_BITS,
				XTAP_PCT_MAX_BITS);
			return -EINVAL;
		}
		l->npct = XTAP_PCT_BUCKETS(d->pct_bits);
		l->pct_zero = l->nbuckets + XTAP_PCT_SIDE(d->pct_bits);
	}
	l->size = sizeof(struct xtap_stat_data) +
		  (l->nbuckets + l->npct) * sizeof(s64);
	return 0;
}

/* stap's _stp_div64: x / 0 is 0, x / -1 is -x (wrapping). */
static s64 xtap_div0(s64 x, s64 y)
{
	if (unlikely(y == 0))
		return 0;
	if (unlikely(y == -1))
		return (s64)(0 - (u64)x);
	return div64_s64(x, y);
}

static s64 xtap_shl(s64 v, u8 shift)
{
	return (s64)((u64)v << shift);
}

/* stap's _stp_val_to_bucket: log2 buckets, 64 for 0, negatives below it. */
static u32 xtap_log_bucket(s64 v)
{
	if (v == 0)
		return XTAP_HIST_LOG_BUCKET0;
	if (v > 0)
		return XTAP_HIST_LOG_BUCKET0 + fls64(v);
	return XTAP_HIST_LOG_BUCKET0 - fls64(0 - (u64)v);
}

static u32 xtap_linear_bucket(const struct xtap_stat_layout *l, s64 v)
{
	const struct xtap_stat_desc *d = l->desc;
	s64 off = (s64)((u64)v - (u64)d->lo);
	u64 b;

	if (off < 0)
		return 0;
	b = div64_u64(off, d->step) + 1;
	return b >= l->nbuckets - 1 ? l->nbuckets - 1 : b;
}

/* Runs in a handler with irqs off on this CPU's data: no lock needed. */
void xtap_stat_data_add(const struct xtap_stat_layout *l,
			struct xtap_stat_data *sd, s64 v)
{
	u8 shift = l->desc->bit_shift;
	s64 vs = xtap_shl(v, shift);

	if (sd->count == 0) {
		sd->count = 1;
		sd->sum = sd->min = sd->max = v;
		sd->avg_s = vs;
		sd->m2 = 0;
	} else {
		/* stap 4.8 keeps Welford's delta in an int: so do we. */
		s32 delta = (s32)(vs - sd->avg_s);

		sd->count++;
		sd->sum = (s64)((u64)sd->sum + (u64)v);
		if (v > sd->max)
			sd->max = v;
		if (v < sd->min)
			sd->min = v;
		/* Like stap, the running variance only when a script reads it. */
		if (!l->desc->variance)
			goto hist;
		sd->avg_s += xtap_div0(delta, sd->count);
		sd->m2 = (s64)((u64)sd->m2 +
			       (u64)(s64)delta * (u64)(vs - sd->avg_s));
		sd->variance_s = xtap_div0(sd->m2, sd->count - 1);
	}
hist:
	switch (l->desc->hist) {
	case XTAP_HIST_LOG:
		sd->hist[xtap_log_bucket(v)]++;
		break;
	case XTAP_HIST_LINEAR:
		sd->hist[xtap_linear_bucket(l, v)]++;
		break;
	}
	if (l->npct)
		sd->hist[xtap_pct_index(v, l->pct_bits, l->pct_zero)]++;
}

/*
 * Aggregation, stap's _stp_stat_get: zero agg, xtap_stat_agg_first() on
 * every CPU's part, xtap_stat_agg_mean(), xtap_stat_agg_second() on every
 * part again, xtap_stat_agg_finish().
 */
void xtap_stat_agg_first(const struct xtap_stat_layout *l,
			 struct xtap_stat_data *agg,
			 const struct xtap_stat_data *sd)
{
	u32 i;

	if (!sd->count)
		return;
	if (agg->count == 0) {
		agg->min = sd->min;
		agg->max = sd->max;
	}
	agg->count += sd->count;
	agg->sum = (s64)((u64)agg->sum + (u64)sd->sum);
	if (sd->max > agg->max)
		agg->max = sd->max;
	if (sd->min < agg->min)
		agg->min = sd->min;
	for (i = 0; i < l->nbuckets + l->npct; i++)
		agg->hist[i] += sd->hist[i];
}

void xtap_stat_agg_mean(const struct xtap_stat_layout *l,
			struct xtap_stat_data *agg)
{
	agg->avg_s =
		xtap_div0(xtap_shl(agg->sum, l->desc->bit_shift), agg->count);
	agg->m2 = 0;
}

void xtap_stat_agg_second(const struct xtap_stat_layout *l,
			  struct xtap_stat_data *agg,
			  const struct xtap_stat_data *sd)
{
	u64 d = (u64)sd->avg_s - (u64)agg->avg_s;

	if (!sd->count)
		return;
	/* S1 += n (avg_i - avg)^2; S2 += (n - 1) var_i, wrapping like stap. */
	agg->m2 = (s64)((u64)agg->m2 + (u64)sd->count * d * d +
			(u64)(sd->count - 1) * (u64)sd->variance_s);
}

void xtap_stat_agg_finish(const struct xtap_stat_layout *l,
			  struct xtap_stat_data *agg)
{
	agg->variance_s = xtap_div0(agg->m2, agg->count - 1);
	agg->variance = agg->variance_s >> (2 * l->desc->bit_shift);
}

s64 xtap_stat_data_op(const struct xtap_stat_data *agg, int op)
{
	switch (op) {
	case XTAP_OP_COUNT:
		return agg->count;
	case XTAP_OP_SUM:
		return agg->sum;
	case XTAP_OP_MIN:
		return agg->min;
	case XTAP_OP_MAX:
		return agg->max;
	case XTAP_OP_AVG:
		return xtap_div0(agg->sum, agg->count);
	case XTAP_OP_VARIANCE:
		return agg->variance;
	}
	return 0;
}

int xtap_stat_extract(struct xtap_context *c, const struct xtap_stat_data *agg,
		      int op, s64 *out)
{
	if (agg->count == 0 && op != XTAP_OP_COUNT && op != XTAP_OP_SUM) {
		xtap_error(c, "empty aggregate");
		*out = 0;
		return -1;
	}
	*out = xtap_stat_data_op(agg, op);
	return 0;
}

/* This CPU's scratch aggregate; the caller runs with irqs off. */
struct xtap_stat_data *xtap_stat_scratch(void)
{
	return xtap_scratch[smp_processor_id()];
}

/* ------------------------------------------------------------ scalar statistics */

/*
 * A consistent copy of `cpu`'s part into `copy`, or NULL when it is empty
 * or of an older generation. An adder holds a part odd for a few hundred
 * instructions with interrupts off; after XTAP_STAT_READ_TRIES the copy is
 * taken as it is.
 */
static const struct xtap_stat_data *
xtap_stat_read_part(struct xtap_stat *s, int cpu, struct xtap_stat_part *copy)
{
	const struct xtap_stat_part *p = s->parts[cpu];
	u32 seq, tries = 0;

	do {
		seq = READ_ONCE(p->seq);
		if ((seq & 1) && ++tries < XTAP_STAT_READ_TRIES) {
			cpu_relax();
			continue;
		}
		smp_rmb();
		memcpy(copy, p, XTAP_STAT_PART_SIZE(&s->l));
		smp_rmb();
	} while (READ_ONCE(p->seq) != seq && ++tries < XTAP_STAT_READ_TRIES);
	if (copy->gen != s->gen || !copy->d.count)
		return NULL;
	return &copy->d;
}

static void xtap_stat_aggregate(struct xtap_stat *s, struct xtap_stat_data *agg)
{
	struct xtap_stat_part *copy = xtap_part_copy[smp_processor_id()];
	const struct xtap_stat_data *sd;
	int cpu;

	memset(agg, 0, s->l.size);
	for_each_possible_cpu(cpu) {
		struct xtap_stat_moments *m = &s->moments[cpu];

		sd = xtap_stat_read_part(s, cpu, copy);
		m->count = sd ? sd->count : 0;
		if (!sd)
			continue;
		m->avg_s = sd->avg_s;
		m->variance_s = sd->variance_s;
		xtap_stat_agg_first(&s->l, agg, sd);
	}
	xtap_stat_agg_mean(&s->l, agg);
	for_each_possible_cpu(cpu) {
		const struct xtap_stat_moments *m = &s->moments[cpu];
		struct xtap_stat_data *part = &copy->d;

		if (!m->count)
			continue;
		part->count = m->count;
		part->avg_s = m->avg_s;
		part->variance_s = m->variance_s;
		xtap_stat_agg_second(&s->l, agg, part);
	}
	xtap_stat_agg_finish(&s->l, agg);
}

void xtap_stat_add(struct xtap_stat *s, s64 v)
{
	struct xtap_stat_part *p = s->parts[smp_processor_id()];
	u32 gen = READ_ONCE(s->gen);

	WRITE_ONCE(p->seq, p->seq + 1);
	smp_wmb();
	if (p->gen != gen) {
		memset(&p->d, 0, s->l.size);
		p->gen = gen;
	}
	xtap_stat_data_add(&s->l, &p->d, v);
	smp_wmb();
	WRITE_ONCE(p->seq, p->seq + 1);
}

int xtap_stat_get(struct xtap_context *c, struct xtap_stat *s, int op, s64 *out)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	return xtap_stat_extract(c, agg, op, out);
}

void xtap_stat_print_hist(struct xtap_context *c, struct xtap_stat *s)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	xtap_stat_hist_print(c, &s->l, agg);
}

int xtap_stat_sprint_hist(struct xtap_context *c, char *dst,
			  struct xtap_stat *s)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	return xtap_stat_hist_sprint(c, dst, &s->l, agg);
}

int xtap_stat_bucket(struct xtap_context *c, struct xtap_stat *s, s64 i,
		     s64 *out)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	return xtap_stat_hist_bucket(c, &s->l, agg, i, out);
}

const struct xtap_stat_data *
xtap_stat_snapshot(struct xtap_stat *s, const struct xtap_stat_layout **l)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	*l = &s->l;
	return agg;
}

const struct xtap_stat_desc *xtap_stat_desc_of(struct xtap_stat *s)
{
	return s->l.desc;
}

int xtap_stat_pct(struct xtap_context *c, struct xtap_stat *s, s64 p, s64 d,
		  s64 *out)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	return xtap_stat_pct_extract(c, &s->l, agg, p, d, out);
}

void xtap_stat_print_quantiles(struct xtap_context *c, struct xtap_stat *s)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	xtap_stat_quantiles_print(c, &s->l, agg);
}

int xtap_stat_sprint_quantiles(struct xtap_context *c, char *dst,
			       struct xtap_stat *s)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	return xtap_stat_quantiles_sprint(c, dst, &s->l, agg);
}

u32 xtap_stat_buckets(struct xtap_stat *s)
{
	return s->l.nbuckets;
}

u32 xtap_stat_pct_buckets(struct xtap_stat *s)
{
	return s->l.npct;
}

s64 xtap_stat_bucket_count(struct xtap_stat *s, u32 i)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();

	xtap_stat_aggregate(s, agg);
	return i < s->l.nbuckets ? agg->hist[i] : 0;
}

void xtap_stat_clear(struct xtap_stat *s)
{
	WRITE_ONCE(s->gen, s->gen + 1);
}

static void xtap_stat_free(struct xtap_stat *s)
{
	if (!s)
		return;
	xtap_cpu_array_free((void **)s->parts);
	kfree(s->moments);
	kfree(s);
}

static struct xtap_stat *xtap_stat_create(const struct xtap_stat_spec *spec)
{
	struct xtap_stat *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return ERR_PTR(-ENOMEM);
	if (xtap_stat_layout_init(&s->l, &spec->desc, spec->name)) {
		kfree(s);
		return ERR_PTR(-EINVAL);
	}
	s->parts = (struct xtap_stat_part **)xtap_cpu_array_alloc(
		XTAP_STAT_PART_SIZE(&s->l));
	s->moments = kcalloc(nr_cpu_ids, sizeof(*s->moments), GFP_KERNEL);
	if (!s->parts || !s->moments) {
		xtap_stat_free(s);
		return ERR_PTR(-ENOMEM);
	}
	return s;
}

/*
 * The largest statistic the script's globals can hold (any histogram, and
 * the largest sketch it asks for): the size of the scratch aggregates.
 */
static size_t xtap_stat_max_size(const struct xtap_script *s)
{
	u32 bits = 0, i;

	for (i = 0; i < s->nstats; i++)
		bits = max_t(u32, bits, s->stats[i].desc.pct_bits);
	for (i = 0; i < s->nmaps; i++)
		if (s->maps[i].value_type == XTAP_T_STAT)
			bits = max_t(u32, bits, s->maps[i].stat.pct_bits);
	bits = min_t(u32, bits, XTAP_PCT_MAX_BITS);
	return sizeof(struct xtap_stat_data) +
	       (XTAP_HIST_MAX_BUCKETS + (bits ? XTAP_PCT_BUCKETS(bits) : 0)) *
		       sizeof(s64);
}

/* Process context, before any probe runs. */
int xtap_stats_create(const struct xtap_script *s)
{
	int i;

	size_t size = xtap_stat_max_size(s);

	xtap_scratch = xtap_cpu_array_alloc(size);
	xtap_part_copy =
		xtap_cpu_array_alloc(offsetof(struct xtap_stat_part, d) + size);
	if (!xtap_scratch || !xtap_part_copy)
		return -ENOMEM;
	if (!s->nstats)
		return 0;
	xtap_stats = kcalloc(s->nstats, sizeof(*xtap_stats), GFP_KERNEL);
	if (!xtap_stats)
		return -ENOMEM;
	xtap_nstats = s->nstats;
	for (i = 0; i < s->nstats; i++) {
		struct xtap_stat *st = xtap_stat_create(&s->stats[i]);

		if (IS_ERR(st)) {
			/* A bad description was recorded as the session's error. */
			if (PTR_ERR(st) == -EINVAL)
				continue;
			pr_err(XTAP_PFX "cannot create statistic '%s' (%ld)\n",
			       s->stats[i].name, PTR_ERR(st));
			return PTR_ERR(st);
		}
		xtap_stats[i] = st;
		if (s->stats[i].stat)
			*s->stats[i].stat = st;
	}
	return 0;
}

void xtap_stats_destroy(void)
{
	const struct xtap_script *s = xtap_sess.script;
	int i;

	for (i = 0; i < xtap_nstats && xtap_stats; i++) {
		if (!xtap_stats[i])
			continue;
		if (s->stats[i].stat)
			*s->stats[i].stat = NULL;
		xtap_stat_free(xtap_stats[i]);
	}
	kfree(xtap_stats);
	xtap_stats = NULL;
	xtap_nstats = 0;
	xtap_cpu_array_free(xtap_scratch);
	xtap_scratch = NULL;
	xtap_cpu_array_free(xtap_part_copy);
	xtap_part_copy = NULL;
}
