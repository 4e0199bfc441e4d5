/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory reads that never fault: kernel and user memory, strings, and the
 * task fields built on them.
 *
 * Every address a script hands over may be stale, garbage or hostile. The
 * readers go through the kernel's nofault copies, so they work in any
 * context a handler runs in (interrupts off, in an interrupt, under NMI)
 * and never oops. A failed read raises stap's catchable error and returns
 * -EFAULT: for the plain reads (target variables, %m, task fields) the one
 * stap's generated code raises,
 *
 *	read fault [man error::fault] at 0x10
 *
 * and for the tapsets' readers theirs, which name the type:
 *
 *	kernel long copy fault at 0x10 [man error::fault]
 *
 * Generated code tests the return value or c->error and unwinds.
 */
#ifndef XTAP_MEMORY_H
#define XTAP_MEMORY_H

#include <linux/errno.h>
#include <linux/types.h>

struct xtap_context;

/* ------------------------------------------------------------ faults */

/* Raise "read fault [man error::fault] at 0x<addr>". */
void xtap_read_fault(struct xtap_context *c, unsigned long addr);
/* Raise "<what> fault at 0x<addr> [man error::fault]" (what: "kernel long copy"). */
void xtap_fault(struct xtap_context *c, const char *what, unsigned long addr);

/* ------------------------------------------------------------ raw copies */

/*
 * size bytes from addr to dst, without raising anything: 0 or -EFAULT.
 * Kernel addresses only for kcopy; for ucopy, user addresses of the
 * current task (never a kernel thread's borrowed address space).
 */
int xtap_kcopy(void *dst, unsigned long addr, u32 size);
int xtap_ucopy(void *dst, unsigned long addr, u32 size);

/*
 * A long of the current task's user space into *v (4 bytes for a 32-bit
 * task, 8 otherwise), sign- or zero-extended: 0 or -EFAULT, nothing raised.
 */
int xtap_ucopy_long(s64 *v, unsigned long addr, bool is_signed);

/*
 * A C string at addr into dst, at most size - 1 bytes and a NUL: its
 * length, or -EFAULT if a byte before the NUL (or the limit) is unreadable.
 * size 0 copies nothing and returns 0.
 */
long xtap_kcopy_str(char *dst, unsigned long addr, u32 size);
long xtap_ucopy_str(char *dst, unsigned long addr, u32 size);

/* ------------------------------------------------------------ reads */

/* size bytes from addr: 0, or the read fault raised and -EFAULT. */
int xtap_kread(struct xtap_context *c, unsigned long addr, void *dst, u32 size);
int xtap_uread(struct xtap_context *c, unsigned long addr, void *dst, u32 size);
/* size bytes of src to kernel addr (guru mode): 0, or a write fault raised and -EFAULT. */
int xtap_kwrite(struct xtap_context *c, unsigned long addr, const void *src,
		u32 size);

/*
 * Integer reads for generated code: xtap_kread_s32(c, addr, &v) reads an
 * s32 and sign-extends it into the s64 v (the u* forms zero-extend); on a
 * fault v is 0, the error is raised and -EFAULT returned.
 * xtap_kread_{s8,u8,s16,u16,s32,u32,s64,u64}, xtap_uread_{the same}.
 */
#define XTAP_DEFINE_READ_INT(space, type)                           \
	static inline int xtap_##space##read_##type(                \
		struct xtap_context *c, unsigned long addr, s64 *v) \
	{                                                           \
		type x;                                             \
                                                                    \
		if (xtap_##space##read(c, addr, &x, sizeof(x))) {   \
			*v = 0;                                     \
			return -EFAULT;                             \
		}                                                   \
		*v = (s64)x;                                        \
		return 0;                                           \
	}

XTAP_DEFINE_READ_INT(k, s8)
XTAP_DEFINE_READ_INT(k, u8)
XTAP_DEFINE_READ_INT(k, s16)
XTAP_DEFINE_READ_INT(k, u16)
XTAP_DEFINE_READ_INT(k, s32)
XTAP_DEFINE_READ_INT(k, u32)
XTAP_DEFINE_READ_INT(k, s64)
XTAP_DEFINE_READ_INT(k, u64)
XTAP_DEFINE_READ_INT(u, s8)
XTAP_DEFINE_READ_INT(u, u8)
XTAP_DEFINE_READ_INT(u, s16)
XTAP_DEFINE_READ_INT(u, u16)
XTAP_DEFINE_READ_INT(u, s32)
XTAP_DEFINE_READ_INT(u, u32)
XTAP_DEFINE_READ_INT(u, s64)
XTAP_DEFINE_READ_INT(u, u64)

#undef XTAP_DEFINE_READ_INT

/* ------------------------------------------------------------ strings */

/*
 * The C string at addr into dst (a script string buffer): at most
 * min(max, MAXSTRINGLEN) - 1 bytes, always NUL-terminated. NULL or an
 * unreadable byte raises stap's "kernel string copy fault at 0x0 [man
 * error::fault]" ("user string copy fault -14 at ...") and leaves dst "".
 */
char *xtap_kread_str(struct xtap_context *c, char *dst, unsigned long addr,
		     u32 max);
char *xtap_uread_str(struct xtap_context *c, char *dst, unsigned long addr,
		     u32 max);

