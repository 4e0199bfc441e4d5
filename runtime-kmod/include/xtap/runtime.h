/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The xtap runtime API: everything generated script C may call.
 *
 * A script module is thin generated C (one file) linked with the runtime
 * objects, which are compiled once per target kernel. The generated file
 * describes the script in a struct xtap_script and hands it to
 * xtap_session_init() from its module_init; the runtime does the rest
 * (control channel, relay, probe registration, locking, limits).
 *
 * Limits are values in the descriptor, not compile-time macros, so that
 * -D MAXACTION=... does not force the runtime to be recompiled. The one
 * exception is string storage: generated code sizes its buffers with its own
 * MAXSTRINGLEN and tells the runtime that size in xtap_limits.maxstringlen.
 */
#ifndef XTAP_RUNTIME_H
#define XTAP_RUNTIME_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <xtap/abi.h>
#include <xtap/memory.h>
#include <xtap/syscall_decode.h>

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

extern const struct xtap_family_ops xtap_kprobe_ops;
extern const struct xtap_family_ops xtap_kfunc_ops;
extern const struct xtap_family_ops xtap_timer_ops;
extern const struct xtap_family_ops xtap_tracepoint_ops;
extern const struct xtap_family_ops xtap_perf_ops;
extern const struct xtap_family_ops xtap_procfs_ops_family;
extern const struct xtap_family_ops xtap_uprobe_ops;

/*
 * One entry per process("PATH").function("f")[.call|.return] location: a
 * uprobe (or uretprobe) at a file offset of the program or library PATH.
 */
struct xtap_uprobe_spec {
	const struct xtap_probe *probe;
	const char *path; /* absolute path on the target */
	u64 offset; /* file offset of the probed instruction */
	u8 is_return; /* uretprobe */
	u8 optional; /* probe point?: skip silently if it cannot be registered */
	u8 in_module; /* kprobe.module("m"): a symbol that is not loaded (the
				 * module is not) is left out with a warning */
	u64 ref_ctr_offset; /* USDT: file offset of its semaphore, or 0 */
	s32 pid; /* process(PID): only in that process; 0: any */
	/*
	 * The GNU build-id of the file the translator read (build_id_len
	 * bytes, 0: none) and where its bytes are in the file: the file at
	 * `path` must have them there, or a rebuilt program would get its
	 * int3 in the middle of an instruction.
	 */
	const u8 *build_id;
	u8 build_id_len;
	u64 build_id_offset;
	/*
	 * uretprobe: keep the argument registers of each call from its entry
	 * ($param at the return, as in stap), and run entry_probe (@entry's
	 * saving half) there.
	 */
	u8 save_args;
	const struct xtap_probe *entry_probe;
};
extern const struct xtap_family_ops xtap_netfilter_ops;
extern const struct xtap_family_ops xtap_proclife_ops;

/*
 * process("PATH").begin/.end/.thread.begin/.thread.end: a process (or a
 * thread of one) whose executable is PATH starts or ends.
 */
enum xtap_proclife_event {
	XTAP_PROC_BEGIN = 0,
	XTAP_PROC_END = 1,
	XTAP_PROC_THREAD_BEGIN = 2,
	XTAP_PROC_THREAD_END = 3,
};

struct xtap_proclife_spec {
	const struct xtap_probe *probe;
	const char *path; /* the executable on the target */
	s32 pid; /* process(PID): only that process; 0: any */
	u8 event; /* enum xtap_proclife_event */
	u8 optional; /* probe point?: skip silently if PATH is missing */
};

/*
 * process("PATH").syscall[.return], process(PID).syscall[.return],
 * process.syscall[.return]: a system call of a matching process. The
 * handler's c->args[] holds the number (0), the six arguments (1-6) and,
 * at the return, the return value (7).
 */
