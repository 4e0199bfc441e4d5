/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a script module hands the runtime (struct xtap_script and the
 * descriptors it points at: probes, globals, probe groups) and the
 * session it starts: init and exit, the handler bracket, exit() and
 * abort(). Above context.h.
 */
#ifndef XTAP_SCRIPT_H
#define XTAP_SCRIPT_H

#include <xtap/context.h>

/* ------------------------------------------------------------ descriptors */

enum xtap_type {
	XTAP_T_LONG = 1,
	XTAP_T_STRING = 2,
	XTAP_T_STAT = 3, /* statistics: only as a map value or a stat global */
};

enum xtap_hist_kind {
	XTAP_HIST_NONE = 0,
	XTAP_HIST_LINEAR = 1, /* @hist_linear(v, lo, hi, step) */
	XTAP_HIST_LOG = 2, /* @hist_log(v) */
};

/* How a statistic aggregates: fixed per global by the translator. */
struct xtap_stat_desc {
	u8 hist; /* enum xtap_hist_kind */
	u8 bit_shift; /* @variance(v, bit_shift): 0..62, 0 by default */
	u8 variance; /* the script reads @variance: keep the running
				* variance (two divisions per <<<) */
	u8 pct_bits; /* 0: no percentile sketch; else its k (stat.h) */
	s64 lo, hi, step; /* XTAP_HIST_LINEAR parameters */
};

enum xtap_stat_op {
	XTAP_OP_COUNT = 0,
	XTAP_OP_SUM = 1,
	XTAP_OP_MIN = 2,
	XTAP_OP_MAX = 3,
	XTAP_OP_AVG = 4,
	XTAP_OP_VARIANCE = 5,
};

struct xtap_lock_req {
	u16 global; /* index into the script's lock table (globals in declaration order) */
	u8 write; /* 1 = exclusive, 0 = shared */
};

struct xtap_probe {
	const char *
		point; /* probe point as written, e.g. kprobe.function("vfs_read") */
	const char *location; /* "file:line:col" of the probe in the script */
	void (*handler)(struct xtap_context *c);
	const struct xtap_lock_req *locks; /* sorted by global index */
	u16 nlocks;
	u32 timing; /* -t: 1 + index into xtap_script.timing; 0: not timed */
	u32 id; /* 1 + index into xtap_script.probe_descs: its loss counters */
	/*
	 * The probe's budget: handler cycles per CPU per overload window
	 * (XTAP_PROBE_BUDGET, .budget(NS)); past it the probe's runs on that
	 * CPU are skipped and counted until the window ends. 0: none.
	 */
	u64 budget;
};

/* What the end-of-run loss report names a probe by (probe_acct.c). */
struct xtap_probe_desc {
	const char *point;
	const char *location;
	u64 budget_ns; /* as the script set it: ns per second per CPU; 0: none */
};

/*
 * -t: what the probe hit report prints of one timed probe, in stap's
 * words: the probe point, where the script declares it, and the point as
 * the script wrote it (before alias expansion).
 */
struct xtap_timing_desc {
	const char *point;
	const char *location;
	const char *derivation;
	u32 id; /* the probe's xtap_probe.id: its skips and losses */
};

struct xtap_map;

struct xtap_map_spec {
	struct xtap_map *
		*map; /* where xtap_session_init stores the created map */
	const char *name;
	u8 nkeys;
	u8 key_types[XTAP_MAXKEYS]; /* enum xtap_type */
	u8 value_type; /* enum xtap_type */
	u32 max_entries; /* 0: limits.maxmapentries */
	u8 wrap; /* global a%: when full, the oldest entry is replaced */
	struct xtap_stat_desc stat; /* value_type == XTAP_T_STAT */
};

struct xtap_stat;

/* A scalar statistic global (global s; s <<< v). */
struct xtap_stat_spec {
	struct xtap_stat **stat;
	const char *name;
	struct xtap_stat_desc desc;
};

