/* SPDX-License-Identifier: GPL-2.0 */
/* Array internals shared by map.c, stat_map.c and map_sort.c. */
#ifndef XTAP_MAP_H
#define XTAP_MAP_H

#include <linux/list.h>
#include "internal.h"
#include "stat.h"

/*
 * An entry is a fixed-size slot of the map's pool: this header, then each
 * key (8 bytes for a long, maxstringlen for a string), then the value.
 */
struct xtap_map_entry {
	struct hlist_node hnode;
	struct list_head order; /* insertion order; kept intact on delete */
	struct xtap_map_entry *free_next;
	u32 hash;
	char data[];
};

struct xtap_map {
	const struct xtap_map_spec *spec;
	u32 max_entries;
	u32 count;
	u32 entry_size;
	u32 key_off[XTAP_MAXKEYS];
	u32 value_off;
	u32 hash_mask;
	struct hlist_head *buckets;
	struct list_head order;
	char *pool;
	/* FIFO free list: a just-deleted entry is reused last (foreach safety). */
	struct xtap_map_entry *free_head, *free_tail;
	/*
	 * Statistic arrays: this map is the aggregated view that foreach walks;
	 * every possible CPU adds to its own instance in cpu_maps[cpu].
	 */
	struct xtap_map **cpu_maps;
	struct xtap_stat_layout stat;
};

static inline bool xtap_map_is_stat(const struct xtap_map *m)
{
	return m->cpu_maps != NULL;
}

static inline void *xtap_entry_value(struct xtap_map *m,
				     struct xtap_map_entry *e)
{
	return e->data + m->value_off;
}

static inline struct xtap_stat_data *xtap_entry_sd(struct xtap_map *m,
						   struct xtap_map_entry *e)
{
	return (struct xtap_stat_data *)(e->data + m->value_off);
}

/* map.c */
struct xtap_map *xtap_map_instance(const struct xtap_map_spec *spec);
void xtap_map_instance_free(struct xtap_map *m);
void xtap_map_reset(struct xtap_map *m);
struct xtap_map_entry *xtap_map_find(struct xtap_map *m,
				     const struct xtap_key *k, u32 *hashp);
struct xtap_map_entry *xtap_map_slot(struct xtap_context *c, struct xtap_map *m,
				     const struct xtap_key *k);
struct xtap_map_entry *xtap_map_find_or_insert(struct xtap_map *m,
					       const struct xtap_key *k);
void xtap_map_unlink(struct xtap_map *m, struct xtap_map_entry *e);
void xtap_entry_keys(struct xtap_map *m, struct xtap_map_entry *e,
		     struct xtap_key *k);

/* stat_map.c */
int xtap_stat_map_setup(struct xtap_map *m);
void xtap_stat_map_free(struct xtap_map *m);
int xtap_stat_map_exists(struct xtap_map *m, const struct xtap_key *k);
void xtap_stat_map_delete(struct xtap_map *m, const struct xtap_key *k);
void xtap_stat_map_clear(struct xtap_map *m);
u32 xtap_stat_map_size(struct xtap_map *m);
void xtap_stat_map_aggregate(struct xtap_map *m);

#endif /* XTAP_MAP_H */
