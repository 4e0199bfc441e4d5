// SPDX-License-Identifier: GPL-2.0
/* Array slices: the entries whose keys match a pattern with `*` keys. */
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/string.h>
#include "map.h"

int xtap_entry_in_slice(struct xtap_map *m, struct xtap_map_entry *e,
			const struct xtap_key *k, u32 any)
{
	u32 slen = xtap_sess.limits.maxstringlen;
	int i;

	for (i = 0; i < m->spec->nkeys; i++) {
		const char *slot = e->data + m->key_off[i];

		if (any & (1u << i))
			continue;
		if (m->spec->key_types[i] == XTAP_T_STRING) {
			if (strncmp(slot, k[i].s ?: "", slen - 1))
				return 0;
		} else if (*(const s64 *)slot != k[i].n) {
			return 0;
		}
	}
	return 1;
}

/* Statistic arrays are searched in every CPU's instance, as a lookup is. */
static int xtap_instance_has_slice(struct xtap_map *m, const struct xtap_key *k,
				   u32 any)
{
	struct xtap_map_entry *e;

	list_for_each_entry_rcu(e, &m->order, order, true)
		if (xtap_entry_in_slice(m, e, k, any))
			return 1;
	return 0;
}

int xtap_map_exists_slice(struct xtap_map *m, const struct xtap_key *k, u32 any)
{
	int cpu;

	if (!xtap_map_is_stat(m))
		return xtap_instance_has_slice(m, k, any);
	for_each_possible_cpu(cpu)
		if (xtap_instance_has_slice(m->cpu_maps[cpu], k, any))
			return 1;
	return 0;
}

static void xtap_instance_delete_slice(struct xtap_map *m,
				       const struct xtap_key *k, u32 any)
{
	struct xtap_map_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &m->order, order)
		if (xtap_entry_in_slice(m, e, k, any))
			xtap_map_unlink(m, e);
}

void xtap_map_delete_slice(struct xtap_map *m, const struct xtap_key *k,
			   u32 any)
{
	int cpu;

	if (xtap_map_is_stat(m))
		for_each_possible_cpu(cpu)
			xtap_instance_delete_slice(m->cpu_maps[cpu], k, any);
	xtap_instance_delete_slice(m, k, any);
}