struct xtap_process_syscall_spec {
	const struct xtap_probe *probe;
	const char *path; /* the executable on the target; NULL: any */
	s32 pid; /* process(PID): only that process; 0: any */
	u8 is_return; /* at sys_exit rather than sys_enter */
	u8 optional; /* probe point?: skip silently if PATH is missing */
};
extern const struct xtap_family_ops xtap_process_syscall_ops;

/* One entry per kprobe.function("sym") or kprobe.function("sym").return. */
struct xtap_kprobe_spec {
	const struct xtap_probe *probe;
	const char *symbol; /* "name", or "module:name" for a module's function */
	u32 offset; /* bytes past symbol: a statement, or a function
				 * DWARF found under another symbol (_stext) */
	u8 is_return; /* kretprobe */
	u32 maxactive; /* kretprobe instances; 0: kernel default */
	u8 optional; /* probe point?: skip silently if it cannot be registered */
	u8 in_module; /* kprobe.module("m"): a symbol that is not loaded (the
				 * module is not) is left out with a warning */
	u8 wildcard; /* symbol is a glob: the runner passes the matching
				 * functions in the xtap_symbols module parameter */
	u8 save_args; /* kretprobe: save the argument registers at entry
				 * (kernel.function("f").return reads $param) */
	u16 pattern; /* non-zero: one of the functions a pattern matched in
				 * pass 2 (same id, adjacent specs); left out with a
				 * warning if it cannot be probed */
	const char *pattern_text; /* that pattern, for messages */
	const struct xtap_probe
		*entry_probe; /* kretprobe: run at entry first (saves @entry
				 * values); the call is not probed if it cannot run */
	unsigned long
		address; /* kernel.statement(ADDR).absolute: the kprobe's address
				 * as given (symbol unused) */
	const unsigned long
		*return_to; /* .callee: run only for calls that return to
				 * *return_to + return_offset (the caller's call
				 * site), the return address atop the stack at entry */
	u32 return_offset;
	struct xtap_entry_frames
		*frames; /* kretprobe that only keeps the argument
				 * registers of each call in flight for entry values
				 * (DW_OP_entry_value) read inside it; `probe` (a
				 * statement that reads them) is not run */
};

/*
 * The calls in flight of one function whose entry values a statement probe
 * reads: one slot per call, claimed by the kretprobe's entry handler and
 * freed at its return, found again by the task and the call's CFA (the
 * stack address above its return address, the same at every statement
 * of one call). Bounded: `nslots` calls at a time, the kretprobe's maxactive.
 */
struct xtap_entry_frame {
	unsigned long cfa; /* 0: free */
	struct task_struct *task;
	const u64 *args; /* XTAP_KFUNC_REG_ARGS registers, in the instance */
};

struct xtap_entry_frames {
	struct xtap_entry_frame *slots;
	u32 nslots;
	const char *function; /* for messages */
};

/*
 * procfs("name").read / .write: a file under /proc/xtap/MODULE/. A read
 * probe fills a buffer of maxsize bytes; a write probe takes writes of up
 * to maxsize bytes. umask: non-zero, the permission bits to clear.
 */
struct xtap_procfs_spec {
	const struct xtap_probe *probe;
	const char *name;
	u8 is_write;
	u32 maxsize;
	u16 umask;
};

/* The buffer behind $value in a procfs probe. */
struct xtap_procfs_buf {
	u32 len, cap;
	bool truncated;
	char data[];
};

char *xtap_procfs_value(struct xtap_context *c, char *dst);
void xtap_procfs_set(struct xtap_context *c, const char *s, int append);

/* kernel.function: the argument registers of the x86-64 calling convention. */
#define XTAP_KFUNC_REG_ARGS 6
/* Argument i at entry, or its saved entry value in a .return probe. */
u64 xtap_kfunc_arg(struct xtap_context *c, int i);
/* The return value, in a .return probe. */
u64 xtap_kfunc_return(struct xtap_context *c);
/*
 * DWARF locations (kernel.statement, locals): register `regno` in DWARF's
 * x86-64 numbering at the probe, and `size` bytes at `addr` through the
 * nofault reader (0 and the read fault raised if unreadable).
 */
