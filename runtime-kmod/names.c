// SPDX-License-Identifier: GPL-2.0
/* Names of errno values and signals: errno_str() and signal_str(). */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/signal.h>
#include <linux/string.h>
#include "internal.h"

#define XTAP_NAME(e) [e] = #e

static const char *const xtap_errno_names[] = {
	XTAP_NAME(EPERM),
	XTAP_NAME(ENOENT),
	XTAP_NAME(ESRCH),
	XTAP_NAME(EINTR),
	XTAP_NAME(EIO),
	XTAP_NAME(ENXIO),
	XTAP_NAME(E2BIG),
	XTAP_NAME(ENOEXEC),
	XTAP_NAME(EBADF),
	XTAP_NAME(ECHILD),
	XTAP_NAME(EAGAIN),
	XTAP_NAME(ENOMEM),
	XTAP_NAME(EACCES),
	XTAP_NAME(EFAULT),
	XTAP_NAME(ENOTBLK),
	XTAP_NAME(EBUSY),
	XTAP_NAME(EEXIST),
	XTAP_NAME(EXDEV),
	XTAP_NAME(ENODEV),
	XTAP_NAME(ENOTDIR),
	XTAP_NAME(EISDIR),
	XTAP_NAME(EINVAL),
	XTAP_NAME(ENFILE),
	XTAP_NAME(EMFILE),
	XTAP_NAME(ENOTTY),
	XTAP_NAME(ETXTBSY),
	XTAP_NAME(EFBIG),
	XTAP_NAME(ENOSPC),
	XTAP_NAME(ESPIPE),
	XTAP_NAME(EROFS),
	XTAP_NAME(EMLINK),
	XTAP_NAME(EPIPE),
	XTAP_NAME(EDOM),
	XTAP_NAME(ERANGE),
	XTAP_NAME(EDEADLK),
	XTAP_NAME(ENAMETOOLONG),
	XTAP_NAME(ENOLCK),
	XTAP_NAME(ENOSYS),
	XTAP_NAME(ENOTEMPTY),
	XTAP_NAME(ELOOP),
	XTAP_NAME(ENOMSG),
	XTAP_NAME(EIDRM),
	XTAP_NAME(ECHRNG),
	XTAP_NAME(EL2NSYNC),
	XTAP_NAME(EL3HLT),
	XTAP_NAME(EL3RST),
	XTAP_NAME(ELNRNG),
	XTAP_NAME(EUNATCH),
	XTAP_NAME(ENOCSI),
	XTAP_NAME(EL2HLT),
	XTAP_NAME(EBADE),
	XTAP_NAME(EBADR),
	XTAP_NAME(EXFULL),
	XTAP_NAME(ENOANO),
	XTAP_NAME(EBADRQC),
	XTAP_NAME(EBADSLT),
	XTAP_NAME(EBFONT),
	XTAP_NAME(ENOSTR),
	XTAP_NAME(ENODATA),
	XTAP_NAME(ETIME),
	XTAP_NAME(ENOSR),
	XTAP_NAME(ENONET),
	XTAP_NAME(ENOPKG),
	XTAP_NAME(EREMOTE),
	XTAP_NAME(ENOLINK),
	XTAP_NAME(EADV),
	XTAP_NAME(ESRMNT),
	XTAP_NAME(ECOMM),
	XTAP_NAME(EPROTO),
	XTAP_NAME(EMULTIHOP),
	XTAP_NAME(EDOTDOT),
	XTAP_NAME(EBADMSG),
	XTAP_NAME(EOVERFLOW),
	XTAP_NAME(ENOTUNIQ),
	XTAP_NAME(EBADFD),
	XTAP_NAME(EREMCHG),
	XTAP_NAME(ELIBACC),
	XTAP_NAME(ELIBBAD),
	XTAP_NAME(ELIBSCN),
	XTAP_NAME(ELIBMAX),
	XTAP_NAME(ELIBEXEC),
	XTAP_NAME(EILSEQ),
	XTAP_NAME(ERESTART),
	XTAP_NAME(ESTRPIPE),
	XTAP_NAME(EUSERS),
	XTAP_NAME(ENOTSOCK),
	XTAP_NAME(EDESTADDRREQ),
	XTAP_NAME(EMSGSIZE),
	XTAP_NAME(EPROTOTYPE),
	XTAP_NAME(ENOPROTOOPT),
	XTAP_NAME(EPROTONOSUPPORT),
	XTAP_NAME(ESOCKTNOSUPPORT),
	XTAP_NAME(EOPNOTSUPP),
	XTAP_NAME(EPFNOSUPPORT),
	XTAP_NAME(EAFNOSUPPORT),
	XTAP_NAME(EADDRINUSE),
	XTAP_NAME(EADDRNOTAVAIL),
	XTAP_NAME(ENETDOWN),
	XTAP_NAME(ENETUNREACH),
	XTAP_NAME(ENETRESET),
	XTAP_NAME(ECONNABORTED),
	XTAP_NAME(ECONNRESET),
	XTAP_NAME(ENOBUFS),
	XTAP_NAME(EISCONN),
	XTAP_NAME(ENOTCONN),
	XTAP_NAME(ESHUTDOWN),
	XTAP_NAME(ETOOMANYREFS),
	XTAP_NAME(ETIMEDOUT),
	XTAP_NAME(ECONNREFUSED),
	XTAP_NAME(EHOSTDOWN),
	XTAP_NAME(EHOSTUNREACH),
	XTAP_NAME(EALREADY),
	XTAP_NAME(EINPROGRESS),
	XTAP_NAME(ESTALE),
	XTAP_NAME(EUCLEAN),
	XTAP_NAME(ENOTNAM),
	XTAP_NAME(ENAVAIL),
	XTAP_NAME(EISNAM),
	XTAP_NAME(EREMOTEIO),
	XTAP_NAME(EDQUOT),
	XTAP_NAME(ENOMEDIUM),
	XTAP_NAME(EMEDIUMTYPE),
	XTAP_NAME(ECANCELED),
	XTAP_NAME(ENOKEY),
	XTAP_NAME(EKEYEXPIRED),
	XTAP_NAME(EKEYREVOKED),
	XTAP_NAME(EKEYREJECTED),
	XTAP_NAME(EOWNERDEAD),
	XTAP_NAME(ENOTRECOVERABLE),
	XTAP_NAME(ERFKILL),
	XTAP_NAME(EHWPOISON),
};

