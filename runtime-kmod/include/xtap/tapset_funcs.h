/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C behind the tapset reference's functions that runtime.h does not
 * cover: stacks and registers, the session's own identity, guru-mode
 * writers, namespaces, UTF-16/32 and buffer readers, socket names.
 */
#ifndef XTAP_TAPSET_FUNCS_H
#define XTAP_TAPSET_FUNCS_H

#include <linux/types.h>
#include <xtap/fp64.h>

struct xtap_context;

/* stack_funcs.c */
s64 xtap_stack_addr(struct xtap_context *c,
		    s64 n); /* stack(n): an error past the end */
s64 xtap_stack_size(void);
s64 xtap_stack_used(void);
void xtap_print_regs(struct xtap_context *c);
s64 xtap_is_return(struct xtap_context *c);
s64 xtap_registers_valid(struct xtap_context *c);
char *xtap_probemod(struct xtap_context *c, char *dst);
char *xtap_probe_type(struct xtap_context *c, char *dst);

/* session_funcs.c */
extern s64 xtap_collector_tgid; /* set when xtap-run opens the control file */
void xtap_note_collector(void);
s64 xtap_is_myproc(void);
char *xtap_module_name(char *dst);
char *xtap_module_size(char *dst);
char *xtap_env_var(struct xtap_context *c, char *dst, const char *name);
void xtap_target_set_report(struct xtap_context *c);
s64 xtap_loadavg(s64 index); /* avenrun[index], fixed point (FSHIFT) */
char *xtap_sprint_loadavg(char *dst);
s64 xtap_ktime_get_ns(void);
s64 xtap_hz(void);

/* guru_funcs.c */
int xtap_uwrite(struct xtap_context *c, unsigned long addr, const void *src,
		u32 size);
void xtap_kwrite_str(struct xtap_context *c, s64 addr, const char *s, s64 max);
void xtap_uwrite_str(struct xtap_context *c, s64 addr, const char *s, s64 max);
void xtap_set_arg(struct xtap_context *c, s64 n, s64 v, int size);
void xtap_printk(s64 level, const char *msg);
void xtap_panic(const char *msg);
void xtap_raise(struct xtap_context *c, s64 sig);
void xtap_delay(struct xtap_context *c, s64 n, int millis);
void xtap_dump_stack(void);
void xtap_ftrace(struct xtap_context *c, const char *msg);

/* ns_funcs.c: ids as the task's own namespaces see them; -1 when they cannot */
enum xtap_ns_id {
	XTAP_NS_PID,
	XTAP_NS_TID,
	XTAP_NS_PPID,
	XTAP_NS_PGRP,
	XTAP_NS_SID,
	XTAP_NS_UID,
	XTAP_NS_EUID,
	XTAP_NS_GID,
	XTAP_NS_EGID,
};
s64 xtap_task_ns_id(struct xtap_context *c, s64 task, int which);

/* str_utf.c: UTF-16/32 strings as UTF-8; buffers quoted */
char *xtap_read_utf(struct xtap_context *c, char *dst, s64 addr, int width,
		    int user, int quoted, const char *err_msg);
char *xtap_buffer_quoted(struct xtap_context *c, char *dst, s64 addr, s64 inlen,
			 s64 outlen, int user, int raise);

char *xtap_text_strn(char *dst, const char *input, s64 len, s64 quoted);

/* sock_names.c: table 0 protocols, 1 address families, 2 socket states */
char *xtap_sock_num2str(char *dst, int table, s64 n);
s64 xtap_sock_str2num(int table, const char *name);

/* registers.c */
s64 xtap_user_word_size(void);
s64 xtap_current_syscall_nr(struct xtap_context *c);

/* sock_flags.c: socket types, option names, flag words */
enum xtap_net_names {
	XTAP_NAMES_SOCK_TYPE,
	XTAP_NAMES_TCP_SOCKOPT,
	XTAP_NAMES_IPV6_SOCKOPT,
};
char *xtap_net_num2str(char *dst, int table, s64 n); /* "" when unnamed */
s64 xtap_net_str2num(int table, const char *name); /* -1 when unknown */
char *xtap_sock_flags_str(char *dst, s64 flags);
char *xtap_msg_flags_str(char *dst, s64 flags);

/* nfs_names.c: nfsderror() */
char *xtap_nfsderror(char *dst, s64 err);

#endif /* XTAP_TAPSET_FUNCS_H */