u64 xtap_dwarf_reg(struct xtap_context *c, int regno);
/*
 * DW_OP_entry_value of argument register `arg` (0-5) at a statement of the
 * function `f` whose call has `cfa` at this statement: the register as the
 * call's entry saved it. A call whose entry was not seen (it began before
 * the session armed its probes, or all slots were taken) raises a
 * catchable error and gives 0.
 */
u64 xtap_entry_arg(struct xtap_context *c, struct xtap_entry_frames *f, int arg,
		   u64 cfa);
u64 xtap_dwarf_load(struct xtap_context *c, u64 addr, u32 size, int is_signed);
u64 xtap_dwarf_uload(struct xtap_context *c, u64 addr, u32 size, int is_signed);
/*
 * Guru-mode $var = v for a variable in register `regno` (DWARF numbering):
 * the kprobe's saved register, which the kernel restores when the handler
 * returns. The translator refuses the stack and instruction pointers.
 */
void xtap_dwarf_set_reg(struct xtap_context *c, int regno, u64 v);
/*
 * From the generated module_init: the load-time addresses of the kernel
 * ("name", "_stext") and module ("mod:name") symbols the script's
 * variables are placed by; -ENOENT (logged) when one is missing.
 */
int xtap_resolve_data_symbols(const char *const *names, unsigned long *addrs,
			      u32 n);

/* One entry per timer.ms(N) / timer.s(N) / timer.us(N) / timer.ns(N). */
/*
 * timer.UNIT(N)[.randomize(M)]: a period in nanoseconds, or for
 * timer.jiffies in jiffies (converted at start, with the kernel's own HZ);
 * each interval is then moved by a random amount in [-M, M] of the same unit.
 */
/* One entry per perf.*, timer.profile probe: a perf event on every CPU. */
struct xtap_perf_spec {
	const struct xtap_probe *probe;
	u32 type; /* perf_event_attr.type */
	u64 config; /* perf_event_attr.config */
	u64 sample_period; /* 0: sample_freq instead */
	u64 sample_freq;
	u8 tick; /* timer.profile: a sample each tick (TICK_NSEC) */
	u8 optional; /* pp?: an event this machine lacks is skipped */
};

/*
 * One entry per kernel.data(ADDRESS|"SYMBOL")[.length(N)].write|.rw: a
 * hardware watchpoint on every CPU. A symbol's address is looked up when
 * the module loads (xtap_resolve_data_symbols) into *symbol_address.
 */
struct xtap_hwbkpt_spec {
	const struct xtap_probe *probe;
	unsigned long address; /* kernel.data(ADDRESS) */
	const unsigned long
		*symbol_address; /* kernel.data("SYMBOL"), else NULL */
	u8 len; /* bytes watched: 1, 2, 4 or 8 */
	u8 type; /* HW_BREAKPOINT_W or HW_BREAKPOINT_RW */
	u8 optional; /* pp?: a watchpoint the machine refuses is skipped */
};
extern const struct xtap_family_ops xtap_hwbkpt_ops;

/*
 * netfilter.hook(H).pf(PF).priority(N): a hook in the initial network
 * namespace. Its handler sees args[] = { hooknum, skb, in, out, okfn,
 * verdict (NF_ACCEPT) }; a guru-mode script may set the verdict to NF_DROP.
 */
struct xtap_netfilter_spec {
	const struct xtap_probe *probe;
	u8 hook;
	u8 pf;
	s32 priority;
};

struct xtap_timer_spec {
	const struct xtap_probe *probe;
	u64 period_ns;
	u64 randomize_ns;
	u32 period_jiffies;
	u32 randomize_jiffies;
};

