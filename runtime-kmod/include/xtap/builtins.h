/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The script's builtin functions and output: printf and print, strings,
 * arithmetic that can fail, context functions, symbols, names and dates.
 * Above context.h.
 */
#ifndef XTAP_BUILTINS_H
#define XTAP_BUILTINS_H

#include <xtap/context.h>

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

#endif /* XTAP_BUILTINS_H */
