/* SPDX-License-Identifier: GPL-2.0 */
/* Runtime-private declarations shared by the runtime's own .c files. */
#ifndef XTAP_INTERNAL_H
#define XTAP_INTERNAL_H

#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <xtap/runtime.h>

#define XTAP_PFX "xtap: "
#define XTAP_ERRBUF_EXTRA 256 /* error text beyond one string argument */

/*
 * Session states. Handlers run only in RUNNING; begin probes only in
 * STARTING, end probes only in ENDING.
 */
enum xtap_state {
	XTAP_ST_INIT = 0, /* loaded, waiting for START */
	XTAP_ST_STARTING, /* running begin probes, arming */
	XTAP_ST_RUNNING, /* probes armed and live */
	XTAP_ST_STOPPING, /* exit requested or stopping: handlers refused */
	XTAP_ST_ENDING, /* running end probes */
	XTAP_ST_DONE, /* stopped, DONE queued */
};

/* Per-CPU handler context; the public part is what generated code sees. */
struct xtap_cpu_ctx {
	struct xtap_context c;
	int busy; /* a handler owns this context */
	bool begin_end; /* the run is a begin, end or error probe's */
	u64 hits; /* completed runs on this CPU */
	char *printbuf_base; /* record header room + printbuf */
	unsigned long
		probe_addr; /* kprobes: the probed address, for probefunc() */
	unsigned long
		entry_key; /* kretprobes: the instance, keying @entry's values */
	struct xtap_procfs_buf *procfs_buf; /* procfs probes: $value */
	char *tok_str; /* tokenize(): the string being split (maxstringlen) */
	char *tok_next; /* tokenize(): where the next token starts, or NULL */
	char *tok_end;
	char *str_tmp; /* maxstringlen scratch for string functions */
	u64 run_start; /* overload guard: get_cycles() when this run began */
	u64 window_start; /* ... when the accounting window began */
	u64 window_used; /* ... handler cycles spent in the window */
	u64 window_gen; /* ... its number: probe budgets count per window */
};

/*
 * Per CPU, per probe (probe_acct.c): the budget's use in the current
 * window, and what the probe lost. Touched with interrupts off on its own
 * CPU only, so plain increments suffice; summed at the end of the session.
 */
struct xtap_probe_acct {
	u64 used; /* handler cycles in window number gen */
	u64 gen;
	u64 skipped_budget;
	u64 skipped_overload;
	u64 skipped_reentrant;
	u64 skipped_lock;
	u64 dropped_records;
	u64 dropped_bytes;
};

struct xtap_session {
	const struct xtap_script *script;
	struct xtap_limits limits;
	atomic_t state;
	atomic_t errored; /* a fatal error ended the session: no end probes */
	atomic_t exit_queued;
	atomic_t skip_reported;
	s64 target;
	struct xtap_cpu_ctx __percpu *ctx;
	rwlock_t *locks;
	atomic64_t skipped;
	atomic64_t skipped_reentrant; /* of skipped: the CPU was in a handler */
	atomic64_t skipped_lock; /* of skipped: a global's lock not taken */
	atomic64_t errors;
	atomic64_t warnings;
	struct dentry *dir;
	u16 allocated_groups; /* probe groups set up, in script order */
	u16 armed_groups; /* probe groups registered, in script order */
	/* Set up failed in a way the user must hear about: reported at START. */
	char init_error[256];
	/*
	 * -t: per possible CPU, script->ntiming counters (timing.c); NULL
	 * without -t.
	 */
	struct xtap_timing_stat **timing;
	/* Per possible CPU, script->nprobes loss counters (probe_acct.c). */
	struct xtap_probe_acct **acct;
	unsigned long
		*budget_warned; /* a bit per probe: its first skip was told */
	atomic_t overload_warned;
	/*
	 * The overload guard measures handler time: STP_OVERLOAD_THRESHOLD
	 * is set, or a probe has a budget.
	 */
	bool guard;
	/* Skip mode: a CPU whose window holds more handler cycles skips runs. */
	u64 cpu_cap;
};

extern struct xtap_session xtap_sess;

/* The size of a script string buffer, its terminator included (MAXSTRINGLEN). */
static inline size_t xtap_strsize(void)
{
	return xtap_sess.limits.maxstringlen;
}

static inline int xtap_state(void)
{
	return atomic_read(&xtap_sess.state);
}

/*
 * report.c, the bottom layer: errors, warnings, the exit request and the
 * message queue the runner reads through the ctl file.
 */
#define XTAP_MSGQ_SIZE (64 * 1024) /* power of two (kfifo) */
int xtap_report_init(void);
void xtap_report_exit(void);
void xtap_msg_queue(u16 type, const void *payload, u32 len);
bool xtap_msg_queue_parts(u16 type, const void *a, u32 alen, const void *b,
			  u32 blen);