/*
 * One entry per kernel.trace("...") location. The callback is generated
 * with the tracepoint's own prototype (after the data pointer, which is
 * the spec); it widens the arguments and calls xtap_tracepoint_run().
 */
struct xtap_tracepoint_spec {
	const struct xtap_probe *probe;
	const char *name; /* the kernel's tracepoint */
	void *callback; /* NULL for a syscall event */
	/*
	 * syscalls:sys_enter_NAME and sys_exit_NAME (name is "sys_enter" or
	 * "sys_exit"): the native syscall number. The runtime registers one
	 * dispatcher per raw tracepoint for all of them, which runs the
	 * probes of the syscall at hand only. -1 for other tracepoints.
	 */
	s32 syscall_nr;
	u8 optional;
};

void xtap_tracepoint_run(void *spec, const u64 *args);
/* Syscall events on the raw_syscalls tracepoints (x86-64 native ABI). */
u64 xtap_syscall_arg(struct xtap_context *c,
		     int i); /* c->args[0] holds the regs */
/*
 * stap's int_arg(n) and kin: argument n (from 1) of the probed kernel
 * function (kprobes) or of the system call (syscall events); 0 elsewhere.
 */
u64 xtap_probe_arg(struct xtap_context *c, int n);
long xtap_syscall_nr(const void *regs); /* -1 for compat syscalls */

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

/* ------------------------------------------------------------ output */

/*
 * A script value used as a printf '*' width or precision: the kernel's
 * vsnprintf warns (a WARNING in the log) past 2^15 for precisions, and stap
 * treats a negative one as 0.
 */
#define XTAP_FMT_WIDTH(v) ((int)clamp_t(s64, (v), 0, 32767))

/* Append formatted text to the CPU's staged output (kernel vsnprintf format). */
void xtap_printf(struct xtap_context *c, const char *fmt, ...) __printf(2, 3);
void xtap_print_str(struct xtap_context *c, const char *s);
/*
 * printf with a constant format, unformatted: format id (1-based, in the
 * script's table), the argument kinds ('l' a number, 's' a string) and the
 * values (strings as pointers). Only while xtap_binary_output (the runner
 * formats the records); false if the item cannot be staged, and the caller
 * formats it with xtap_printf instead.
 */
extern bool xtap_binary_output;
bool xtap_bprintf(struct xtap_context *c, u32 id, const char *kinds,
		  const u64 *v);
void xtap_print_long(struct xtap_context *c, s64 v);

/* ------------------------------------------------------------ strings */

/* All take and honour dst size = limits.maxstringlen; results are NUL-terminated. */
char *xtap_str_copy(char *dst, const char *src);
char *xtap_str_concat(char *dst, const char *a, const char *b);
char *xtap_str_append(char *dst, const char *src); /* .= */
char *xtap_sprintf(char *dst, const char *fmt, ...) __printf(2, 3);
char *xtap_long_to_str(char *dst, s64 v);

/* ------------------------------------------------------------ arithmetic */

/* Division and modulo by zero raise an error; S64_MIN / -1 wraps like stap. */
s64 xtap_div(struct xtap_context *c, s64 a, s64 b, const char *where);
s64 xtap_mod(struct xtap_context *c, s64 a, s64 b, const char *where);

/* ------------------------------------------------------------ context functions */

/*
 * execname() into a script string, inline: two word copies (a script
 * string holds MAXSTRINGLEN bytes, never fewer than a task's comm: the
 * translator's lower bound is 16). No task_lock: a handler may run in NMI
 * or under the task's own locks; a rename racing with it may show a mix of
 * both names, never an unterminated one.
 */
static __always_inline char *xtap_execname_inline(char *dst)
{
	memcpy(dst, current->comm, TASK_COMM_LEN);
	dst[TASK_COMM_LEN - 1] = '\0';
	return dst;
}

