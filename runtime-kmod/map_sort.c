// SPDX-License-Identifier: GPL-2.0
/* Sorted foreach: a stable reordering of an array's iteration list. */
#include <linux/list_sort.h>
#include <linux/string.h>
#include "map.h"

struct xtap_sort_by {
	struct xtap_map *m;
	int column; /* 0: the value, i >= 1: key i */
	int desc;
	int stat_op;
};

static int xtap_cmp_long(s64 a, s64 b)
{
	return a < b ? -1 : a > b;
}

static int xtap_sort_cmp(void *priv, const struct list_head *la,
			 const struct list_head *lb)
{
	const struct xtap_sort_by *by = priv;
	struct xtap_map *m = by->m;
	struct xtap_map_entry *a = list_entry(la, struct xtap_map_entry, order);
	struct xtap_map_entry *b = list_entry(lb, struct xtap_map_entry, order);
	u8 type;
	u32 off;
	int r;

	if (by->column == 0) {
		type = m->spec->value_type;
		off = m->value_off;
	} else {
		type = m->spec->key_types[by->column - 1];
		off = m->key_off[by->column - 1];
	}
	switch (type) {
	case XTAP_T_STRING:
		r = strcmp(a->data + off, b->data + off);
		break;
	case XTAP_T_STAT:
		r = xtap_cmp_long(xtap_entry_stat(m, a, by->stat_op),
				  xtap_entry_stat(m, b, by->stat_op));
		break;
	default:
		r = xtap_cmp_long(*(s64 *)(a->data + off),
				  *(s64 *)(b->data + off));
		break;
	}
	/* > 0 moves a after b; equal entries keep their order (stable). */
	return by->desc ? -r : r;
}

/*
 * list_sort() is a bottom-up merge sort: no allocation, no recursion, a
 * handful of pending sublists for any length. Entries keep their slots, so
 * iterators and a delete during the sorted foreach stay valid.
 */
void xtap_map_sort(struct xtap_map *m, int column, int desc, int stat_op)
{
	struct xtap_sort_by by = {
		.m = m,
		.column = column,
		.desc = desc,
		.stat_op = stat_op,
	};

	if (column < 0 || column > m->spec->nkeys)
		return;
	if (xtap_map_is_stat(m))
		xtap_stat_map_aggregate(m);
	list_sort(&by, &m->order, xtap_sort_cmp);
}
