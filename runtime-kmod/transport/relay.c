// SPDX-License-Identifier: GPL-2.0
/* Relay transport: per-CPU trace<N> files under the session's debugfs dir. */
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/relay.h>
#include "internal.h"

static struct rchan *xtap_chan;
static atomic64_t xtap_seq;
static atomic64_t xtap_dropped_records;
static atomic64_t xtap_dropped_bytes;
/*
 * Flight-recorder mode (-F, detached): a full buffer overwrites its oldest
 * sub-buffer instead of losing the new write, so that the newest output is
 * what a later collector finds.
 */
static bool xtap_relay_flight;
/* Set by subbuf_start when the CPU's buffer is full and the write is lost. */
static DEFINE_PER_CPU(int, xtap_relay_full);

static int xtap_subbuf_start(struct rchan_buf *buf, void *subbuf,
			     void *prev_subbuf, size_t prev_padding)
{
	/* Never overwrite unread data: the write that needed a switch is dropped. */
	if (relay_buf_full(buf) && !READ_ONCE(xtap_relay_flight)) {
		per_cpu(xtap_relay_full, buf->cpu) = 1;
		return 0;
	}
	return 1;
}

static struct dentry *xtap_create_buf_file(const char *filename,
					   struct dentry *parent, umode_t mode,
					   struct rchan_buf *buf,
					   int *is_global)
{
	struct dentry *d;

	*is_global = 0;
	d = debugfs_create_file(filename, 0400, parent, buf,
				&relay_file_operations);
	return IS_ERR(d) ? NULL : d;
}

static int xtap_remove_buf_file(struct dentry *dentry)
{
	debugfs_remove(dentry);
	return 0;
}

static const struct rchan_callbacks xtap_relay_cbs = {
	.subbuf_start = xtap_subbuf_start,
	.create_buf_file = xtap_create_buf_file,
	.remove_buf_file = xtap_remove_buf_file,
};

/*
 * Like stap: the buffers may take at most a quarter of free memory, split
 * between the CPUs; a machine short of memory gets fewer sub-buffers
 * (at least two) rather than a failed session.
 */
static void xtap_relay_fit_memory(void)
{
	struct sysinfo si;
	u64 avail, want;
	u32 n;

	si_meminfo(&si);
	avail = ((u64)(si.freeram + si.bufferram) << PAGE_SHIFT) / 4 /
		num_online_cpus();
	want = (u64)xtap_sess.limits.n_subbufs * xtap_sess.limits.subbuf_size;
	if (want <= avail)
		return;
	n = max_t(u64, 2, div64_u64(avail, xtap_sess.limits.subbuf_size));
	pr_info(XTAP_PFX
		"relay buffers cut to %u x %u bytes per CPU for free memory\n",
		n, xtap_sess.limits.subbuf_size);
	xtap_sess.limits.n_subbufs = n;
}

int xtap_relay_init(struct dentry *dir)
{
	xtap_relay_fit_memory();
	atomic64_set(&xtap_seq, 0);
	atomic64_set(&xtap_dropped_records, 0);
	atomic64_set(&xtap_dropped_bytes, 0);
	xtap_relay_flight = false;
	xtap_chan = relay_open("trace", dir, xtap_sess.limits.subbuf_size,
			       xtap_sess.limits.n_subbufs, &xtap_relay_cbs,
			       NULL);
	if (!xtap_chan) {
		pr_err(XTAP_PFX "cannot open relay channel (%u x %u bytes)\n",
		       xtap_sess.limits.n_subbufs,
		       xtap_sess.limits.subbuf_size);
		return -ENOMEM;
	}
	return 0;
}

void xtap_relay_exit(void)
{
	if (xtap_chan)
		relay_close(xtap_chan);
	xtap_chan = NULL;
}

void xtap_relay_set_flight(bool on)
{
	WRITE_ONCE(xtap_relay_flight, on);
}

u32 xtap_relay_max_record(void)
{
	return xtap_sess.limits.subbuf_size;
}

/*
 * Whether this CPU's buffer is too full for a record of len bytes: it does
 * not fit the current sub-buffer, and the switch relay_write() would make
 * finds no free one (the switch counts the current sub-buffer as produced,
 * unless a refused switch already did). Asked before a sequence number is
 * taken, so that a dropped record leaves no gap for the reader to wait on.
 * Only this CPU writes its buffer (interrupts are off) and the reader only
 * frees sub-buffers, so a "no" holds until the write.
 */
static bool xtap_relay_would_drop(u32 len)
{
	struct rchan_buf *buf = *this_cpu_ptr(xtap_chan->buf);
	size_t subbuf_size = xtap_chan->subbuf_size, ready;

	if (likely(buf->offset + len <= subbuf_size))
		return false;
	ready = buf->subbufs_produced - READ_ONCE(buf->subbufs_consumed) +
		(buf->offset != subbuf_size + 1);
	return ready >= xtap_chan->n_subbufs;
}

/*
 * Write one record (header included) with interrupts off. Stamps the
 * session-wide sequence number: numbers are dense, as a record that finds
 * the buffer full takes none. Returns false if the record was dropped.
 */
bool xtap_relay_write(const void *rec, u32 len)
{
	struct xtap_rec_hdr *h = (struct xtap_rec_hdr *)rec;
	unsigned long flags;
	bool lost;

	if (unlikely(!xtap_chan))
		return false;
	local_irq_save(flags);
	if (unlikely(!READ_ONCE(xtap_relay_flight) &&
		     xtap_relay_would_drop(len))) {
		lost = true;
	} else {
		h->seq = atomic64_inc_return(&xtap_seq);
		/* subbuf_start() still refuses what the check let through wrongly. */
		this_cpu_write(xtap_relay_full, 0);
		relay_write(xtap_chan, rec, len);
		lost = this_cpu_read(xtap_relay_full);
	}
	local_irq_restore(flags);
	if (unlikely(lost)) {
		atomic64_inc(&xtap_dropped_records);
		atomic64_add(len, &xtap_dropped_bytes);
	}
	return !lost;
}

void xtap_relay_dropped(u64 *records, u64 *bytes)
{
	*records = atomic64_read(&xtap_dropped_records);
	*bytes = atomic64_read(&xtap_dropped_bytes);
}
