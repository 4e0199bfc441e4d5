// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots (abi.h): the debugfs files snapshot_names, written once at
 * load, and snapshot, a dump of the session's counters and the script's
 * globals made afresh at each open, for xtap-run --prometheus.
 *
 * The generated code describes the globals in a table (xtap_script.snap)
 * that this file walks, so the dump is one piece of runtime C rather than
 * code generated per script. Nothing here runs on a probe's path: the dump
 * is made in the reader's process context, one global at a time, under
 * that global's lock taken as a handler takes it (bounded try-lock,
 * interrupts off, the CPU's context marked busy so that an NMI probe does
 * not run over the statistics' per-CPU scratch), into a buffer sized and
 * allocated before any lock is taken.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include "map.h"

#define XTAP_SNAP_TRYLOCK_DELAY_NS 100

struct xtap_snap_out {
	u8 *buf;
	size_t len, cap;
	u32 nrecords;
};

static void *xtap_snap_names_blob;
static struct debugfs_blob_wrapper xtap_snap_names_wrapper;

/* The buffer is sized for the worst case, so a put never fails. */
static void xtap_snap_put(struct xtap_snap_out *o, const void *p, size_t n)
{
	if (WARN_ON_ONCE(o->len + n > o->cap))
		return;
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void xtap_snap_put_u32(struct xtap_snap_out *o, u32 v)
{
	xtap_snap_put(o, &v, sizeof(v));
}

static void xtap_snap_put_s64(struct xtap_snap_out *o, s64 v)
{
	xtap_snap_put(o, &v, sizeof(v));
}

static void xtap_snap_put_str(struct xtap_snap_out *o, const char *s)
{
	u32 n = strnlen(s, xtap_strsize());

	xtap_snap_put_u32(o, n);
	xtap_snap_put(o, s, n);
}

/* Starts a record; xtap_snap_rec_end fills in its size. */
static size_t xtap_snap_rec_begin(struct xtap_snap_out *o, u16 type, u32 index)
{
	struct xtap_snap_rec r = { .type = type, .index = index };
	size_t at = o->len;

	xtap_snap_put(o, &r, sizeof(r));
	o->nrecords++;
	return at;
}

static void xtap_snap_rec_end(struct xtap_snap_out *o, size_t at, u16 flags)
{
	struct xtap_snap_rec *r = (struct xtap_snap_rec *)(o->buf + at);

	r->size = o->len - at;
	r->flags = flags;
}

static u32 xtap_snap_nbuckets(const struct xtap_snap_global *g)
{
	if (g->map)
		return (*g->map)->stat.nbuckets;
	if (g->stat)
		return xtap_stat_buckets(*g->stat);
	return 0;
}

static u32 xtap_snap_npct(const struct xtap_snap_global *g)
{
	if (g->map)
		return (*g->map)->stat.npct;
	if (g->stat)
		return xtap_stat_pct_buckets(*g->stat);
	return 0;
}

/* nbuckets: the histogram's and the sketch's counts together */
static size_t xtap_snap_value_bound(u8 type, u32 nbuckets)
{
	if (type == XTAP_T_STRING)
		return sizeof(u32) + xtap_strsize();
	if (type == XTAP_T_STAT)
		return sizeof(struct xtap_snap_stat) + nbuckets * sizeof(s64);
	return sizeof(s64);
}

/* The most bytes one global's record can take. */
static size_t xtap_snap_bound(const struct xtap_snap_global *g)
{
	size_t n = sizeof(struct xtap_snap_rec);
	const struct xtap_map_spec *spec;
	size_t entry;
	u32 i, entries;

	if (g->stat)
		return n + xtap_snap_value_bound(XTAP_T_STAT,
						 xtap_snap_nbuckets(g) +
							 xtap_snap_npct(g));
	if (!g->map)
		return n + xtap_snap_value_bound(g->type, 0);
	if (!*g->map)
		return n;
	spec = (*g->map)->spec;
	entry = xtap_snap_value_bound(
		spec->value_type, xtap_snap_nbuckets(g) + xtap_snap_npct(g));
	for (i = 0; i < spec->nkeys; i++)
		entry += xtap_snap_value_bound(spec->key_types[i], 0);
	entries = min_t(u32, (*g->map)->max_entries, XTAP_SNAP_MAX_ENTRIES);
	return n + sizeof(struct xtap_snap_array) + entries * entry;
}

/*
 * The global's lock as a handler takes it: interrupts off, this CPU's
 * context busy, at most maxtrylock attempts. False (nothing held) when it
 * was not had; the caller then records a lock timeout.
 */
static bool xtap_snap_lock(u16 global, bool write, unsigned long *flags)
{
	rwlock_t *lock = &xtap_sess.locks[global];
	struct xtap_cpu_ctx *cc;
	u32 n = 0;

	local_irq_save(*flags);
	cc = this_cpu_ptr(xtap_sess.ctx);
	cc->busy = 1;
	barrier();
	while (!(write ? write_trylock(lock) : read_trylock(lock))) {
		if (++n >= xtap_sess.limits.maxtrylock) {
			barrier();
			cc->busy = 0;
			local_irq_restore(*flags);
			return false;
		}
		cpu_relax();
		ndelay(XTAP_SNAP_TRYLOCK_DELAY_NS);
	}
	return true;
}

static void xtap_snap_unlock(u16 global, bool write, unsigned long flags)
{
	struct xtap_cpu_ctx *cc = this_cpu_ptr(xtap_sess.ctx);

	if (write)
		write_unlock(&xtap_sess.locks[global]);
	else
		read_unlock(&xtap_sess.locks[global]);
	/* an aggregation overflow reports into the context: not a run's */
	cc->c.error = NULL;
	barrier();
	cc->busy = 0;
	local_irq_restore(flags);
}

static void xtap_snap_put_stat(struct xtap_snap_out *o,
			       const struct xtap_stat_layout *l,
			       const struct xtap_stat_data *sd)
{
	struct xtap_snap_stat st = {
		.size = sizeof(st),
		.nbuckets = l->nbuckets,
		.count = sd->count,
		.sum = sd->count ? sd->sum : 0,
		.min = sd->count ? sd->min : 0,
		.max = sd->count ? sd->max : 0,
		.npct = l->npct,
	};

	xtap_snap_put(o, &st, sizeof(st));
	/* the sketch follows the histogram in hist[] as in the dump */
	xtap_snap_put(o, sd->hist, (l->nbuckets + l->npct) * sizeof(s64));
}

static void xtap_snap_put_value(struct xtap_snap_out *o, struct xtap_map *m,
				struct xtap_map_entry *e)
{
	switch (m->spec->value_type) {
	case XTAP_T_STRING:
		xtap_snap_put_str(o, xtap_entry_value_str(m, e));
		break;
	case XTAP_T_STAT:
		xtap_snap_put_stat(o, &m->stat, xtap_entry_sd(m, e));
		break;
	default:
		xtap_snap_put_s64(o, xtap_entry_value_long(m, e));
	}
}

/* An array's entries in iteration order, at most XTAP_SNAP_MAX_ENTRIES. */
static u16 xtap_snap_put_array(struct xtap_snap_out *o, struct xtap_map *m)
{
	struct xtap_snap_array a = { .size = sizeof(a) };
	size_t at = o->len;
	struct xtap_map_entry *e;
	int i;

	if (xtap_map_is_stat(m))
		xtap_stat_map_aggregate(m);
	a.total = m->count;
	xtap_snap_put(o, &a, sizeof(a));
	for (e = xtap_map_first(m); e; e = xtap_map_next(m, e)) {
		if (a.nentries == XTAP_SNAP_MAX_ENTRIES)
			break;
		for (i = 0; i < m->spec->nkeys; i++) {
			if (m->spec->key_types[i] == XTAP_T_STRING)
				xtap_snap_put_str(o,
						  xtap_entry_key_str(m, e, i));
			else
				xtap_snap_put_s64(o,
						  xtap_entry_key_long(m, e, i));
		}
		xtap_snap_put_value(o, m, e);
		a.nentries++;
	}
	memcpy(o->buf + at, &a, sizeof(a));
	return a.nentries < a.total ? XTAP_SNAP_F_TRUNCATED : 0;
}

static void xtap_snap_global(struct xtap_snap_out *o, u32 index,
			     const struct xtap_snap_global *g)
{
	/* reading a statistic aggregates it in place: exclusive, as in stap */
	bool write = g->stat ||
		     (g->map && *g->map && xtap_map_is_stat(*g->map));
	size_t at = xtap_snap_rec_begin(o, XTAP_SNAP_REC_GLOBAL, index);
	const struct xtap_stat_layout *l;
	const struct xtap_stat_data *sd;
	unsigned long flags;
	u16 rflags = 0;

	if ((g->map && !*g->map) || (g->stat && !*g->stat)) {
		xtap_snap_rec_end(o, at, XTAP_SNAP_F_LOCK_TIMEOUT);
		return;
	}
	if (!xtap_snap_lock(g->lock, write, &flags)) {
		xtap_snap_rec_end(o, at, XTAP_SNAP_F_LOCK_TIMEOUT);
		return;
	}
	if (g->map) {
		rflags = xtap_snap_put_array(o, *g->map);
	} else if (g->stat) {
		sd = xtap_stat_snapshot(*g->stat, &l);
		xtap_snap_put_stat(o, l, sd);
	} else if (g->type == XTAP_T_STRING) {
		xtap_snap_put_str(o, g->scalar);
	} else {
		xtap_snap_put_s64(o, READ_ONCE(*(const s64 *)g->scalar));
	}
	xtap_snap_unlock(g->lock, write, flags);
	xtap_snap_rec_end(o, at, rflags);
}

static void xtap_snap_session(struct xtap_snap_out *o)
{
	size_t at = xtap_snap_rec_begin(o, XTAP_SNAP_REC_SESSION, 0);
	struct xtap_snap_session s = {
		.size = sizeof(s),
		.hits = xtap_contexts_hits(),
		.skipped = atomic64_read(&xtap_sess.skipped),
		.skipped_reentrant =
			atomic64_read(&xtap_sess.skipped_reentrant),
		.skipped_lock = atomic64_read(&xtap_sess.skipped_lock),
		.errors = atomic64_read(&xtap_sess.errors),
		.warnings = atomic64_read(&xtap_sess.warnings),
	};

	xtap_relay_dropped(&s.dropped_records, &s.dropped_bytes);
	xtap_snap_put(o, &s, sizeof(s));
	xtap_snap_rec_end(o, at, 0);
}

static void xtap_snap_probes(struct xtap_snap_out *o)
{
	const struct xtap_script *s = xtap_sess.script;
	struct xtap_snap_probe p;
	u32 i;

	for (i = 0; i < s->ntiming; i++) {
		size_t at = xtap_snap_rec_begin(o, XTAP_SNAP_REC_PROBE, i);

		memset(&p, 0, sizeof(p));
		p.size = sizeof(p);
		xtap_timing_read(i, &p.hits, &p.cycles_sum, &p.cycles_min,
				 &p.cycles_max);
		xtap_snap_put(o, &p, sizeof(p));
		xtap_snap_rec_end(o, at, 0);
	}
}

static int xtap_snap_open(struct inode *inode, struct file *file)
{
	const struct xtap_script *s = xtap_sess.script;
	struct xtap_snap_out o = { 0 };
	struct xtap_snap_hdr h = { .size = sizeof(h) };
	u32 i;

	o.cap = sizeof(h) + sizeof(struct xtap_snap_rec) +
		sizeof(struct xtap_snap_session) +
		s->ntiming * (sizeof(struct xtap_snap_rec) +
			      sizeof(struct xtap_snap_probe));
	for (i = 0; i < s->nsnap; i++)
		o.cap += xtap_snap_bound(&s->snap[i]);
	o.buf = kvmalloc(o.cap, GFP_KERNEL);
	if (!o.buf)
		return -ENOMEM;
	xtap_snap_put(&o, &h, sizeof(h));
	xtap_snap_session(&o);
	xtap_snap_probes(&o);
	for (i = 0; i < s->nsnap; i++) {
		xtap_snap_global(&o, i, &s->snap[i]);
		cond_resched();
	}
	h.magic = XTAP_SNAP_MAGIC;
	h.version = XTAP_SNAP_VERSION;
	h.abi = XTAP_ABI_VERSION;
	h.nrecords = o.nrecords;
	h.total = o.len;
	h.time_ns = ktime_get_real_ns();
	h.state = xtap_state();
	memcpy(o.buf, &h, sizeof(h));
	file->private_data = o.buf;
	return 0;
}

static ssize_t xtap_snap_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const struct xtap_snap_hdr *h = file->private_data;

	return simple_read_from_buffer(ubuf, count, ppos, h, h->total);
}

