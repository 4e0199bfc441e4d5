// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's bottom layer: how any part of it reports. Script errors
 * (xtap_error, caught by try/catch or ending the handler), warnings, errors
 * that end the session (xtap_fatal, xtap_init_error), the exit request, and
 * the message queue that carries them to the runner (control.c's ctl file
 * drains it). Calls nothing above it: maps, strings, output and the
 * session all report through here.
 */
#include <linux/irq_work.h>
#include <linux/kfifo.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include "internal.h"

/* Room kept for STARTED/EXIT/DONE so that a flood of errors cannot block them. */
#define XTAP_MSGQ_RESERVE 1024
#define XTAP_MSG_TEXT_MAX 1024

static DEFINE_SPINLOCK(xtap_msgq_lock);
static struct kfifo xtap_msgq;
static DECLARE_WAIT_QUEUE_HEAD(xtap_msgq_wait);
static struct irq_work xtap_wake_work;
static atomic_t xtap_msgs_lost;
static bool xtap_done_read; /* under xtap_msgq_lock */

static void xtap_wake_reader(struct irq_work *w)
{
	wake_up_interruptible(&xtap_msgq_wait);
}

static bool xtap_msg_vital(u16 type)
{
	return type != XTAP_MSG_ERROR && type != XTAP_MSG_WARNING &&
	       type != XTAP_MSG_PROBE_STATS;
}

/*
 * Queue one message made of two payload parts. Safe with interrupts off and
 * from NMI: never sleeps or allocates, and wakes the reader through irq_work
 * rather than directly.
 */
bool xtap_msg_queue_parts(u16 type, const void *a, u32 alen, const void *b,
			  u32 blen)
{
	struct xtap_msg_hdr h = {
		.size = sizeof(h) + alen + blen,
		.type = type,
		.abi = XTAP_ABI_VERSION,
	};
	u32 need = h.size + (xtap_msg_vital(type) ? 0 : XTAP_MSGQ_RESERVE);
	unsigned long flags = 0;
	bool nmi = in_nmi();
	bool queued = false;

	if (nmi) {
		if (!spin_trylock(&xtap_msgq_lock))
			goto lost;
	} else {
		spin_lock_irqsave(&xtap_msgq_lock, flags);
	}
	if (kfifo_avail(&xtap_msgq) >= need) {
		kfifo_in(&xtap_msgq, (const u8 *)&h, sizeof(h));
		if (alen)
			kfifo_in(&xtap_msgq, (const u8 *)a, alen);
		if (blen)
			kfifo_in(&xtap_msgq, (const u8 *)b, blen);
		queued = true;
	}
	if (nmi)
		spin_unlock(&xtap_msgq_lock);
	else
		spin_unlock_irqrestore(&xtap_msgq_lock, flags);
	if (queued) {
		irq_work_queue(&xtap_wake_work);
		return true;
	}
lost:
	atomic_inc(&xtap_msgs_lost);
	atomic64_inc(&xtap_sess.warnings);
	return false;
}

void xtap_msg_queue(u16 type, const void *payload, u32 len)
{
	xtap_msg_queue_parts(type, payload, len, NULL, 0);
}

/* Text messages carry a NUL-terminated string, cut at XTAP_MSG_TEXT_MAX. */
void xtap_msg_text(u16 type, const char *text)
{
	static const char nul;

	xtap_msg_queue_parts(type, text, strnlen(text, XTAP_MSG_TEXT_MAX - 1),
			     &nul, 1);
}

/* system(cmd): the runner runs it in user space, as stap's stapio does. */
void xtap_system(const char *cmd)
{
	xtap_msg_text(XTAP_MSG_SYSTEM, cmd);
}

bool xtap_msgq_readable(void)
{
	bool ready;
	unsigned long flags;

	spin_lock_irqsave(&xtap_msgq_lock, flags);
	ready = !kfifo_is_empty(&xtap_msgq) || xtap_done_read;
	spin_unlock_irqrestore(&xtap_msgq_lock, flags);
	return ready;
}