s64 xtap_pid(void);
s64 xtap_tid(void);
s64 xtap_ppid(void);
s64 xtap_uid(void);
s64 xtap_gid(void);
s64 xtap_cpu(void);
s64 xtap_gettimeofday_ns(void);
s64 xtap_target(void); /* pid given by the runner's -c/-x, or 0 */

/* ------------------------------------------------------------ maps */

/*
 * Keys are passed as an array of xtap_key, one per map key, using the member
 * matching the key's declared type. Maps keep insertion order for unsorted
 * iteration. The caller holds the global's lock (taken by xtap_enter).
 */
struct xtap_key {
	s64 n;
	const char *s;
};

struct xtap_map_entry; /* opaque */

/* Lookups: return 1 and fill *out when present, 0 when absent (out = 0 / ""). */
int xtap_map_get_long(struct xtap_map *m, const struct xtap_key *k, s64 *out);
int xtap_map_get_str(struct xtap_map *m, const struct xtap_key *k, char *out);
int xtap_map_exists(struct xtap_map *m, const struct xtap_key *k);

/* Stores: return 0, or raise "MAXMAPENTRIES exceeded" and return -1. */
int xtap_map_set_long(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 v);
int xtap_map_set_str(struct xtap_context *c, struct xtap_map *m,
		     const struct xtap_key *k, const char *v);
/* a[k] += delta in one lookup; *result = the new value. */
int xtap_map_add_long(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 delta, s64 *result);

void xtap_map_delete(struct xtap_map *m, const struct xtap_key *k);
void xtap_map_clear(struct xtap_map *m);

/*
 * Slices: key i is `*` (matches anything) when bit i of any is set; the
 * other keys must be equal. [k, *] in a / delete a[k, *] / foreach over
 * a[k, *] (xtap_entry_in_slice filters the entries of a plain foreach).
 */
int xtap_map_exists_slice(struct xtap_map *m, const struct xtap_key *k,
			  u32 any);
void xtap_map_delete_slice(struct xtap_map *m, const struct xtap_key *k,
			   u32 any);
int xtap_entry_in_slice(struct xtap_map *m, struct xtap_map_entry *e,
			const struct xtap_key *k, u32 any);
u32 xtap_map_size(struct xtap_map *m);

/* Iteration in insertion order; safe against deleting the current entry. */
struct xtap_map_entry *xtap_map_first(struct xtap_map *m);
struct xtap_map_entry *xtap_map_next(struct xtap_map *m,
				     struct xtap_map_entry *e);
s64 xtap_entry_key_long(struct xtap_map *m, struct xtap_map_entry *e, int i);
const char *xtap_entry_key_str(struct xtap_map *m, struct xtap_map_entry *e,
			       int i);
s64 xtap_entry_value_long(struct xtap_map *m, struct xtap_map_entry *e);
const char *xtap_entry_value_str(struct xtap_map *m, struct xtap_map_entry *e);

/* ------------------------------------------------------------ statistics */

/*
 * <<< adds to the current CPU's aggregate and takes no global lock (the
 * translator asks only for a shared lock on the global); extraction
 * aggregates every CPU. Extracting @min/@max/@avg/@variance of an empty
 * statistic raises "empty aggregate" and returns -1, as stap does.
 */
void xtap_stat_add(struct xtap_stat *s, s64 v);
int xtap_stat_get(struct xtap_context *c, struct xtap_stat *s, int op,
		  s64 *out);
void xtap_stat_print_hist(struct xtap_context *c,
			  struct xtap_stat *s); /* stap's ASCII format */
void xtap_stat_clear(struct xtap_stat *s);

/* Statistic arrays (value_type XTAP_T_STAT): per-CPU maps inside. */
int xtap_map_stat_add(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 v);
int xtap_map_stat_get(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, int op, s64 *out);
void xtap_map_stat_print_hist(struct xtap_context *c, struct xtap_map *m,
			      const struct xtap_key *k);