static int xtap_snap_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct file_operations xtap_snap_fops = {
	.owner = THIS_MODULE,
	.open = xtap_snap_open,
	.read = xtap_snap_read,
	.release = xtap_snap_release,
	/* no .llseek: not seekable on every kernel (6.12 has no no_llseek) */
};

static void xtap_snap_put_desc(struct xtap_snap_out *o, u32 index,
			       const struct xtap_snap_global *g)
{
	struct xtap_snap_global_desc d = { .kind = XTAP_SNAP_SCALAR };
	const struct xtap_stat_desc *sdesc = NULL;
	u32 n = strlen(g->name);
	int i;

	d.value_type = g->type;
	if (g->map && *g->map) {
		const struct xtap_map_spec *spec = (*g->map)->spec;

		d.kind = XTAP_SNAP_ARRAY;
		d.value_type = spec->value_type;
		d.nkeys = spec->nkeys;
		for (i = 0; i < spec->nkeys; i++)
			d.key_types[i] = spec->key_types[i];
		if (spec->value_type == XTAP_T_STAT)
			sdesc = &spec->stat;
	} else if (g->stat && *g->stat) {
		d.kind = XTAP_SNAP_STAT;
		d.value_type = XTAP_T_STAT;
		sdesc = xtap_stat_desc_of(*g->stat);
	}
	if (sdesc) {
		d.hist = sdesc->hist;
		d.lo = sdesc->lo;
		d.hi = sdesc->hi;
		d.step = sdesc->step;
		d.nbuckets = xtap_snap_nbuckets(g);
		d.pct_bits = sdesc->pct_bits;
		d.npct = xtap_snap_npct(g);
	}
	d.size = sizeof(d) + n;
	d.name_len = n;
	xtap_snap_put(o, &d, sizeof(d));
	xtap_snap_put(o, g->name, n);
}

