// SPDX-License-Identifier: GPL-2.0
/* Per-CPU handler contexts: the enter/leave bracket, locks, errors, limits. */
#include <linux/timex.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include "internal.h"
#include "context_inline.h"

#define XTAP_TRYLOCK_DELAY_NS 100

int xtap_contexts_alloc(void)
{
	const struct xtap_limits *l = &xtap_sess.limits;
	int cpu;

	xtap_sess.ctx = alloc_percpu(struct xtap_cpu_ctx);
	if (!xtap_sess.ctx)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct xtap_cpu_ctx *cc = per_cpu_ptr(xtap_sess.ctx, cpu);
		struct xtap_context *c = &cc->c;
		int node = cpu_to_node(cpu);

		c->stack_size = l->stack_size;
		c->maxaction = l->maxaction;
		c->maxnesting = l->maxnesting;
		c->stack = kvzalloc_node(max_t(u32, l->stack_size, 8),
					 GFP_KERNEL, node);
		c->error_buf = kzalloc_node(l->maxstringlen + XTAP_ERRBUF_EXTRA,
					    GFP_KERNEL, node);
		/* Room for a record header in front, and vsnprintf's NUL after. */
		cc->printbuf_base = kvzalloc_node(sizeof(struct xtap_rec_hdr) +
							  l->printbuf_size + 1,
						  GFP_KERNEL, node);
		cc->tok_str = kzalloc_node(l->maxstringlen, GFP_KERNEL, node);
		cc->str_tmp = kzalloc_node(l->maxstringlen, GFP_KERNEL, node);
		if (!c->stack || !c->error_buf || !cc->printbuf_base ||
		    !cc->tok_str || !cc->str_tmp)
			return -ENOMEM;
		c->printbuf = cc->printbuf_base + sizeof(struct xtap_rec_hdr);
		c->printbuf_size = l->printbuf_size;
	}
	return 0;
}

void xtap_contexts_free(void)
{
	int cpu;

	if (!xtap_sess.ctx)
		return;
	for_each_possible_cpu(cpu) {
		struct xtap_cpu_ctx *cc = per_cpu_ptr(xtap_sess.ctx, cpu);

		kvfree(cc->c.stack);
		kfree(cc->c.error_buf);
		kvfree(cc->printbuf_base);
		kfree(cc->tok_str);
		kfree(cc->str_tmp);
	}
	free_percpu(xtap_sess.ctx);
	xtap_sess.ctx = NULL;
}

/* Wait until no CPU is inside a handler (after probes were disarmed). */
void xtap_contexts_wait_idle(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct xtap_cpu_ctx *cc = per_cpu_ptr(xtap_sess.ctx, cpu);

		while (READ_ONCE(cc->busy))
			msleep(1);
	}
}

/* The context of the handler running on this CPU, or NULL outside one. */
struct xtap_context *xtap_current_context(void)
{
	struct xtap_cpu_ctx *cc;

	if (!xtap_sess.ctx || !irqs_disabled())
		return NULL;
	cc = this_cpu_ptr(xtap_sess.ctx);
	return READ_ONCE(cc->busy) ? &cc->c : NULL;
}

u64 xtap_contexts_hits(void)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(xtap_sess.ctx, cpu)->hits);
	return sum;
}

/* begin, end and error handlers: stap's "interruptible" probes. */
bool xtap_is_begin_end(const struct xtap_probe *p)
{
	const struct xtap_script *s = xtap_sess.script;

	return (p >= s->begin && p < s->begin + s->nbegin) ||
	       (p >= s->end && p < s->end + s->nend) ||
	       (p >= s->error && p < s->error + s->nerror);
}

/* Outside RUNNING: only the phase's own probes (begin, then end and error). */
bool xtap_may_run_phase(const struct xtap_probe *p)
{
	const struct xtap_script *s = xtap_sess.script;
	int st = xtap_state();

	if (st == XTAP_ST_RUNNING)
		return true;
	if (st == XTAP_ST_STARTING)
		return p >= s->begin && p < s->begin + s->nbegin;
	if (st == XTAP_ST_ENDING)
		return (p >= s->end && p < s->end + s->nend) ||
		       (p >= s->error && p < s->error + s->nerror);
	return false;
}

void xtap_unlock_n(const struct xtap_probe *p, int n)
{
	while (n-- > 0) {
		const struct xtap_lock_req *r = &p->locks[n];

		if (r->write)
			write_unlock(&xtap_sess.locks[r->global]);
		else
			read_unlock(&xtap_sess.locks[r->global]);
	}
}