/*
 * kernel_string_quoted(), user_string_quoted(): the string read as above,
 * in double quotes with stap's escapes ("a\nb", "\033", "\u00E9"; a
 * result cut at MAXSTRINGLEN ends "..."); unreadable memory gives the
 * address in hex without quotes ("0x0"). Never raises an error.
 */
char *xtap_kread_str_quoted(struct xtap_context *c, char *dst,
			    unsigned long addr, u32 max);
char *xtap_uread_str_quoted(struct xtap_context *c, char *dst,
			    unsigned long addr, u32 max);
/* The same, the result (quotes included) cut to outlen bytes. */
char *xtap_uread_str_quoted_out(struct xtap_context *c, char *dst,
				unsigned long addr, u32 max, s64 outlen);

/* string_quoted(s): s quoted and escaped as above; dst may be s. */
char *xtap_str_quoted(char *dst, const char *s);

/* ------------------------------------------------------------ tasks */

/*
 * Fields of a task_struct given by address, as the task tapset reads them.
 * The pointer comes from a script and may be stale: every field is read
 * nofault; a fault raises the read fault and the result is 0 ("").
 */
s64 xtap_task_current(void);
s64 xtap_task_parent(struct xtap_context *c, s64 task);
s64 xtap_task_pid(struct xtap_context *c, s64 task); /* tgid */
s64 xtap_task_tid(struct xtap_context *c, s64 task);
s64 xtap_task_state(struct xtap_context *c, s64 task);
s64 xtap_task_prio(struct xtap_context *c, s64 task);
s64 xtap_task_nice(struct xtap_context *c, s64 task);
s64 xtap_task_cpu(struct xtap_context *c, s64 task);
char *xtap_task_execname(struct xtap_context *c, char *dst, s64 task);

/*
 * Sockets by struct sock address (the inet_sock tapset): the local port in
 * host order (0 on a fault), the peer's address as "a.b.c.d" or in %pI6's
 * eight groups ("Unknown" for other families or on a fault).
 */
s64 xtap_inet_local_port(struct xtap_context *c, s64 sock);
char *xtap_inet_peer(struct xtap_context *c, char *dst, s64 sock);
/*
 * format_ipaddr(): an IPv4 address (the u32 as stored, network order) or,
 * for AF_INET6, the in6_addr at address addr, read nofault (a fault is the
 * usual read-fault error); "Unknown" for another family.
 */
char *xtap_format_ipaddr(struct xtap_context *c, char *dst, s64 addr,
			 s64 family);
/* tcp_get_info_rto(): the socket's retransmission timeout in microseconds. */
s64 xtap_tcp_rto_usecs(struct xtap_context *c, s64 sock);
/*
 * The netfilter tapset's data_hex / data_str: the linear part of a packet
 * (skb->data, skb_headlen() bytes) as hex digits or as text ('.' for the
 * unprintable bytes), read nofault and cut to fit MAXSTRINGLEN; "" on a fault.
 */
char *xtap_skb_data(struct xtap_context *c, char *dst, s64 skb, s64 hex);

/* GFP flags as the kmem events print them ("GFP_KERNEL|__GFP_ZERO"). */
char *xtap_gfp_flag_str(char *out, size_t len, s64 gfp);
/* The NUMA node of a kernel virtual address; an error for any other. */
s64 xtap_addr_to_node(struct xtap_context *c, s64 addr);

/* IRQF_* flags ("IRQF_SHARED|IRQF_ONESHOT") and softirq names ("TIMER"). */
char *xtap_irqflags_str(char *out, size_t len, s64 flags);
char *xtap_softirq_name(char *out, size_t len, s64 nr);

/*
 * A process's memory in pages (0 if there is no such process or its lock
 * is busy) and a thread's CPU times in ns (0 if there is none).
 */
enum xtap_proc_mem {
	XTAP_PROC_MEM_SIZE,
	XTAP_PROC_MEM_RSS,
	XTAP_PROC_MEM_SHR,
	XTAP_PROC_MEM_TXT,
	XTAP_PROC_MEM_DATA,
};
s64 xtap_proc_mem_current(enum xtap_proc_mem which);
s64 xtap_proc_mem(s64 pid, enum xtap_proc_mem which);
s64 xtap_task_cputime(s64 tid, bool system);

enum xtap_task_id {
	XTAP_TASK_UID,
	XTAP_TASK_EUID,
	XTAP_TASK_GID,
	XTAP_TASK_EGID,
};
/* Real or effective uid/gid, as seen from the current task's user namespace. */
s64 xtap_task_cred_id(struct xtap_context *c, s64 task,
		      enum xtap_task_id which);

s64 xtap_task_open_file_handles(struct xtap_context *c, s64 task);
s64 xtap_task_max_file_handles(struct xtap_context *c, s64 task);

/* The task of a pid in the current pid namespace, or 0; no reference is taken. */
s64 xtap_pid2task(s64 pid);
/* Start time, ns since boot, of the thread tid; 0 if there is none. */
s64 xtap_task_start_time(s64 tid);

/* Context functions stap has beside pid() and uid(). */
s64 xtap_euid(void);
s64 xtap_egid(void);
s64 xtap_pgrp(void);
s64 xtap_sid(void);

#endif /* XTAP_MEMORY_H */
