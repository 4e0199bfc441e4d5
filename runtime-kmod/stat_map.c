// SPDX-License-Identifier: GPL-2.0
/* Statistic arrays: one map instance per CPU for <<<, aggregated for reading. */
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "map.h"

/*
 * a[k] <<< v only touches this CPU's instance (irqs are off in a handler),
 * so the translator asks for a shared lock. Reading a key walks every CPU's
 * instance (lookups are safe against a concurrent insert, see map.c);
 * foreach and sorting read the aggregate map m itself, rebuilt by
 * xtap_stat_map_aggregate() under the exclusive lock.
 */
int xtap_stat_map_setup(struct xtap_map *m)
{
	int cpu;

	m->cpu_maps = kcalloc(nr_cpu_ids, sizeof(*m->cpu_maps), GFP_KERNEL);
	if (!m->cpu_maps)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct xtap_map *cm = xtap_map_instance(m->spec);

		if (IS_ERR(cm))
			return PTR_ERR(cm);
		m->cpu_maps[cpu] = cm;
	}
	return 0;
}

void xtap_stat_map_free(struct xtap_map *m)
{
	int cpu;

	if (m->cpu_maps) {
		for_each_possible_cpu(cpu)
			if (m->cpu_maps[cpu])
				xtap_map_instance_free(m->cpu_maps[cpu]);
		kfree(m->cpu_maps);
	}
	xtap_map_instance_free(m);
}

int xtap_map_stat_add(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 v)
{
	struct xtap_map *cm = m->cpu_maps[smp_processor_id()];
	struct xtap_map_entry *e = xtap_map_slot(c, cm, k);

	if (!e)
		return -1;
	xtap_stat_data_add(&m->stat, xtap_entry_sd(cm, e), v);
	return 0;
}

/* The aggregate of one key over every CPU, in this CPU's scratch space. */
static struct xtap_stat_data *xtap_stat_map_key(struct xtap_map *m,
						const struct xtap_key *k)
{
	struct xtap_stat_data *agg = xtap_stat_scratch();
	struct xtap_map_entry *e;
	int cpu;

	memset(agg, 0, m->stat.size);
	for_each_possible_cpu(cpu) {
		e = xtap_map_find(m->cpu_maps[cpu], k, NULL);
		if (e)
			xtap_stat_agg_first(&m->stat, agg, xtap_entry_sd(m, e));
	}
	xtap_stat_agg_mean(&m->stat, agg);
	for_each_possible_cpu(cpu) {
		e = xtap_map_find(m->cpu_maps[cpu], k, NULL);
		if (e)
			xtap_stat_agg_second(&m->stat, agg,
					     xtap_entry_sd(m, e));
	}
	xtap_stat_agg_finish(&m->stat, agg);
	return agg;
}

int xtap_map_stat_get(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, int op, s64 *out)
{
	return xtap_stat_extract(c, xtap_stat_map_key(m, k), op, out);
}

void xtap_map_stat_print_hist(struct xtap_context *c, struct xtap_map *m,
			      const struct xtap_key *k)
{
	xtap_stat_hist_print(c, &m->stat, xtap_stat_map_key(m, k));
}

int xtap_map_stat_sprint_hist(struct xtap_context *c, char *dst,
			      struct xtap_map *m, const struct xtap_key *k)
{
	return xtap_stat_hist_sprint(c, dst, &m->stat, xtap_stat_map_key(m, k));
}

int xtap_map_stat_bucket(struct xtap_context *c, struct xtap_map *m,
			 const struct xtap_key *k, s64 i, s64 *out)
{
	return xtap_stat_hist_bucket(c, &m->stat, xtap_stat_map_key(m, k), i,
				     out);
}

int xtap_map_stat_pct(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 p, s64 d, s64 *out)
{
	return xtap_stat_pct_extract(c, &m->stat, xtap_stat_map_key(m, k), p, d,
				     out);
}

void xtap_map_stat_print_quantiles(struct xtap_context *c, struct xtap_map *m,
				   const struct xtap_key *k)
{
	xtap_stat_quantiles_print(c, &m->stat, xtap_stat_map_key(m, k));
}

int xtap_map_stat_sprint_quantiles(struct xtap_context *c, char *dst,
				   struct xtap_map *m, const struct xtap_key *k)
{
	return xtap_stat_quantiles_sprint(c, dst, &m->stat,
					  xtap_stat_map_key(m, k));
}

u32 xtap_map_stat_buckets(struct xtap_map *m)
{
	return m->stat.nbuckets;
}