void xtap_msg_text(u16 type, const char *text);
bool xtap_msgq_readable(void);
bool xtap_msgq_pending(void);
bool xtap_msgq_done(void);
size_t xtap_msgq_pop(u8 *buf, size_t len);
wait_queue_head_t *xtap_msgq_waitq(void);
/* Record why the session cannot start (first error wins). */
void xtap_init_error(const char *fmt, ...) __printf(1, 2);
void xtap_fatal(const char *fmt, ...) __printf(1, 2);
void xtap_count_skip(void);
/* exit(), a fatal error: the first request queues EXIT; handlers stop. */
void xtap_stop_requested(void);

/*
 * probe_acct.c: what each probe skipped and lost, and its budget. Below
 * context.c and output.c, which count into it; reports through report.c.
 */
int xtap_probe_acct_alloc(const struct xtap_script *s);
void xtap_probe_acct_free(void);
void xtap_probe_refused(const struct xtap_probe *p, bool reentrant);
void xtap_probe_dropped(const struct xtap_probe *p, u32 bytes);
void xtap_probe_over(const struct xtap_probe *p, bool cpu_wide);
void xtap_probe_acct_report(struct xtap_done *d);
bool xtap_probe_acct_line(u32 id, char *buf, size_t len);
static inline struct xtap_probe_acct *
xtap_probe_acct(const struct xtap_probe *p)
{
	/* Interrupts are off: this CPU's array stays this CPU's. */
	return xtap_sess.acct[raw_smp_processor_id()] + (p->id - 1);
}

/* context.c */
int xtap_contexts_alloc(void);
struct xtap_context *xtap_current_context(void);
void xtap_contexts_free(void);
void xtap_contexts_wait_idle(void);
u64 xtap_contexts_hits(void);

/*
 * control.c: the ctl file. What its commands do belongs to the session
 * above it, which hands it these.
 */
struct xtap_control_ops {
	int (*start)(s64 target); /* START: begin probes, then the rest */
	void (*stop)(bool run_end); /* STOP, or the collector went away */
	void (*collector_opened)(void); /* stp_pid(), is_myproc() */
	void (*reattached)(
		void); /* a collector attached to a detached session */
};
int xtap_control_init(struct dentry *dir, const struct xtap_control_ops *ops);
void xtap_control_exit(void);

/* session.c */
int xtap_cmd_start(s64 target);
void xtap_cmd_stop(bool run_end);

/* output.c */
void xtap_output_flush(struct xtap_context *c);
void xtap_print_bytes(struct xtap_context *c, const void *buf, size_t len);
__printf(2, 0) void xtap_vprintf(struct xtap_context *c, const char *fmt,
				 va_list ap);

/* transport/relay.c */
int xtap_relay_init(struct dentry *dir);
void xtap_relay_exit(void);
bool xtap_relay_write(const void *rec, u32 len);
/* cmdline.c: the current process's argv or environment strings into the string scratch. */
u32 xtap_copy_mm_strings(struct xtap_context *c, bool env, char **raw);
u32 xtap_relay_max_record(void);
void xtap_relay_set_flight(bool on);
void xtap_relay_dropped(u64 *records, u64 *bytes);

/* map.c */
int xtap_maps_create(const struct xtap_script *s);
void xtap_maps_destroy(void);

/* stat.c */
int xtap_stats_create(const struct xtap_script *s);
void xtap_stats_destroy(void);

/* timing.c: -t, the probe hit report */
int xtap_timing_alloc(const struct xtap_script *s);
void xtap_timing_free(void);
void xtap_timing_report(void);

/*
 * timing.c's counters of timed probe i summed over the CPUs, for
 * snapshots; all 0 without -t.
 */
void xtap_timing_read(u32 i, u64 *count, u64 *sum, u64 *min, u64 *max);

/* snapshot.c: xtap_<module>/snapshot and snapshot_names (abi.h) */
int xtap_snapshot_init(struct dentry *dir);
void xtap_snapshot_exit(void);

/* regex.c */
int xtap_regexes_create(const struct xtap_script *s);
void xtap_regexes_destroy(void);

/* probes/: one family per file (struct xtap_family_ops), plus the phases. */
void xtap_begin_run(void);
void xtap_end_run(void);
void xtap_error_run(void);

/*
 * probes/exe_match.c: a program as process probes match it, by the inode
 * of its file (ino 0: not looked up, matches nothing).
 */
struct xtap_exe_id {
	unsigned long ino;
	dev_t dev;
};
int xtap_exe_lookup(const char *path, struct xtap_exe_id *id);
bool xtap_current_exe_is(const struct xtap_exe_id *id);

/* Text for a registration errno, for "cannot register ..." messages. */
const char *xtap_errno_text(int err);

/* probes/entry_frames.c: the calls in flight whose entry values statements read. */
int xtap_entry_frames_alloc(struct xtap_entry_frames *f, u32 nslots);
void xtap_entry_frames_free(struct xtap_entry_frames *f);
int xtap_entry_frame_claim(struct xtap_entry_frames *f, unsigned long cfa,
			   const u64 *args);
void xtap_entry_frame_release(struct xtap_entry_frames *f, int slot);

#endif /* XTAP_INTERNAL_H */