/*
 * Probe families. Each registered family (kprobes, timers, tracepoints...)
 * is one runtime file with these operations over its spec array; the
 * session walks the script's probe groups and names no family.
 *   alloc:  set up from the specs (module load); may fail with -errno.
 *   arm:    register every probe. On failure the family reports the error
 *           (xtap_fatal), unregisters what it registered, and returns it.
 *   disarm: unregister every armed probe and wait until none of its
 *           handlers can start any more (runs in reverse group order).
 *   free:   release what alloc took; safe after a failed alloc.
 */
struct xtap_family_ops {
	const char *name;
	int (*alloc)(const void *specs, u32 n);
	int (*arm)(void);
	void (*disarm)(void);
	void (*free)(void);
};

struct xtap_probe_group {
	const struct xtap_family_ops *ops;
	const void *specs;
	u32 nspecs;
};

/*
 * One script global as snapshots show it (snapshot.c): a number or string
 * (scalar), an array (map) or a statistic (stat); lock is its index in
 * the lock table. Tapset globals are left out.
 */
struct xtap_snap_global {
	const char *name;
	u16 lock;
	u8 type; /* enum xtap_type of a scalar */
	const void *scalar; /* s64 * or char[MAXSTRINGLEN] */
	struct xtap_map *const *map;
	struct xtap_stat *const *stat;
};

struct xtap_script {
	u32 abi; /* XTAP_ABI_VERSION */
	const char *name; /* script name for messages */
	struct xtap_limits limits;
	u16 nglobals; /* size of the lock table */
	const struct xtap_map_spec *maps;
	u16 nmaps;
	void (*init_globals)(
		void); /* set initial values; before any probe runs */
	const struct xtap_probe *begin; /* run in order at START */
	u16 nbegin;
	const struct xtap_probe *end; /* run in order at STOP */
	u16 nend;
	const struct xtap_probe *
		error; /* run instead of end when an error stopped the session */
	u16 nerror;
	const struct xtap_probe_group
		*groups; /* registered families, armed in order */
	u16 ngroups;
	const struct xtap_stat_spec *stats;
	u16 nstats;
	const char *const *regexes; /* regex literals, compiled at init */
	u16 nregexes;
	const struct xtap_timing_desc
		*timing; /* -t: the timed probes; NULL without -t */
	u32 ntiming;
	/* Every probe, begin and end too, by xtap_probe.id - 1. */
	const struct xtap_probe_desc *probe_descs;
	u32 nprobes;
	/* The printf format table served as xtap_<module>/formats (abi.h). */
	const char *formats;
	u32 formats_len;
	/* The globals snapshots show (xtap_<module>/snapshot, abi.h). */
	const struct xtap_snap_global *snap;
	u32 nsnap;
};

/* ------------------------------------------------------------ session */

/* From the generated module_init/module_exit. */
int xtap_session_init(const struct xtap_script *s);
void xtap_session_exit(void);

/*
 * Handler bracket, used by the runtime's probe providers (not by generated
 * code): xtap_enter returns NULL when the run must be skipped (session not
 * running, CPU context busy, a lock not taken within maxtrylock); skips are
 * counted. xtap_leave flushes output, reports an error if one was raised and
 * releases the locks.
 */
struct xtap_context *xtap_enter(const struct xtap_probe *p,
				struct pt_regs *regs);
void xtap_leave(struct xtap_context *c);
void xtap_run_probe(const struct xtap_probe *p, struct pt_regs *regs);

/*
 * -t: a timed handler's wrapper (generated only with -t) calls this after
 * the handler with the get_cycles() value from before it. Per-CPU counts,
 * no locks: handlers run with interrupts off.
 */
void xtap_timing_add(struct xtap_context *c, u64 start);

/* exit(): ask the runner to end the session; handlers stop being run. */
void xtap_request_exit(struct xtap_context *c);

/*
 * abort(): exit() that also ends this run at once, past any try/catch.
 * It unwinds as an error whose text is xtap_abort_msg (a catch block
 * passes it on, xtap_leave reports nothing).
 */
extern const char xtap_abort_msg[];
void xtap_abort(struct xtap_context *c);
static inline bool xtap_aborted(const struct xtap_context *c)
{
	return c->error == xtap_abort_msg;
}

#endif /* XTAP_SCRIPT_H */
