// SPDX-License-Identifier: GPL-2.0
/*
 * The hash table under every global array: preallocated entries, lookup,
 * insertion-ordered iteration. Statistic arrays are built from these tables
 * (stat_map.c); arrays.c is what the generated code calls on either kind.
 */
#include <linux/jhash.h>
#include <linux/list.h>
#include <linux/rculist.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/vmalloc.h>
#include "map.h"

static u32 xtap_type_size(u8 type)
{
	return type == XTAP_T_STRING ? ALIGN(xtap_strsize(), 8) : sizeof(s64);
}

static u32 xtap_value_size(struct xtap_map *m)
{
	if (m->spec->value_type == XTAP_T_STAT)
		return ALIGN(m->stat.size, 8);
	return xtap_type_size(m->spec->value_type);
}

static struct xtap_map_entry *xtap_pool_entry(struct xtap_map *m, u32 i)
{
	return (struct xtap_map_entry *)(m->pool + (size_t)i * m->entry_size);
}

static void xtap_free_push(struct xtap_map *m, struct xtap_map_entry *e)
{
	e->free_next = NULL;
	if (m->free_tail)
		m->free_tail->free_next = e;
	else
		m->free_head = e;
	m->free_tail = e;
}

static struct xtap_map_entry *xtap_free_pop(struct xtap_map *m)
{
	struct xtap_map_entry *e = m->free_head;

	if (e) {
		m->free_head = e->free_next;
		if (!m->free_head)
			m->free_tail = NULL;
	}
	return e;
}

void xtap_map_reset(struct xtap_map *m)
{
	u32 i;

	for (i = 0; i <= m->hash_mask; i++)
		INIT_HLIST_HEAD(&m->buckets[i]);
	INIT_LIST_HEAD(&m->order);
	m->free_head = m->free_tail = NULL;
	for (i = 0; i < m->max_entries; i++)
		xtap_free_push(m, xtap_pool_entry(m, i));
	m->count = 0;
}

/* One hash map; a statistic array has one per CPU plus its aggregate. */
struct xtap_map *xtap_map_instance(const struct xtap_map_spec *spec)
{
	struct xtap_map *m;
	u32 off = 0, nb;
	int i;

	if (spec->nkeys > XTAP_MAXKEYS)
		return ERR_PTR(-EINVAL);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->spec = spec;
	if (spec->value_type == XTAP_T_STAT &&
	    xtap_stat_layout_init(&m->stat, &spec->stat, spec->name)) {
		kfree(m);
		return ERR_PTR(-EINVAL);
	}
	m->max_entries = spec->max_entries ?: xtap_sess.limits.maxmapentries;
	for (i = 0; i < spec->nkeys; i++) {
		m->key_off[i] = off;
		off += xtap_type_size(spec->key_types[i]);
	}
	m->value_off = off;
	off += xtap_value_size(m);
	m->entry_size = ALIGN(sizeof(struct xtap_map_entry) + off, 8);
	nb = roundup_pow_of_two(max_t(u32, m->max_entries, 16));
	m->hash_mask = nb - 1;
	/* A script can ask for more than the machine has: fail quietly here and
	 * let xtap_maps_create() say so, rather than a page allocator splat. */
	m->buckets = kvmalloc_array(nb, sizeof(*m->buckets),
				    GFP_KERNEL | __GFP_NOWARN);
	m->pool = __vmalloc(array_size(m->max_entries, m->entry_size),
			    GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!m->buckets || !m->pool) {
		kvfree(m->buckets);
		vfree(m->pool);
		kfree(m);
		return ERR_PTR(-ENOMEM);
	}
	xtap_map_reset(m);
	return m;
}

void xtap_map_instance_free(struct xtap_map *m)
{
	kvfree(m->buckets);
	vfree(m->pool);
	kfree(m);
}

static bool xtap_key_is_str(struct xtap_map *m, int i)
{
	return m->spec->key_types[i] == XTAP_T_STRING;
}