/*
 * Histogram buckets: sprint(@hist_log(s)) appends the histogram's text to
 * dst (cut at MAXSTRINGLEN); @hist_log(s)[i] is bucket i's count. Both
 * raise "empty aggregate" on an empty statistic, the second "histogram
 * index out of range" past the buckets, and return -1 then. foreach over
 * the buckets reads the number of buckets and each count (0 when empty).
 */
int xtap_stat_sprint_hist(struct xtap_context *c, char *dst,
			  struct xtap_stat *s);
int xtap_map_stat_sprint_hist(struct xtap_context *c, char *dst,
			      struct xtap_map *m, const struct xtap_key *k);
int xtap_stat_bucket(struct xtap_context *c, struct xtap_stat *s, s64 i,
		     s64 *out);
int xtap_map_stat_bucket(struct xtap_context *c, struct xtap_map *m,
			 const struct xtap_key *k, s64 i, s64 *out);
u32 xtap_stat_buckets(struct xtap_stat *s);
u32 xtap_stat_pct_buckets(struct xtap_stat *s); /* 0: no sketch */
u32 xtap_map_stat_buckets(struct xtap_map *m);
s64 xtap_stat_bucket_count(struct xtap_stat *s, u32 i);
s64 xtap_map_stat_bucket_count(struct xtap_map *m, const struct xtap_key *k,
			       u32 i);
/*
 * Percentiles (stat_pct.c): @percentile(s, p[, d]) is the value of rank
 * ceil(count * p / d) (d is 100 unless given), from the sketch, within its
 * relative error; @median(s) is p = 50. print(@quantiles(s)) prints the
 * count, min, p50, p90, p99, p99.9 and max. Errors as @avg's, and
 * "percentile out of range" when p / d is not within 0..1.
 */
int xtap_stat_pct(struct xtap_context *c, struct xtap_stat *s, s64 p, s64 d,
		  s64 *out);
int xtap_map_stat_pct(struct xtap_context *c, struct xtap_map *m,
		      const struct xtap_key *k, s64 p, s64 d, s64 *out);
void xtap_stat_print_quantiles(struct xtap_context *c, struct xtap_stat *s);
void xtap_map_stat_print_quantiles(struct xtap_context *c, struct xtap_map *m,
				   const struct xtap_key *k);
int xtap_stat_sprint_quantiles(struct xtap_context *c, char *dst,
			       struct xtap_stat *s);
int xtap_map_stat_sprint_quantiles(struct xtap_context *c, char *dst,
				   struct xtap_map *m,
				   const struct xtap_key *k);
/* For a statistic array's entry in foreach: one aggregate of that entry. */
s64 xtap_entry_stat(struct xtap_map *m, struct xtap_map_entry *e, int op);

/*
 * Reorders m's iteration order for a sorted foreach: by value (column 0)
 * or by key `column` (1-based), descending when desc; statistic maps sort
 * by the aggregate stat_op. Stable, no allocation.
 */
void xtap_map_sort(struct xtap_map *m, int column, int desc, int stat_op);

/* ------------------------------------------------------------ regular expressions */

/* s =~ regexes[idx]: 1 on a match, 0 otherwise; captures kept for matched(). */
int xtap_regex_match(struct xtap_context *c, u16 idx, const char *s);
char *xtap_regex_matched(struct xtap_context *c, char *dst, s64 n);
/* ngroups(): the last match's groups, the whole match (group 0) included */
s64 xtap_regex_ngroups(struct xtap_context *c);

/* ------------------------------------------------------------ more strings */

char *xtap_substr(char *dst, const char *s, s64 start, s64 len);
s64 xtap_isinstr(const char *s1, const char *s2);
s64 xtap_strtol(struct xtap_context *c, const char *s, s64 base);
char *xtap_str_replace(char *dst, const char *s, const char *from,
		       const char *to);
char *xtap_tokenize(struct xtap_context *c, char *dst, const char *s,
		    const char *delim);
