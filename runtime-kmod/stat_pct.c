// SPDX-License-Identifier: GPL-2.0
/* Percentiles from the log-linear sketch: @percentile, @median, @quantiles. */
#include <linux/kernel.h>
#include <linux/math64.h>
#include "internal.h"
#include "stat.h"

/*
 * The value a bucket stands for: the middle of its range, so that the
 * error is at most half the bucket's width, 2^-(k+1) of the true value.
 * Buckets below 2^(k+1) hold one value each and are exact.
 */
static u64 xtap_pct_mag_value(u32 idx, u32 k)
{
	int shift = (int)(idx >> k) - 1;
	u64 lower;

	if (shift <= 0)
		return idx;
	lower = (u64)(idx - ((u32)shift << k)) << shift;
	return lower + (1ULL << (shift - 1));
}

static s64 xtap_pct_bucket_value(u32 b, u32 k)
{
	u64 mag;

	if (b >= XTAP_PCT_SIDE(k))
		return (s64)xtap_pct_mag_value(b - XTAP_PCT_SIDE(k), k);
	mag = xtap_pct_mag_value(XTAP_PCT_SIDE(k) - 1 - b, k);
	/* The bucket of S64_MIN reaches past it; the caller clamps to min. */
	return mag > (u64)S64_MAX ? S64_MIN : -(s64)mag;
}

/*
 * The value of rank r (1-based, 1 < r < count) in value order: the bucket
 * where the running count reaches r holds it, since counts are exact.
 */
static s64 xtap_pct_rank_value(const struct xtap_stat_layout *l,
			       const struct xtap_stat_data *agg, u64 r)
{
	const s64 *sketch = agg->hist + l->nbuckets;
	u32 k = l->desc->pct_bits, b;
	u64 seen = 0;
	s64 v = agg->max;

	for (b = 0; b < l->npct; b++) {
		seen += sketch[b];
		if (seen >= r) {
			v = xtap_pct_bucket_value(b, k);
			break;
		}
	}
	return clamp(v, agg->min, agg->max);
}

/* The rank of percentile p / d of n values: ceil(n * p / d), at least 1. */
static u64 xtap_pct_rank(u64 n, u64 p, u64 d)
{
	u64 q = mul_u64_u64_div_u64(n, p, d);

	/* n * p - q * d is the true remainder (< d) even where both wrap. */
	if (n * p - q * d)
		q++;
	return q ? q : 1;
}

static s64 xtap_pct_value(const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *agg, u64 p, u64 d)
{
	u64 r = xtap_pct_rank(agg->count, p, d);

	/* The extremes are known exactly. */
	if (r <= 1)
		return agg->min;
	if (r >= agg->count)
		return agg->max;
	return xtap_pct_rank_value(l, agg, r);
}

int xtap_stat_pct_extract(struct xtap_context *c,
			  const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *agg, s64 p, s64 d,
			  s64 *out)
{
	*out = 0;
	if (!l->npct) {
		xtap_error(c, "statistic has no percentile sketch");
		return -1;
	}
	if (d <= 0 || p < 0 || p > d) {
		xtap_error(
			c,
			"percentile out of range: %lld/%lld is not within 0..1",
			p, d);
		return -1;
	}
	if (agg->count == 0) {
		xtap_error(c, "empty aggregate");
		return -1;
	}
	*out = xtap_pct_value(l, agg, p, d);
	return 0;
}

/* print(@quantiles(s)): one line of name=value pairs, easy to parse. */
static void xtap_quantiles_write(struct xtap_context *c, char *dst,
				 const struct xtap_stat_layout *l,
				 const struct xtap_stat_data *agg)
{
	static const struct {
		const char *name;
		u64 p, d;
	} q[] = { { "p50", 50, 100 },
		  { "p90", 90, 100 },
		  { "p99", 99, 100 },
		  { "p99.9", 999, 1000 } };
	size_t size = xtap_strsize(), len;
	char line[192];
	int n, i;

	n = scnprintf(line, sizeof(line), "count=%lld min=%lld", agg->count,
		      agg->min);
	for (i = 0; i < ARRAY_SIZE(q); i++)
		n += scnprintf(line + n, sizeof(line) - n, " %s=%lld",
			       q[i].name,
			       xtap_pct_value(l, agg, q[i].p, q[i].d));
	scnprintf(line + n, sizeof(line) - n, " max=%lld\n", agg->max);
	if (!dst) {
		xtap_printf(c, "%s", line);
		return;
	}
	len = strnlen(dst, size - 1);
	strscpy(dst + len, line, size - len);
}

static int xtap_quantiles_check(struct xtap_context *c,
				const struct xtap_stat_layout *l,
				const struct xtap_stat_data *agg)
{
	if (!l->npct) {
		xtap_error(c, "statistic has no percentile sketch");
		return -1;
	}
	if (agg->count == 0) {
		xtap_error(c, "empty aggregate");
		return -1;
	}
	return 0;
}

void xtap_stat_quantiles_print(struct xtap_context *c,
			       const struct xtap_stat_layout *l,
			       const struct xtap_stat_data *agg)
{
	if (!xtap_quantiles_check(c, l, agg))
		xtap_quantiles_write(c, NULL, l, agg);
}

int xtap_stat_quantiles_sprint(struct xtap_context *c, char *dst,
			       const struct xtap_stat_layout *l,
			       const struct xtap_stat_data *agg)
{
	if (xtap_quantiles_check(c, l, agg))
		return -1;
	xtap_quantiles_write(c, dst, l, agg);
	return 0;
}