/*
 * A string key's hash and length in one pass, a word at a time
 * (hashlen_string). Keys are NUL-terminated within maxstringlen; one
 * longer than a slot holds (maxstringlen - 1) is hashed as stored,
 * truncated, and marked (len > slot) for the slow compare.
 */
static u32 xtap_str_key_hash(const char *s, u32 salt, u32 *len)
{
	u32 max = xtap_strsize() - 1;
	u64 hl = hashlen_string((const void *)(unsigned long)salt, s);

	*len = hashlen_len(hl);
	if (likely(*len <= max))
		return hashlen_hash(hl);
	*len = max + 1;
	return full_name_hash((const void *)(unsigned long)salt, s, max);
}

/* The key's hash; `lens` gets each string key's length (see above). */
static u32 xtap_key_hash(struct xtap_map *m, const struct xtap_key *k,
			 u32 *lens)
{
	u32 h = m->spec->nkeys;
	int i;

	for (i = 0; i < m->spec->nkeys; i++) {
		if (xtap_key_is_str(m, i))
			h = xtap_str_key_hash(k[i].s ?: "", h, &lens[i]);
		else
			h = jhash(&k[i].n, sizeof(k[i].n), h);
	}
	return h;
}

static bool xtap_key_equal(struct xtap_map *m, struct xtap_map_entry *e,
			   const struct xtap_key *k, const u32 *lens)
{
	u32 max = xtap_strsize() - 1;
	int i;

	for (i = 0; i < m->spec->nkeys; i++) {
		const char *slot = e->data + m->key_off[i];

		if (xtap_key_is_str(m, i)) {
			const char *s = k[i].s ?: "";

			/* With its NUL: a longer stored key differs there. */
			if (likely(lens[i] <= max) ?
				    memcmp(slot, s, lens[i] + 1) :
				    strncmp(slot, s, max))
				return false;
		} else if (*(const s64 *)slot != k[i].n) {
			return false;
		}
	}
	return true;
}

/*
 * Lookups may run on another CPU's instance of a statistic array under a
 * shared lock while its owner inserts: entries are published with
 * hlist_add_head_rcu() and removed only under the exclusive lock.
 */
struct xtap_map_entry *xtap_map_find(struct xtap_map *m,
				     const struct xtap_key *k, u32 *hashp)
{
	u32 lens[XTAP_MAXKEYS];
	u32 hash = xtap_key_hash(m, k, lens);
	struct xtap_map_entry *e;

	if (hashp)
		*hashp = hash;
	hlist_for_each_entry_rcu(e, &m->buckets[hash & m->hash_mask], hnode,
				 true)
		if (e->hash == hash && xtap_key_equal(m, e, k, lens))
			return e;
	return NULL;
}

/* Insert a key known to be absent; NULL when the map is full. */
static struct xtap_map_entry *
xtap_map_insert(struct xtap_map *m, const struct xtap_key *k, u32 hash)
{
	struct xtap_map_entry *e = xtap_free_pop(m);
	int i;

	if (!e)
		return NULL;
	memset(e->data, 0, m->entry_size - sizeof(*e));
	for (i = 0; i < m->spec->nkeys; i++) {
		char *slot = e->data + m->key_off[i];

		if (xtap_key_is_str(m, i))
			strscpy(slot, k[i].s ?: "", xtap_strsize());
		else
			*(s64 *)slot = k[i].n;
	}
	e->hash = hash;
	hlist_add_head_rcu(&e->hnode, &m->buckets[hash & m->hash_mask]);
	list_add_tail_rcu(&e->order, &m->order);
	m->count++;
	return e;
}

/* Find or insert; NULL (error raised) when the map is full. */
struct xtap_map_entry *xtap_map_slot(struct xtap_context *c, struct xtap_map *m,
				     const struct xtap_key *k)
{
	struct xtap_map_entry *e;
	u32 hash;

	e = xtap_map_find(m, k, &hash);
	if (e)
		return e;
	e = xtap_map_insert(m, k, hash);
	if (!e && m->spec->wrap && !list_empty(&m->order)) {
		/* global a%: the oldest entry makes room, as in stap */
		xtap_map_unlink(m,
				list_first_entry(&m->order,
						 struct xtap_map_entry, order));
		e = xtap_map_insert(m, k, hash);
	}
	if (!e)
		xtap_error(
			c,
			"MAXMAPENTRIES exceeded: array '%s' is full (%u entries) in probe at %s",
			m->spec->name, m->max_entries,
			c->probe ? c->probe->location : "?");
	return e;
}