char *xtap_text_str(char *dst, const char *s);
s64 xtap_stringat(struct xtap_context *c, const char *s, s64 pos);

/* ------------------------------------------------------------ more context */

char *xtap_pp(struct xtap_context *c, char *dst); /* probe point text */
char *xtap_probefunc(struct xtap_context *c,
		     char *dst); /* function of the probed address */
/* @entry: the call's key (kretprobe instance or thread) */
s64 xtap_entry_key(struct xtap_context *c);
/* system(): queued to the runner, run with /bin/sh -c */
void xtap_system(const char *cmd);
s64 xtap_jiffies(void);
s64 xtap_local_clock_ns(void);
s64 xtap_cpu_clock_ns(struct xtap_context *c, s64 cpu);
s64 xtap_get_cycles(void); /* the CPU's cycle counter */
char *xtap_symname(char *dst, s64 addr); /* "vfs_read", or "0x..." */
s64 xtap_user_mode(struct xtap_context *c); /* the probe hit user code */
s64 xtap_addr(struct xtap_context *c); /* the probe's instruction pointer */
s64 xtap_uaddr(struct xtap_context *c); /* where the task was in user space */
/* backtrace(): the kernel stack from the probe point, "0x... 0x..." (20 deep). */
char *xtap_backtrace(struct xtap_context *c, char *dst);
/* print_backtrace(), print_syms(addrs): " 0x... : sym+0x4/0x1a0 [mod]" a line. */
void xtap_print_backtrace(struct xtap_context *c);
void xtap_print_syms(struct xtap_context *c, const char *addrs);
s64 xtap_target_set_pid(s64 pid); /* pid is target() or a descendant */
/* register("rdi"), u_register(...): a register of the probe's pt_regs by name. */
s64 xtap_register(struct xtap_context *c, const char *name, int is_signed);
s64 xtap_randint(struct xtap_context *c, s64 n); /* 0..n-1 */
char *xtap_ip_ntop(char *dst, s64 addr); /* "127.0.0.1" */
char *xtap_symdata(char *dst, s64 addr); /* "vfs_read+0x4/0x1a0 [module]" */
/* modname(addr): the module whose symbol covers addr, "kernel", or an error. */
char *xtap_modname(struct xtap_context *c, char *dst, s64 addr);

/* ------------------------------------------------------------ user-space symbols */

/*
 * The symbol and line tables of the user programs and libraries a script
 * names, generated by the translator (codegen/user_symbols.cpp). Every
 * address is a file offset, so one table serves wherever the file is mapped.
 */
struct xtap_usym {
	u64 offset; /* file offset of the function's first byte */
	u32 size;
	u32 name; /* offset of its name in xtap_ubinary.names */
};

struct xtap_uline {
	u64 offset; /* file offset where this row starts */
	u32 file; /* index into xtap_ubinary.files */
	u32 line; /* 0: end of a sequence, no line here */
};

/* How a user_unwind.c row finds the caller's frame (translator: symbols/user_cfi.h). */
enum xtap_ucfi_kind {
	XTAP_UCFI_NONE =
		0, /* no usable CFI rule here: follow the frame pointer */
	XTAP_UCFI_RSP = 1, /* CFA = rsp + cfa_off */
	XTAP_UCFI_RBP = 2, /* CFA = rbp + cfa_off */
	XTAP_UCFI_END = 3, /* return address undefined: the outermost frame */
	XTAP_UCFI_SIGNAL = 4, /* signal return: the ucontext is at rsp */
};

/*
 * One row of a file's call-frame information, from its file offset to the
 * next row's: the caller's rsp is the CFA, its return address is at CFA-8
 * and its rbp at CFA+rbp_off (rbp_off 0: rbp is unchanged).
 */
struct xtap_ucfi {
	u32 offset;
	s32 cfa_off;
	s16 rbp_off;
	u8 kind; /* enum xtap_ucfi_kind */
	u8 unused;
};