/* The runtime's sources share translation units: the helper stays here. */
#undef XTAP_NAME

/*
 * "ENOENT" for 2 or -2; "" for a value with no name. The user-visible
 * codes only, as stap: the kernel-internal ones (ERESTARTSYS ...) have no
 * name here either.
 */
void xtap_errno_str(char *dst, s64 err)
{
	u64 e = err < 0 ? -(u64)err : (u64)err;

	dst[0] = '\0';
	if (e < ARRAY_SIZE(xtap_errno_names) && xtap_errno_names[e])
		strscpy(dst, xtap_errno_names[e],
			xtap_sess.limits.maxstringlen);
}

/* 1 if err (or -err) has a name. */
int xtap_errno_known(s64 err)
{
	u64 e = err < 0 ? -(u64)err : (u64)err;

	return e < ARRAY_SIZE(xtap_errno_names) && xtap_errno_names[e];
}

/* The x86-64 signal numbers, named without their SIG prefix as stap does. */
static const char *const xtap_signal_names[] = {
	[1] = "HUP",	  [2] = "INT",	   [3] = "QUIT",  [4] = "ILL",
	[5] = "TRAP",	  [6] = "ABRT",	   [7] = "BUS",	  [8] = "FPE",
	[9] = "KILL",	  [10] = "USR1",   [11] = "SEGV", [12] = "USR2",
	[13] = "PIPE",	  [14] = "ALRM",   [15] = "TERM", [16] = "STKFLT",
	[17] = "CHLD",	  [18] = "CONT",   [19] = "STOP", [20] = "TSTP",
	[21] = "TTIN",	  [22] = "TTOU",   [23] = "URG",  [24] = "XCPU",
	[25] = "XFSZ",	  [26] = "VTALRM", [27] = "PROF", [28] = "WINCH",
	[29] = "IO/POLL", [30] = "PWR",	   [31] = "SYS",  [32] = "RTMIN",
};

/* "HUP" for 1, "RTMIN+3" for 35 (up to 64); "" otherwise. */
void xtap_signal_str(char *dst, s64 sig)
{
	u32 len = xtap_sess.limits.maxstringlen;

	dst[0] = '\0';
	if (sig > 0 && sig < ARRAY_SIZE(xtap_signal_names))
		strscpy(dst, xtap_signal_names[sig], len);
	else if (sig > 32 && sig <= 64)
		snprintf(dst, len, "RTMIN+%lld", sig - 32);
}
