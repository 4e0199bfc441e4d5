/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bottom of the runtime API: a handler run's context and limits, how
 * it raises a run-time error and unwinds, and its frame stack. Every
 * other runtime header builds on this one (runtime.h has the layers).
 */
#ifndef XTAP_CONTEXT_H
#define XTAP_CONTEXT_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#define XTAP_MAXKEYS 9

/* ---------------------------------------------------------------- limits */

struct xtap_limits {
	u32 maxstringlen; /* bytes of every string buffer, NUL included */
	u32 maxaction; /* statements per handler run */
	u32 maxnesting; /* function call depth */
	u32 maxmapentries; /* default entries per array */
	u32 maxskipped; /* skipped runs before the session ends */
	u32 maxerrors; /* errors tolerated before the session ends (0: first ends it) */
	u32 maxtrylock; /* lock attempts before a run is skipped */
	u32 stack_size; /* bytes of per-CPU frame stack for locals and temporaries */
	u32 subbuf_size; /* relay sub-buffer bytes */
	u32 n_subbufs; /* relay sub-buffers per CPU */
	u32 printbuf_size; /* per-CPU output staging buffer */
	u32 maxaction_interruptible; /* statements per begin/end/error handler run */
	u64 overload_interval; /* STP_OVERLOAD_INTERVAL: cycles per accounting window */
	u64 overload_threshold; /* STP_OVERLOAD_THRESHOLD: handler cycles allowed per window; 0: no check */
	/*
	 * XTAP_OVERLOAD: 0 (abort, stap's guard): a CPU over the threshold
	 * ends the session; 1 (skip): that CPU's runs are skipped and counted
	 * until its window ends.
	 */
	u32 overload_skip;
};

/* ---------------------------------------------------------------- context */

/*
 * One per CPU. A handler runs with local interrupts off and owns its CPU's
 * context from xtap_enter() to xtap_leave().
 */
struct xtap_context {
	const struct xtap_probe *probe;
	struct pt_regs *regs; /* NULL for begin/end/timer probes */
	const u64 *args; /* tracepoints: the arguments, widened to u64 */
	struct pt_regs
		*syscall_regs; /* syscall events: the task's user registers */
	const char *error; /* first run-time error of this run, or NULL */
	const char *
		error_where; /* "near operator '/' at t.stp:3:14", or NULL: shown
				     * when the error ends the run, not in catch (msg) */
	char *error_buf; /* storage for formatted error text */
	u32 actions; /* statements executed in this run */
	u32 nesting; /* current function call depth */
	u32 maxaction; /* limits, copied here so that checks need no call */
	u32 maxnesting;
	u32 stack_used; /* bytes of frame stack in use */
	u32 stack_size;
	char *stack; /* frame stack (locals, temporaries) */
	char *printbuf; /* staged output, flushed at xtap_leave() */
	u32 printbuf_used;
	bool printbuf_items; /* printbuf holds XTAP_REC_FORMATTED items, not text */
	u32 printbuf_size;
	unsigned long irqflags;
	u16 locks_held; /* number of lock requests of probe taken */
};

/* ------------------------------------------------------------ errors */

/* Raise a run-time error (first one per run wins); the caller then unwinds. */
void xtap_error(struct xtap_context *c, const char *fmt, ...) __printf(2, 3);
void xtap_warn(struct xtap_context *c, const char *msg);

#define XTAP_FAIL(c, label, ...)              \
	do {                                  \
		xtap_error((c), __VA_ARGS__); \
		goto label;                   \
	} while (0)

/* Count n statements; unwind when the run exceeds maxaction. */
#define XTAP_ACTIONS(c, n, label)                                     \
	do {                                                          \
		if (unlikely(((c)->actions += (n)) > (c)->maxaction)) \
			XTAP_FAIL(c, label, "MAXACTION exceeded");    \
	} while (0)

#define XTAP_CHECK(c, label)              \
	do {                              \
		if (unlikely((c)->error)) \
			goto label;       \
	} while (0)

const struct xtap_limits *xtap_limits(void);

/* ------------------------------------------------------------ frames */

/*
 * Locals and temporaries live in a per-CPU frame stack, not on the kernel
 * stack. push returns storage whose first `zero` bytes (the locals, which
 * start as 0 and "") are zeroed, or NULL (error raised: stack overflow);
 * temporaries after them are always written before being read, so a
 * handler run does not pay for clearing them. pop takes the same size, in
 * LIFO order. Inline: every handler and script function call does both.
 */
void *xtap_frame_overflow(struct xtap_context *c, u32 size);

static inline void *xtap_frame_push(struct xtap_context *c, u32 size, u32 zero)
{
	u32 sz = ALIGN(size, 8);
	void *p;

	if (unlikely(sz < size || sz > c->stack_size - c->stack_used))
		return xtap_frame_overflow(c, size);
	p = c->stack + c->stack_used;
	c->stack_used += sz;
	memset(p, 0, min(zero, size));
	return p;
}

static inline void xtap_frame_pop(struct xtap_context *c, u32 size)
{
	u32 sz = ALIGN(size, 8);

	c->stack_used = sz > c->stack_used ? 0 : c->stack_used - sz;
}

#endif /* XTAP_CONTEXT_H */