/* Take the probe's locks in order; bounded by maxtrylock, never blocks. */
bool xtap_lock_all(const struct xtap_probe *p)
{
	u32 tries = xtap_sess.limits.maxtrylock;
	int i;

	for (i = 0; i < p->nlocks; i++) {
		const struct xtap_lock_req *r = &p->locks[i];
		rwlock_t *lock;
		u32 n = 0;

		if (unlikely(r->global >= xtap_sess.script->nglobals))
			continue;
		lock = &xtap_sess.locks[r->global];
		while (!(r->write ? write_trylock(lock) : read_trylock(lock))) {
			if (++n >= tries) {
				xtap_unlock_n(p, i);
				return false;
			}
			/*
			 * cpu_relax() first: it is the spin-wait hint on real
			 * hardware, and on an emulated SMP guest it lets the
			 * lock holder's vCPU run (ndelay may spin without it).
			 */
			cpu_relax();
			ndelay(XTAP_TRYLOCK_DELAY_NS);
		}
	}
	return true;
}

/* A run that could not begin: counted as stap counts them, and per probe. */
void xtap_enter_refused(const struct xtap_probe *p, bool reentrant)
{
	xtap_probe_refused(p, reentrant);
	atomic64_inc(reentrant ? &xtap_sess.skipped_reentrant :
				 &xtap_sess.skipped_lock);
	xtap_count_skip();
}

/*
 * The overload guard, as stap's STP_OVERLOAD: handler time is summed per
 * CPU (xtap_leave_inline), and when a window of overload_interval cycles has
 * passed, a sum over overload_threshold ends the session (abort mode; in
 * skip mode the window only starts over). begin, end and error probes run
 * in process context and are not counted. True when this run tipped it
 * over.
 */
bool xtap_overload_window_ended(struct xtap_cpu_ctx *cc, u64 now)
{
	const struct xtap_limits *l = &xtap_sess.limits;
	u64 window = now - cc->window_start;
	bool over = !l->overload_skip && l->overload_threshold &&
		    cc->window_used > l->overload_threshold;

	if (over)
		snprintf(
			cc->c.error_buf, l->maxstringlen + XTAP_ERRBUF_EXTRA,
			"probe overhead exceeded threshold: handlers took %llu of %llu cycles on CPU %d "
			"(STP_OVERLOAD_THRESHOLD=%llu per STP_OVERLOAD_INTERVAL=%llu; -DSTP_NO_OVERLOAD turns the check off)",
			cc->window_used, window, smp_processor_id(),
			l->overload_threshold, l->overload_interval);
	cc->window_start = now;
	cc->window_used = 0;
	cc->window_gen++; /* every probe's budget starts over */
	return over;
}

/*
 * The guard would skip this run (xtap_guard_skips): unless the window has
 * ended meanwhile (a CPU whose runs are all skipped charges no time, so
 * only here does it see the window end), the run is skipped and counted
 * for its probe. In abort mode the window's end may still end the session.
 */
bool xtap_enter_over(const struct xtap_probe *p, struct xtap_cpu_ctx *cc,
		     bool cpu_wide)
{
	u64 now = get_cycles();

	if (now - cc->window_start > xtap_sess.limits.overload_interval) {
		if (xtap_overload_window_ended(cc, now)) {
			xtap_msg_text(XTAP_MSG_ERROR, cc->c.error_buf);
			xtap_leave_fatal();
			return true;
		}
		return false;
	}
	xtap_probe_over(p, cpu_wide);
	return true;
}

/* An error the run raised: reported; true when it was one too many. */
bool xtap_leave_error(struct xtap_context *c)
{
	s64 n;

	if (xtap_aborted(c))
		return false; /* abort() is an exit, not an error */
	n = atomic64_inc_return(&xtap_sess.errors);

	if (c->error_where) {
		/* c->error is this CPU's error buffer: append in place. */
		size_t len = strlen(c->error_buf);

		snprintf(c->error_buf + len,
			 xtap_sess.limits.maxstringlen + XTAP_ERRBUF_EXTRA -
				 len,
			 " %s", c->error_where);
	}
	xtap_msg_text(XTAP_MSG_ERROR, c->error);
	return n > xtap_sess.limits.maxerrors;
}

void xtap_leave_fatal(void)
{
	atomic_set(&xtap_sess.errored, 1);
	xtap_stop_requested();
}

struct xtap_context *xtap_enter(const struct xtap_probe *p,
				struct pt_regs *regs)
{
	return xtap_enter_inline(p, regs);
}

void xtap_leave(struct xtap_context *c)
{
	xtap_leave_inline(c);
}

void xtap_run_probe(const struct xtap_probe *p, struct pt_regs *regs)
{
	struct xtap_context *c = xtap_enter_inline(p, regs);

	if (!c)
		return;
	p->handler(c);
	xtap_leave_inline(c);
}

void *xtap_frame_overflow(struct xtap_context *c, u32 size)
{
	xtap_error(
		c,
		"stack overflow: frame of %u bytes does not fit in %u bytes (MAXSTACK)",
		size, c->stack_size);
	return NULL;
}
