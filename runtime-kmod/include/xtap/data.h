/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Script arrays (maps), statistics and regular expressions: what
 * generated code calls on a global's data. Above context.h.
 */
#ifndef XTAP_DATA_H
#define XTAP_DATA_H

#include <xtap/context.h>

/* Opaque: made by the session from the script's specs (script.h). */
struct xtap_map;
struct xtap_stat;

/* ------------------------------------------------------------ maps */

/*
 * Keys are passed as an array of xtap_key, one per map key, using the member
 * matching the key's declared type. Maps keep insertion order for unsorted
 * iteration. The caller holds the global's lock (taken by xtap_enter).
 */
struct xtap_key {
	s64 n;
	const char *s;
};

struct xtap_map_entry; /* opaque */

/* Lookups: return 1 and fill *out when present, 0 when absent (out = 0 / ""). */
int xtap_map_get_long(struct xtap_map *m, const struct xtap_key *k, s64 *out);
int xtap_map_get_str(struct xtap_map *m, const struct xtap_key *k, char *out);
int xtap_map_exists(struct xtap_map *m, const struct xtap_key *k);

/* Stores: return 0, or raise "MAXMAPENTRIES exceeded" and return -1. */
int xtap_map_set_long(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 v);
int xtap_map_set_str(struct xtap_context *c, struct xtap_map *m,
		     const struct xtap_key *k, const char *v);
/* a[k] += delta in one lookup; *result = the new value. */
int xtap_map_add_long(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 delta, s64 *result);

void xtap_map_delete(struct xtap_map *m, const struct xtap_key *k);
void xtap_map_clear(struct xtap_map *m);

/*
 * Slices: key i is `*` (matches anything) when bit i of any is set; the
 * other keys must be equal. [k, *] in a / delete a[k, *] / foreach over
 * a[k, *] (xtap_entry_in_slice filters the entries of a plain foreach).
 */
int xtap_map_exists_slice(struct xtap_map *m, const struct xtap_key *k,
			  u32 any);
void xtap_map_delete_slice(struct xtap_map *m, const struct xtap_key *k,
			   u32 any);
int xtap_entry_in_slice(struct xtap_map *m, struct xtap_map_entry *e,
			const struct xtap_key *k, u32 any);
u32 xtap_map_size(struct xtap_map *m);

/* Iteration in insertion order; safe against deleting the current entry. */
struct xtap_map_entry *xtap_map_first(struct xtap_map *m);
struct xtap_map_entry *xtap_map_next(struct xtap_map *m,
				     struct xtap_map_entry *e);
s64 xtap_entry_key_long(struct xtap_map *m, struct xtap_map_entry *e, int i);
const char *xtap_entry_key_str(struct xtap_map *m, struct xtap_map_entry *e,
			       int i);
s64 xtap_entry_value_long(struct xtap_map *m, struct xtap_map_entry *e);
const char *xtap_entry_value_str(struct xtap_map *m, struct xtap_map_entry *e);

/* ------------------------------------------------------------ statistics */

/*
 * <<< adds to the current CPU's aggregate and takes no global lock (the
 * translator asks only for a shared lock on the global); extraction
 * aggregates every CPU. Extracting @min/@max/@avg/@variance of an empty
 * statistic raises "empty aggregate" and returns -1, as stap does.
 */
void xtap_stat_add(struct xtap_stat *s, s64 v);
int xtap_stat_get(struct xtap_context *c, struct xtap_stat *s, int op,
		  s64 *out);
void xtap_stat_print_hist(struct xtap_context *c,
			  struct xtap_stat *s); /* stap's ASCII format */
void xtap_stat_clear(struct xtap_stat *s);

/* Statistic arrays (value_type XTAP_T_STAT): per-CPU maps inside. */
int xtap_map_stat_add(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 v);
int xtap_map_stat_get(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, int op, s64 *out);
void xtap_map_stat_print_hist(struct xtap_context *c, struct xtap_map *m,
			      const struct xtap_key *k);
/*
 * Histogram buckets: sprint(@hist_log(s)) appends the histogram's text to
 * dst (cut at MAXSTRINGLEN); @hist_log(s)[i] is bucket i's count. Both
 * raise "empty aggregate" on an empty statistic, the second "histogram
 * index out of range" past the buckets, and return -1 then. foreach over
 * the buckets reads the number of buckets and each count (0 when empty).
 */
int xtap_stat_sprint_hist(struct xtap_context *c, char *dst,
			  struct xtap_stat *s);
int xtap_map_stat_sprint_hist(struct xtap_context *c, char *dst,
			      struct xtap_map *m, const struct xtap_key *k);
int xtap_stat_bucket(struct xtap_context *c, struct xtap_stat *s, s64 i,
		     s64 *out);
int xtap_map_stat_bucket(struct xtap_context *c, struct xtap_map *m,
			 const struct xtap_key *k, s64 i, s64 *out);
u32 xtap_stat_buckets(struct xtap_stat *s);
u32 xtap_stat_pct_buckets(struct xtap_stat *s); /* 0: no sketch */
u32 xtap_map_stat_buckets(struct xtap_map *m);
s64 xtap_stat_bucket_count(struct xtap_stat *s, u32 i);
s64 xtap_map_stat_bucket_count(struct xtap_map *m, const struct xtap_key *k,
			       u32 i);
/*
 * Percentiles (stat_pct.c): @percentile(s, p[, d]) is the value of rank
 * ceil(count * p / d) (d is 100 unless given), from the sketch, within its
 * relative error; @median(s) is p = 50. print(@quantiles(s)) prints the
 * count, min, p50, p90, p99, p99.9 and max. Errors as @avg's, and
 * "percentile out of range" when p / d is not within 0..1.
 */
int xtap_stat_pct(struct xtap_context *c, struct xtap_stat *s, s64 p, s64 d,
		  s64 *out);
int xtap_map_stat_pct(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 p, s64 d, s64 *out);
void xtap_stat_print_quantiles(struct xtap_context *c, struct xtap_stat *s);
void xtap_map_stat_print_quantiles(struct xtap_context *c, struct xtap_map *m,
				   const struct xtap_key *k);
int xtap_stat_sprint_quantiles(struct xtap_context *c, char *dst,
			       struct xtap_stat *s);
int xtap_map_stat_sprint_quantiles(struct xtap_context *c, char *dst,
				   struct xtap_map *m,
				   const struct xtap_key *k);
/* For a statistic array's entry in foreach: one aggregate of that entry. */
s64 xtap_entry_stat(struct xtap_map *m, struct xtap_map_entry *e, int op);

/*
 * Reorders m's iteration order for a sorted foreach: by value (column 0)
 * or by key `column` (1-based), descending when desc; statistic maps sort
 * by the aggregate stat_op. Stable, no allocation.
 */
void xtap_map_sort(struct xtap_map *m, int column, int desc, int stat_op);

/* ------------------------------------------------------------ regular expressions */

/* s =~ regexes[idx]: 1 on a match, 0 otherwise; captures kept for matched(). */
int xtap_regex_match(struct xtap_context *c, u16 idx, const char *s);
char *xtap_regex_matched(struct xtap_context *c, char *dst, s64 n);
/* ngroups(): the last match's groups, the whole match (group 0) included */
s64 xtap_regex_ngroups(struct xtap_context *c);

#endif /* XTAP_DATA_H */
