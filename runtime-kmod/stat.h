/* SPDX-License-Identifier: GPL-2.0 */
/* Statistic data shared by scalar statistics and statistic arrays. */
#ifndef XTAP_STAT_H
#define XTAP_STAT_H

#include <linux/bitops.h>
#include <xtap/limits.h>
#include <xtap/runtime.h>

#define XTAP_HIST_LOG_BUCKETS 128 /* stap's HIST_LOG_BUCKETS */
#define XTAP_HIST_LOG_BUCKET0 64 /* the log bucket of 0 */

/*
 * One CPU's part of a statistic, or the aggregate of all CPUs. The
 * per-CPU fields follow stap 4.8 exactly so that @avg and @variance give
 * the same integers: Welford's running mean and M2, scaled by the bit shift,
 * merged across CPUs with the total-variance formula.
 */
struct xtap_stat_data {
	s64 count, sum, min, max;
	s64 avg_s; /* running mean << shift */
	s64 m2; /* Welford's M2 (per CPU), S1 + S2 (aggregate) */
	s64 variance_s; /* variance << 2 * shift */
	s64 variance; /* aggregate only */
	s64 hist[];
};

/*
 * The percentile sketch (docs/language.md, "Percentiles"): log-linear
 * buckets over the magnitude of a value, 2^k of them per power of two
 * once the magnitude reaches 2^(k+1), one per value below. A bucket at
 * shift s holds 2^s values and starts at or above 2^(k+s), so its width
 * is at most 2^-k of any value in it. Negative values have mirrored
 * buckets below the positive ones, so that bucket order is value order.
 */
/* Buckets for one sign: magnitudes up to 2^64 - 1. */
#define XTAP_PCT_SIDE(k) ((65u - (k)) << (k))
#define XTAP_PCT_BUCKETS(k) (2 * XTAP_PCT_SIDE(k))

/*
 * The magnitude bucket of u (0 for 0): shift << k plus u's top k+1 bits,
 * shift 0 below 2^(k+1). Without branches: <<< runs it on every add.
 */
static __always_inline u32 xtap_pct_mag_index(u64 u, u32 k)
{
	int shift = fls64(u) - (int)k - 1;

	shift = shift < 0 ? 0 : shift;
	return ((u32)shift << k) + (u32)(u >> shift);
}

/*
 * v's bucket relative to `zero`, the bucket of 0 (XTAP_PCT_SIDE(k) in the
 * sketch): negatives below it, in value order.
 */
static __always_inline u32 xtap_pct_index(s64 v, u32 k, u32 zero)
{
	u64 u = v < 0 ? 0 - (u64)v : (u64)v;
	u32 m = xtap_pct_mag_index(u, k);

	return v < 0 ? zero - 1 - m : zero + m;
}

/*
 * How one statistic global is laid out and aggregated: hist[] holds the
 * histogram's nbuckets counts, then the percentile sketch's npct.
 */
struct xtap_stat_layout {
	const struct xtap_stat_desc *desc;
	u32 nbuckets;
	u32 npct; /* 0: the script asks no percentile of it */
	u32 pct_bits; /* desc->pct_bits, read by every <<< */
	u32 pct_zero; /* hist[] index of the sketch's bucket of 0 */
	u32 size; /* bytes of xtap_stat_data with its counts */
};

/* stat.c */
int xtap_stat_layout_init(struct xtap_stat_layout *l,
			  const struct xtap_stat_desc *d, const char *name);
void xtap_stat_data_add(const struct xtap_stat_layout *l,
			struct xtap_stat_data *sd, s64 v);
void xtap_stat_agg_first(const struct xtap_stat_layout *l,
			 struct xtap_stat_data *agg,
			 const struct xtap_stat_data *sd);
void xtap_stat_agg_mean(const struct xtap_stat_layout *l,
			struct xtap_stat_data *agg);
void xtap_stat_agg_second(const struct xtap_stat_layout *l,
			  struct xtap_stat_data *agg,
			  const struct xtap_stat_data *sd);
void xtap_stat_agg_finish(const struct xtap_stat_layout *l,
			  struct xtap_stat_data *agg);
s64 xtap_stat_data_op(const struct xtap_stat_data *agg, int op);
int xtap_stat_extract(struct xtap_context *c, const struct xtap_stat_data *agg,
		      int op, s64 *out);
struct xtap_stat_data *xtap_stat_scratch(void);
/*
 * Snapshots: the aggregate of every CPU (in this CPU's scratch) and its
 * layout; the caller holds the global's exclusive lock with irqs off.
 */
const struct xtap_stat_data *
xtap_stat_snapshot(struct xtap_stat *s, const struct xtap_stat_layout **l);
const struct xtap_stat_desc *xtap_stat_desc_of(struct xtap_stat *s);

/* stat_hist.c */
void xtap_stat_hist_print(struct xtap_context *c,
			  const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *agg);
int xtap_stat_hist_sprint(struct xtap_context *c, char *dst,
			  const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *agg);
int xtap_stat_hist_bucket(struct xtap_context *c,
			  const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *agg, s64 i, s64 *out);

/* stat_pct.c */
int xtap_stat_pct_extract(struct xtap_context *c,
			  const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *agg, s64 p, s64 d,
			  s64 *out);
void xtap_stat_quantiles_print(struct xtap_context *c,
			       const struct xtap_stat_layout *l,
			       const struct xtap_stat_data *agg);
int xtap_stat_quantiles_sprint(struct xtap_context *c, char *dst,
			       const struct xtap_stat_layout *l,
			       const struct xtap_stat_data *agg);

#endif /* XTAP_STAT_H */