s64 xtap_map_stat_bucket_count(struct xtap_map *m, const struct xtap_key *k,
			       u32 i)
{
	struct xtap_stat_data *agg = xtap_stat_map_key(m, k);

	return i < m->stat.nbuckets ? agg->hist[i] : 0;
}

s64 xtap_entry_stat(struct xtap_map *m, struct xtap_map_entry *e, int op)
{
	return xtap_stat_data_op(xtap_entry_sd(m, e), op);
}

int xtap_stat_map_exists(struct xtap_map *m, const struct xtap_key *k)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (xtap_map_find(m->cpu_maps[cpu], k, NULL))
			return 1;
	return 0;
}

void xtap_stat_map_delete(struct xtap_map *m, const struct xtap_key *k)
{
	struct xtap_map_entry *e;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct xtap_map *cm = m->cpu_maps[cpu];

		e = xtap_map_find(cm, k, NULL);
		if (e)
			xtap_map_unlink(cm, e);
	}
	e = xtap_map_find(m, k, NULL);
	if (e)
		xtap_map_unlink(m, e);
}

void xtap_stat_map_clear(struct xtap_map *m)
{
	int cpu;

	for_each_possible_cpu(cpu)
		xtap_map_reset(m->cpu_maps[cpu]);
	xtap_map_reset(m);
}

/* Distinct keys: count each key on the first CPU that has it. */
u32 xtap_stat_map_size(struct xtap_map *m)
{
	struct xtap_key k[XTAP_MAXKEYS];
	struct xtap_map_entry *e;
	u32 n = 0;
	int cpu, prev;

	for_each_possible_cpu(cpu) {
		struct xtap_map *cm = m->cpu_maps[cpu];

		/* other CPUs may append meanwhile: entries are published RCU-style */
		list_for_each_entry_rcu(e, &cm->order, order, true) {
			bool seen = false;

			xtap_entry_keys(cm, e, k);
			for_each_possible_cpu(prev) {
				if (prev >= cpu)
					break;
				if (xtap_map_find(m->cpu_maps[prev], k, NULL)) {
					seen = true;
					break;
				}
			}
			n += !seen;
		}
	}
	return n;
}

static void xtap_stat_map_overflow(struct xtap_map *m)
{
	struct xtap_context *c = xtap_current_context();

	if (c)
		xtap_error(c, "aggregation overflow in array '%s' (%u entries)",
			   m->spec->name, m->max_entries);
}

/*
 * Rebuild the aggregate view in place: existing keys keep their entries and
 * their place in the iteration order (a sort or an outer foreach stays
 * valid), new keys are appended in CPU order, like stap's pmap aggregation.
 */
void xtap_stat_map_aggregate(struct xtap_map *m)
{
	const struct xtap_stat_layout *l = &m->stat;
	struct xtap_key k[XTAP_MAXKEYS];
	struct xtap_map_entry *e, *ae, *tmp;
	bool overflow = false;
	int cpu;

	list_for_each_entry(ae, &m->order, order)
		memset(xtap_entry_sd(m, ae), 0, l->size);
	for_each_possible_cpu(cpu) {
		struct xtap_map *cm = m->cpu_maps[cpu];

		list_for_each_entry(e, &cm->order, order) {
			xtap_entry_keys(cm, e, k);
			ae = xtap_map_find_or_insert(m, k);
			if (!ae) {
				overflow = true;
				continue;
			}
			xtap_stat_agg_first(l, xtap_entry_sd(m, ae),
					    xtap_entry_sd(cm, e));
		}
	}
	list_for_each_entry_safe(ae, tmp, &m->order, order) {
		if (!xtap_entry_sd(m, ae)->count)
			xtap_map_unlink(m, ae); /* no CPU has it any more */
		else
			xtap_stat_agg_mean(l, xtap_entry_sd(m, ae));
	}
	for_each_possible_cpu(cpu) {
		struct xtap_map *cm = m->cpu_maps[cpu];

		list_for_each_entry(e, &cm->order, order) {
			xtap_entry_keys(cm, e, k);
			ae = xtap_map_find(m, k, NULL);
			if (ae)
				xtap_stat_agg_second(l, xtap_entry_sd(m, ae),
						     xtap_entry_sd(cm, e));
		}
	}
	list_for_each_entry(ae, &m->order, order)
		xtap_stat_agg_finish(l, xtap_entry_sd(m, ae));
	/* global s%: each CPU keeps its newest keys; the union may not fit */
	if (overflow && !m->spec->wrap)
		xtap_stat_map_overflow(m);
}