/* Find or insert without raising an error (aggregation). */
struct xtap_map_entry *xtap_map_find_or_insert(struct xtap_map *m,
					       const struct xtap_key *k)
{
	struct xtap_map_entry *e;
	u32 hash;

	e = xtap_map_find(m, k, &hash);
	return e ?: xtap_map_insert(m, k, hash);
}

/* The keys of e, pointing into e, for a lookup in a map of the same shape. */
void xtap_entry_keys(struct xtap_map *m, struct xtap_map_entry *e,
		     struct xtap_key *k)
{
	int i;

	for (i = 0; i < m->spec->nkeys; i++) {
		const char *slot = e->data + m->key_off[i];

		if (xtap_key_is_str(m, i))
			k[i].s = slot;
		else
			k[i].n = *(const s64 *)slot;
	}
}

int xtap_map_get_long(struct xtap_map *m, const struct xtap_key *k, s64 *out)
{
	struct xtap_map_entry *e = xtap_map_find(m, k, NULL);

	*out = e ? *(s64 *)(e->data + m->value_off) : 0;
	return e != NULL;
}

int xtap_map_get_str(struct xtap_map *m, const struct xtap_key *k, char *out)
{
	struct xtap_map_entry *e = xtap_map_find(m, k, NULL);

	if (e)
		strscpy(out, e->data + m->value_off, xtap_strsize());
	else
		out[0] = '\0';
	return e != NULL;
}

int xtap_map_set_long(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 v)
{
	struct xtap_map_entry *e = xtap_map_slot(c, m, k);

	if (!e)
		return -1;
	*(s64 *)(e->data + m->value_off) = v;
	return 0;
}

int xtap_map_set_str(struct xtap_context *c, struct xtap_map *m,
		     const struct xtap_key *k, const char *v)
{
	struct xtap_map_entry *e = xtap_map_slot(c, m, k);

	if (!e)
		return -1;
	strscpy(e->data + m->value_off, v ?: "", xtap_strsize());
	return 0;
}

int xtap_map_add_long(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 delta, s64 *result)
{
	struct xtap_map_entry *e = xtap_map_slot(c, m, k);
	s64 *v;

	if (!e)
		return -1;
	v = (s64 *)(e->data + m->value_off);
	/* Wrap like stap instead of tripping signed-overflow checkers. */
	*v = (s64)((u64)*v + (u64)delta);
	if (result)
		*result = *v;
	return 0;
}

/* Remove e; e->order.next stays valid so that xtap_map_next(m, e) works. */
void xtap_map_unlink(struct xtap_map *m, struct xtap_map_entry *e)
{
	hlist_del_rcu(&e->hnode);
	__list_del_entry(&e->order);
	m->count--;
	xtap_free_push(m, e);
}

struct xtap_map_entry *xtap_map_next(struct xtap_map *m,
				     struct xtap_map_entry *e)
{
	struct list_head *n = e->order.next;

	return n == &m->order ? NULL :
				list_entry(n, struct xtap_map_entry, order);
}

s64 xtap_entry_key_long(struct xtap_map *m, struct xtap_map_entry *e, int i)
{
	return *(s64 *)(e->data + m->key_off[i]);
}

const char *xtap_entry_key_str(struct xtap_map *m, struct xtap_map_entry *e,
			       int i)
{
	return e->data + m->key_off[i];
}

s64 xtap_entry_value_long(struct xtap_map *m, struct xtap_map_entry *e)
{
	return *(s64 *)(e->data + m->value_off);
}

const char *xtap_entry_value_str(struct xtap_map *m, struct xtap_map_entry *e)
{
	return e->data + m->value_off;
}
