/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Words for system call arguments and results, as strace and stap print
 * them (the syscall tapset's argstr and retstr). Each writes a
 * NUL-terminated string of at most len bytes to out; values are decoded
 * with the target kernel's own constants.
 */
#ifndef XTAP_SYSCALL_DECODE_H
#define XTAP_SYSCALL_DECODE_H

#include <linux/types.h>

void xtap_open_flags_str(char *out, size_t len, s64 flags);
/* The mode in octal where the flags create a file, else "". */
void xtap_open_mode_str(char *out, size_t len, s64 flags, s64 mode);
void xtap_access_mode_str(char *out, size_t len, s64 mode);
void xtap_mprotect_prot_str(char *out, size_t len, s64 prot);
void xtap_seek_whence_str(char *out, size_t len, s64 whence);
void xtap_sig_name_str(char *out, size_t len, s64 sig);
void xtap_futex_op_str(char *out, size_t len, s64 op);
void xtap_sock_family_str(char *out, size_t len, s64 family);
void xtap_sock_type_str(char *out, size_t len, s64 type);

#endif
