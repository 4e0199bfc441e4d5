/* SPDX-License-Identifier: GPL-2.0 */
/* Statistic data shared by scalar statistics and statistic arrays. */
#ifndef XTAP_STAT_H
#define XTAP_STAT_H

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

/* How one statistic global is laid out and aggregated. */
struct xtap_stat_layout {
	const struct xtap_stat_desc *desc;
	u32 nbuckets;
	u32 size; /* bytes of xtap_stat_data with its histogram */
};

#define XTAP_STAT_MAX_SIZE \
	(sizeof(struct xtap_stat_data) + XTAP_HIST_MAX_BUCKETS * sizeof(s64))

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

#endif /* XTAP_STAT_H */
