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
void xtap_enter_refused(bool reentrant);
bool xtap_overload_window_ended(struct xtap_cpu_ctx *cc, u64 now);
bool xtap_leave_error(struct xtap_context *c);
void xtap_leave_fatal(void);

/*
 * NULL when the run must be skipped: the session is not in the probe's
 * phase, the CPU is already in a handler, or a global's lock was not had
 * (both counted). Otherwise interrupts are off and the probe's locks held
 * until xtap_leave_inline().
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
		local_irq_restore(flags);
		xtap_enter_refused(true);
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
			local_irq_restore(flags);
			xtap_enter_refused(false);
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
	if (l->overload_threshold && !cc->begin_end) {
		u64 now = get_cycles();

		cc->window_used += now - cc->run_start;
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