/* The names table, once: after the globals were created. */
static int xtap_snap_names_build(const struct xtap_script *s)
{
	struct xtap_snap_names h = { .size = sizeof(h) };
	struct xtap_snap_out o = { 0 };
	struct xtap_snap_probe_desc pd;
	u32 i;

	o.cap = sizeof(h);
	for (i = 0; i < s->nsnap; i++)
		o.cap += sizeof(struct xtap_snap_global_desc) +
			 strlen(s->snap[i].name);
	for (i = 0; i < s->ntiming; i++)
		o.cap += sizeof(pd) + strlen(s->timing[i].point);
	o.buf = kvmalloc(o.cap, GFP_KERNEL);
	if (!o.buf)
		return -ENOMEM;
	h.magic = XTAP_SNAP_MAGIC;
	h.version = XTAP_SNAP_VERSION;
	h.nglobals = s->nsnap;
	h.nprobes = s->ntiming;
	h.max_entries = XTAP_SNAP_MAX_ENTRIES;
	xtap_snap_put(&o, &h, sizeof(h));
	for (i = 0; i < s->nsnap; i++)
		xtap_snap_put_desc(&o, i, &s->snap[i]);
	for (i = 0; i < s->ntiming; i++) {
		pd.point_len = strlen(s->timing[i].point);
		pd.size = sizeof(pd) + pd.point_len;
		xtap_snap_put(&o, &pd, sizeof(pd));
		xtap_snap_put(&o, s->timing[i].point, pd.point_len);
	}
	xtap_snap_names_blob = o.buf;
	xtap_snap_names_wrapper.data = o.buf;
	xtap_snap_names_wrapper.size = o.len;
	return 0;
}

int xtap_snapshot_init(struct dentry *dir)
{
	int err = xtap_snap_names_build(xtap_sess.script);

	if (err)
		return err;
	debugfs_create_blob("snapshot_names", 0400, dir,
			    &xtap_snap_names_wrapper);
	debugfs_create_file("snapshot", 0400, dir, NULL, &xtap_snap_fops);
	return 0;
}

void xtap_snapshot_exit(void)
{
	kvfree(xtap_snap_names_blob);
	xtap_snap_names_blob = NULL;
}