struct xtap_ubinary {
	const char *path; /* as the script named it: the [module] text */
	u64 file_size; /* checked at load: a different file is not used */
	const struct xtap_usym *syms; /* sorted by offset */
	u32 nsyms;
	const char *names;
	const struct xtap_uline *lines; /* sorted by offset; may be empty */
	u32 nlines;
	const char *const *files;
	const struct xtap_ucfi
		*cfi; /* sorted by offset; only for stack scripts */
	u32 ncfi;
};

/* From module_init, before the session starts / after it ends. */
int xtap_usyms_init(const struct xtap_ubinary *bins, u32 n);
void xtap_usyms_exit(void);

/* usymname() and friends: see runtime-kmod/user_symbols.c for the forms. */
char *xtap_usymname(struct xtap_context *c, char *dst, s64 addr);
char *xtap_usymdata(struct xtap_context *c, char *dst, s64 addr);
char *xtap_umodname(struct xtap_context *c, char *dst, s64 addr);
/* which: 1 file, 2 line, 3 both ("file:line"); the address when unknown */
char *xtap_usymfileline(struct xtap_context *c, char *dst, s64 addr, int which);
/* symfileline() and friends for kernel addresses: kernel line tables are not embedded */
char *xtap_symfileline(char *dst, s64 addr);
/* ubacktrace(), print_ubacktrace(), sprint_ubacktrace(), print_usyms(), sprint_usyms() */
char *xtap_ubacktrace(struct xtap_context *c, char *dst);
void xtap_print_ubacktrace(struct xtap_context *c);
void xtap_print_ubacktrace_from(struct xtap_context *c, s64 pc, s64 sp, s64 fp);
char *xtap_sprint_ubacktrace(struct xtap_context *c, char *dst);
void xtap_print_usyms(struct xtap_context *c, const char *addrs);
char *xtap_sprint_usyms(struct xtap_context *c, char *dst, const char *addrs);
/* ustack(n): the n-th address of the user stack; 0 past its end */
s64 xtap_ustack(struct xtap_context *c, s64 n);
/* sprint_backtrace(), sprint_syms(addrs): the kernel stack, "sym+0x4 [mod]" a line */
char *xtap_sprint_backtrace(struct xtap_context *c, char *dst);
char *xtap_sprint_syms(char *dst, const char *addrs);

/* ------------------------------------------------------------ names and dates */

/* errno_str(): "ENOENT" for 2 or -2, "" for a number without a name. */
void xtap_errno_str(char *dst, s64 err);
int xtap_errno_known(s64 err);
/* signal_str(): "HUP" for 1, "RTMIN+3" for 35, "" otherwise. */
void xtap_signal_str(char *dst, s64 sig);
/* cmdline_args(n, m, delim): the current process's arguments n..m (m < n: all). */
char *xtap_cmdline_args(struct xtap_context *c, char *dst, s64 n, s64 m,
			const char *delim);
/* ctime(): "Wed Jun 30 21:49:08 1993" (UTC); an error outside 32-bit time_t. */
char *xtap_ctime(struct xtap_context *c, char *dst, s64 secs);

/* ------------------------------------------------------------ more output */

/*
 * switch_file(): a mark in the output stream after what this run printed so
 * far; xtap-run -o FILE -S starts the next output file there.
 */
void xtap_switch_file(struct xtap_context *c);
/* %b: the value's low `bytes` bytes (1, 2, 4 or 8), raw. */
void xtap_print_binary(struct xtap_context *c, s64 v, int bytes);
void xtap_print_binary_field(struct xtap_context *c, s64 v, int width,
			     int precision, bool left);
/* %m / %M: len bytes of kernel memory at addr, as text or as hex digits; unreadable memory raises an error. */
int xtap_print_memory(struct xtap_context *c, s64 addr, int len, int hex);

#include <xtap/tapset_funcs.h>

#endif /* XTAP_RUNTIME_H */
