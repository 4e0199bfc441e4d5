// SPDX-License-Identifier: GPL-2.0
/*
 * The script's global arrays as the generated code and the session see
 * them: created and destroyed with the session, and the operations that
 * differ between a plain array (one table, map.c) and a statistic array (a
 * table per CPU and their aggregate, stat_map.c), dispatched here so that
 * neither of those calls the other back.
 */
#include <linux/list.h>
#include <linux/slab.h>
#include "map.h"

static struct xtap_map **xtap_maps;
static u16 xtap_nmaps;

static struct xtap_map *xtap_map_create(const struct xtap_map_spec *spec)
{
	struct xtap_map *m = xtap_map_instance(spec);
	int err;

	if (IS_ERR(m) || spec->value_type != XTAP_T_STAT)
		return m;
	err = xtap_stat_map_setup(m);
	if (err) {
		xtap_stat_map_free(m);
		return ERR_PTR(err);
	}
	return m;
}

static void xtap_map_free(struct xtap_map *m)
{
	if (xtap_map_is_stat(m))
		xtap_stat_map_free(m);
	else
		xtap_map_instance_free(m);
}

int xtap_maps_create(const struct xtap_script *s)
{
	int i;

	if (!s->nmaps)
		return 0;
	xtap_maps = kcalloc(s->nmaps, sizeof(*xtap_maps), GFP_KERNEL);
	if (!xtap_maps)
		return -ENOMEM;
	xtap_nmaps = s->nmaps;
	for (i = 0; i < s->nmaps; i++) {
		struct xtap_map *m = xtap_map_create(&s->maps[i]);

		if (IS_ERR(m)) {
			/* A bad description was recorded as the session's error. */
			if (PTR_ERR(m) == -EINVAL)
				continue;
			/* Too big for this machine: refuse the session at START. */
			if (PTR_ERR(m) == -ENOMEM) {
				xtap_init_error(
					"not enough memory for array '%s' (%u entries)",
					s->maps[i].name,
					s->maps[i].max_entries ?:
						xtap_sess.limits.maxmapentries);
				continue;
			}
			pr_err(XTAP_PFX "cannot create array '%s' (%ld)\n",
			       s->maps[i].name, PTR_ERR(m));
			return PTR_ERR(m);
		}
		xtap_maps[i] = m;
		if (s->maps[i].map)
			*s->maps[i].map = m;
	}
	return 0;
}

void xtap_maps_destroy(void)
{
	int i;

	for (i = 0; i < xtap_nmaps && xtap_maps; i++) {
		if (!xtap_maps[i])
			continue;
		if (xtap_maps[i]->spec->map)
			*xtap_maps[i]->spec->map = NULL;
		xtap_map_free(xtap_maps[i]);
	}
	kfree(xtap_maps);
	xtap_maps = NULL;
	xtap_nmaps = 0;
}

int xtap_map_exists(struct xtap_map *m, const struct xtap_key *k)
{
	if (xtap_map_is_stat(m))
		return xtap_stat_map_exists(m, k);
	return xtap_map_find(m, k, NULL) != NULL;
}

void xtap_map_delete(struct xtap_map *m, const struct xtap_key *k)
{
	struct xtap_map_entry *e;

	if (xtap_map_is_stat(m)) {
		xtap_stat_map_delete(m, k);
		return;
	}
	e = xtap_map_find(m, k, NULL);
	if (e)
		xtap_map_unlink(m, e);
}

void xtap_map_clear(struct xtap_map *m)
{
	if (xtap_map_is_stat(m))
		xtap_stat_map_clear(m);
	else
		xtap_map_reset(m);
}

u32 xtap_map_size(struct xtap_map *m)
{
	if (xtap_map_is_stat(m))
		return xtap_stat_map_size(m);
	return m->count;
}

/* A statistic array is aggregated here: the caller holds its exclusive lock. */
struct xtap_map_entry *xtap_map_first(struct xtap_map *m)
{
	if (xtap_map_is_stat(m))
		xtap_stat_map_aggregate(m);
	return list_first_entry_or_null(&m->order, struct xtap_map_entry,
					order);
}
