/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe families' operations and their spec structs (one per family,
 * filled by the translator's provider of that family), and the helpers
 * their handlers call. Above script.h.
 */
#ifndef XTAP_FAMILIES_H
#define XTAP_FAMILIES_H

#include <xtap/script.h>

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

#endif /* XTAP_FAMILIES_H */
