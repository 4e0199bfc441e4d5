/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The enter/leave bracket of every handler run, inline: the probe families
 * on hot paths (kprobes, ftrace entries, tracepoints, uprobes) run it inside
 * their own callback, so that a hit costs one call into the script's
 * handler and no other. The rare paths (a refused run, an error, the end of
 * an overload window, locks) stay out of line in context.c.
 */
#ifndef XTAP_CONTEXT_INLINE_H
#define XTAP_CONTEXT_INLINE_H

#include <linux/irqflags.h>
#include <linux/timex.h>
#include "internal.h"

bool xtap_may_run_phase(const struct xtap_probe *p);
bool xtap_is_begin_end(const struct xtap_probe *p);
bool xtap_lock_all(const struct xtap_probe *p);
void xtap_unlock_n(const struct xtap_probe *p, int n);
void xtap_enter_refused(const struct xtap_probe *p, bool reentrant);
bool xtap_overload_window_ended(struct xtap_cpu_ctx *cc, u64 now);
bool xtap_enter_over(const struct xtap_probe *p, struct xtap_cpu_ctx *cc,
		     bool cpu_wide);
bool xtap_leave_error(struct xtap_context *c);
void xtap_leave_fatal(void);

/*
 * The overload guard's check before a run, interrupts off: the CPU's
 * window is over the threshold in skip mode (cpu_cap is U64_MAX
 * otherwise), or the probe's own budget is spent in this window. Two
 * compares on data the bracket touches anyway when neither holds.
 */
static __always_inline bool xtap_guard_skips(const struct xtap_probe *p,
					     struct xtap_cpu_ctx *cc)
{
	if (unlikely(cc->window_used > xtap_sess.cpu_cap))
		return xtap_enter_over(p, cc, true);
	if (p->budget) {
		const struct xtap_probe_acct *a = xtap_probe_acct(p);

		if (unlikely(a->gen == cc->window_gen && a->used > p->budget))
			return xtap_enter_over(p, cc, false);
	}
	return false;
}

/* The guard's bookkeeping after a run: its cycles to the CPU and the probe. */
static __always_inline void xtap_guard_charge(const struct xtap_probe *p,
					      struct xtap_cpu_ctx *cc,
					      u64 spent)
{
	cc->window_used += spent;
	if (p->budget) {
		struct xtap_probe_acct *a = xtap_probe_acct(p);

		if (a->gen != cc->window_gen) {
			a->gen = cc->window_gen;
			a->used = 0;
		}
		a->used += spent;
	}
}

/*
 * NULL when the run must be skipped: the session is not in the probe's
 * phase, the CPU is already in a handler, a global's lock was not had, or
 * the overload guard skips it (all counted). Otherwise interrupts are off
 * and the probe's locks held until xtap_leave_inline().
 */
static __always_inline struct xtap_context *
xtap_enter_inline(const struct xtap_probe *p, struct pt_regs *regs)
{
	bool running = likely(xtap_state() == XTAP_ST_RUNNING);
	struct xtap_cpu_ctx *cc;
	struct xtap_context *c;
	unsigned long flags;

	if (!running && !xtap_may_run_phase(p))
		return NULL;
	local_irq_save(flags);
	cc = this_cpu_ptr(xtap_sess.ctx);
	if (unlikely(cc->busy)) {
		xtap_enter_refused(p, true);
		local_irq_restore(flags);
		return NULL;
	}
	if (running && xtap_sess.guard && xtap_guard_skips(p, cc)) {
		local_irq_restore(flags);
		return NULL;
	}
	cc->busy = 1;
	barrier();
	c = &cc->c;
	c->probe = p;
	c->regs = regs;
	c->error = NULL;
	c->error_where = NULL;
	c->actions = 0;
	/*
	 * begin, end and error handlers run in process context, as stap's
	 * "interruptible" probes, with MAXACTION_INTERRUPTIBLE; they run only
	 * outside RUNNING.
	 */
	cc->begin_end = !running && xtap_is_begin_end(p);
	c->maxaction = cc->begin_end ?
			       xtap_sess.limits.maxaction_interruptible :
			       xtap_sess.limits.maxaction;
	c->nesting = 0;
	c->stack_used = 0;
	c->printbuf_used = 0;
	c->printbuf_items = false;
	c->locks_held = 0;
	c->irqflags = flags;
	cc->probe_addr = 0;
	cc->entry_key = 0;
	cc->procfs_buf = NULL;
	if (p->nlocks) {
		if (unlikely(!xtap_lock_all(p))) {
			barrier();
			cc->busy = 0;
			xtap_enter_refused(p, false);
			local_irq_restore(flags);
			return NULL;
		}
		c->locks_held = p->nlocks;
	}
	cc->run_start = get_cycles();
	return c;
}

/* Flushes the run's output, reports its error, releases what enter took. */
static __always_inline void xtap_leave_inline(struct xtap_context *c)
{
	struct xtap_cpu_ctx *cc = container_of(c, struct xtap_cpu_ctx, c);
	const struct xtap_limits *l = &xtap_sess.limits;
	unsigned long flags = c->irqflags;
	bool fatal = false;

	if (c->printbuf_used)
		xtap_output_flush(c);
	if (unlikely(c->error))
		fatal = xtap_leave_error(c);
	if (xtap_sess.guard && !cc->begin_end) {
		u64 now = get_cycles();

		xtap_guard_charge(c->probe, cc, now - cc->run_start);
		if (unlikely(now - cc->window_start > l->overload_interval) &&
		    xtap_overload_window_ended(cc, now)) {
			xtap_msg_text(XTAP_MSG_ERROR, c->error_buf);
			fatal = true;
		}
	}
	if (c->locks_held) {
		xtap_unlock_n(c->probe, c->locks_held);
		c->locks_held = 0;
	}
	cc->hits++;
	barrier();
	WRITE_ONCE(cc->busy, 0);
	local_irq_restore(flags);
	if (unlikely(fatal))
		xtap_leave_fatal();
}

#endif /* XTAP_CONTEXT_INLINE_H */