/* Pop whole messages into buf (up to len bytes). */
size_t xtap_msgq_pop(u8 *buf, size_t len)
{
	struct xtap_msg_hdr h;
	unsigned long flags;
	size_t used = 0;

	spin_lock_irqsave(&xtap_msgq_lock, flags);
	while (kfifo_out_peek(&xtap_msgq, (u8 *)&h, sizeof(h)) == sizeof(h) &&
	       used + h.size <= len) {
		if (kfifo_out(&xtap_msgq, buf + used, h.size) != h.size)
			break;
		used += h.size;
		if (h.type == XTAP_MSG_DONE)
			xtap_done_read = true;
	}
	spin_unlock_irqrestore(&xtap_msgq_lock, flags);
	return used;
}

/* DONE has been read: nothing follows it. */
bool xtap_msgq_done(void)
{
	return READ_ONCE(xtap_done_read);
}

/* A message is waiting (it may not fit the reader's buffer). */
bool xtap_msgq_pending(void)
{
	return !kfifo_is_empty(&xtap_msgq);
}

wait_queue_head_t *xtap_msgq_waitq(void)
{
	return &xtap_msgq_wait;
}

int xtap_report_init(void)
{
	int err = kfifo_alloc(&xtap_msgq, XTAP_MSGQ_SIZE, GFP_KERNEL);

	if (err)
		return err;
	init_irq_work(&xtap_wake_work, xtap_wake_reader);
	atomic_set(&xtap_msgs_lost, 0);
	xtap_done_read = false;
	return 0;
}

void xtap_report_exit(void)
{
	irq_work_sync(&xtap_wake_work);
	kfifo_free(&xtap_msgq);
}

/* exit(): the first request queues EXIT; handlers stop being run. */
void xtap_stop_requested(void)
{
	int st = xtap_state();

	while (st == XTAP_ST_STARTING || st == XTAP_ST_RUNNING) {
		int old =
			atomic_cmpxchg(&xtap_sess.state, st, XTAP_ST_STOPPING);

		if (old == st)
			break;
		st = old;
	}
	if (st == XTAP_ST_ENDING)
		return;
	if (!atomic_xchg(&xtap_sess.exit_queued, 1))
		xtap_msg_queue(XTAP_MSG_EXIT, NULL, 0);
}

void xtap_request_exit(struct xtap_context *c)
{
	xtap_stop_requested();
}

const char xtap_abort_msg[] = "abort()";

/* abort(): stop as exit() does, and end this run at once, through try/catch. */
void xtap_abort(struct xtap_context *c)
{
	xtap_stop_requested();
	/* over any error a catch block is handling */
	c->error = xtap_abort_msg;
	c->error_where = NULL;
}

/* An error that ends the session: reported, counted, no end probes. */
void xtap_fatal(const char *fmt, ...)
{
	/* a point, its location and two paths or build-ids must fit */
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	atomic64_inc(&xtap_sess.errors);
	xtap_msg_text(XTAP_MSG_ERROR, buf);
	atomic_set(&xtap_sess.errored, 1);
	xtap_stop_requested();
}

void xtap_count_skip(void)
{
	s64 n = atomic64_inc_return(&xtap_sess.skipped);

	if (n > xtap_sess.limits.maxskipped &&
	    !atomic_xchg(&xtap_sess.skip_reported, 1))
		xtap_fatal("Skipped too many probes (%lld), check MAXSKIPPED",
			   (long long)n);
}

void xtap_error(struct xtap_context *c, const char *fmt, ...)
{
	va_list ap;

	if (c->error)
		return;
	va_start(ap, fmt);
	vsnprintf(c->error_buf,
		  xtap_sess.limits.maxstringlen + XTAP_ERRBUF_EXTRA, fmt, ap);
	va_end(ap);
	c->error = c->error_buf;
}

void xtap_warn(struct xtap_context *c, const char *msg)
{
	atomic64_inc(&xtap_sess.warnings);
	xtap_msg_text(XTAP_MSG_WARNING, msg);
}

/*
 * A script the runtime cannot run (a regex that does not compile, a bad
 * histogram): the module still loads so that the runner can show the
 * message as an ERROR, and START ends the session before any probe runs.
 */
void xtap_init_error(const char *fmt, ...)
{
	char *buf = xtap_sess.init_error;
	va_list ap;

	if (buf[0])
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(xtap_sess.init_error), fmt, ap);
	va_end(ap);
	pr_err(XTAP_PFX "%s: %s\n", module_name(THIS_MODULE), buf);
}
