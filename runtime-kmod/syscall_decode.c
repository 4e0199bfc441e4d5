// SPDX-License-Identifier: GPL-2.0
/* Words for syscall arguments and results: the syscall tapset's decoders. */
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <uapi/linux/futex.h>
#include <linux/kernel.h>
#include <linux/mman.h>
#include <linux/net.h>
#include <linux/signal.h>
#include <linux/socket.h>
#include <linux/stat.h>
#include <linux/string.h>
#include <xtap/syscall_decode.h>

struct xtap_named {
	s64 value;
	const char *name;
};

#define N(x)          \
	{             \
		x, #x \
	}

static const struct xtap_named xtap_signals[] = {
	N(SIGHUP),    N(SIGINT),  N(SIGQUIT),  N(SIGILL),  N(SIGTRAP),
	N(SIGABRT),   N(SIGBUS),  N(SIGFPE),   N(SIGKILL), N(SIGUSR1),
	N(SIGSEGV),   N(SIGUSR2), N(SIGPIPE),  N(SIGALRM), N(SIGTERM),
	N(SIGSTKFLT), N(SIGCHLD), N(SIGCONT),  N(SIGSTOP), N(SIGTSTP),
	N(SIGTTIN),   N(SIGTTOU), N(SIGURG),   N(SIGXCPU), N(SIGXFSZ),
	N(SIGVTALRM), N(SIGPROF), N(SIGWINCH), N(SIGIO),   N(SIGPWR),
	N(SIGSYS),
};

static const struct xtap_named xtap_open_flags[] = {
	N(O_CREAT),	N(O_EXCL),	N(O_NOCTTY),	N(O_TRUNC),
	N(O_APPEND),	N(O_NONBLOCK),	N(O_DSYNC),	N(FASYNC),
	N(O_DIRECT),	N(O_LARGEFILE), N(O_DIRECTORY), N(O_NOFOLLOW),
	N(O_NOATIME),	N(O_CLOEXEC),	N(__O_SYNC),	N(O_PATH),
	N(__O_TMPFILE),
};

/* The kernel checks access(2)'s mode against the "other" permission bits. */
static const struct xtap_named xtap_access_modes[] = {
	{ S_IROTH, "R_OK" },
	{ S_IWOTH, "W_OK" },
	{ S_IXOTH, "X_OK" },
};

static const struct xtap_named xtap_prots[] = {
	N(PROT_READ), N(PROT_WRITE),	 N(PROT_EXEC),
	N(PROT_SEM),  N(PROT_GROWSDOWN), N(PROT_GROWSUP),
};

static const struct xtap_named xtap_whences[] = {
	N(SEEK_SET), N(SEEK_CUR), N(SEEK_END), N(SEEK_DATA), N(SEEK_HOLE),
};

static const struct xtap_named xtap_futex_cmds[] = {
	N(FUTEX_WAIT),		 N(FUTEX_WAKE),	       N(FUTEX_FD),
	N(FUTEX_REQUEUE),	 N(FUTEX_CMP_REQUEUE), N(FUTEX_WAKE_OP),
	N(FUTEX_LOCK_PI),	 N(FUTEX_UNLOCK_PI),   N(FUTEX_TRYLOCK_PI),
	N(FUTEX_WAIT_BITSET),	 N(FUTEX_WAKE_BITSET), N(FUTEX_WAIT_REQUEUE_PI),
	N(FUTEX_CMP_REQUEUE_PI), N(FUTEX_LOCK_PI2),
};

static const struct xtap_named xtap_families[] = {
	N(AF_UNSPEC),	  N(AF_UNIX),	   N(AF_INET),	   N(AF_AX25),
	N(AF_IPX),	  N(AF_APPLETALK), N(AF_NETROM),   N(AF_BRIDGE),
	N(AF_ATMPVC),	  N(AF_X25),	   N(AF_INET6),	   N(AF_ROSE),
	N(AF_DECnet),	  N(AF_NETBEUI),   N(AF_SECURITY), N(AF_KEY),
	N(AF_NETLINK),	  N(AF_PACKET),	   N(AF_ASH),	   N(AF_ECONET),
	N(AF_ATMSVC),	  N(AF_RDS),	   N(AF_SNA),	   N(AF_IRDA),
	N(AF_PPPOX),	  N(AF_WANPIPE),   N(AF_LLC),	   N(AF_IB),
	N(AF_MPLS),	  N(AF_CAN),	   N(AF_TIPC),	   N(AF_BLUETOOTH),
	N(AF_IUCV),	  N(AF_RXRPC),	   N(AF_ISDN),	   N(AF_PHONET),
	N(AF_IEEE802154), N(AF_CAIF),	   N(AF_ALG),	   N(AF_NFC),
	N(AF_VSOCK),	  N(AF_KCM),	   N(AF_QIPCRTR),  N(AF_SMC),
	N(AF_XDP),
};

static const struct xtap_named xtap_sock_types[] = {
	N(SOCK_STREAM),	   N(SOCK_DGRAM), N(SOCK_RAW),	  N(SOCK_RDM),
	N(SOCK_SEQPACKET), N(SOCK_DCCP),  N(SOCK_PACKET),
};

static const char *xtap_lookup(const struct xtap_named *t, size_t n, s64 v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return NULL;
}

/* Appends "|NAME" for every flag of t set in *v, clearing it. */
static void xtap_append_flags(char *out, size_t len, s64 *v,
			      const struct xtap_named *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!t[i].value || (*v & t[i].value) != t[i].value)
			continue;
		if (*out)
			strlcat(out, "|", len);
		strlcat(out, t[i].name, len);
		*v &= ~t[i].value;
	}
}

/* Appends what no name covers as "|0x..." (or alone, as "0x..."). */
static void xtap_append_rest(char *out, size_t len, s64 v)
{
	size_t used = strlen(out);

	if (!v)
		return;
	if (used >= len)
		return;
	snprintf(out + used, len - used, "%s%#llx", used ? "|" : "",
		 (unsigned long long)v);
}

/* The name, or the number in decimal. */
static void xtap_name_or_number(char *out, size_t len, const char *name, s64 v)
{
	if (name)
		strscpy(out, name, len);
	else
		snprintf(out, len, "%lld", (long long)v);
}

void xtap_open_flags_str(char *out, size_t len, s64 flags)
{
	static const char *const modes[] = { "O_RDONLY", "O_WRONLY", "O_RDWR" };
	s64 acc = flags & O_ACCMODE;
	s64 rest = flags & ~(s64)O_ACCMODE;

	out[0] = 0;
	if (acc < ARRAY_SIZE(modes))
		strscpy(out, modes[acc], len);
	else
		rest = flags;
	if ((rest & O_SYNC) == O_SYNC) {
		strlcat(out, "|O_SYNC", len);
		rest &= ~(s64)O_SYNC;
	}
	if ((rest & O_TMPFILE) == O_TMPFILE) {
		strlcat(out, "|O_TMPFILE", len);
		rest &= ~(s64)O_TMPFILE;
	}
	xtap_append_flags(out, len, &rest, xtap_open_flags,
			  ARRAY_SIZE(xtap_open_flags));
	xtap_append_rest(out, len, rest);
}

void xtap_open_mode_str(char *out, size_t len, s64 flags, s64 mode)
{
	out[0] = 0;
	if ((flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE)
		snprintf(out, len, "%#llo", (unsigned long long)mode);
}

void xtap_access_mode_str(char *out, size_t len, s64 mode)
{
	out[0] = 0;
	if (!mode) {
		strscpy(out, "F_OK", len);
		return;
	}
	xtap_append_flags(out, len, &mode, xtap_access_modes,
			  ARRAY_SIZE(xtap_access_modes));
	xtap_append_rest(out, len, mode);
}

void xtap_mprotect_prot_str(char *out, size_t len, s64 prot)
{
	out[0] = 0;
	if (!prot) {
		strscpy(out, "PROT_NONE", len);
		return;
	}
	xtap_append_flags(out, len, &prot, xtap_prots, ARRAY_SIZE(xtap_prots));
	xtap_append_rest(out, len, prot);
}

void xtap_seek_whence_str(char *out, size_t len, s64 whence)
{
	xtap_name_or_number(out, len,
			    xtap_lookup(xtap_whences, ARRAY_SIZE(xtap_whences),
					whence),
			    whence);
}

void xtap_sig_name_str(char *out, size_t len, s64 sig)
{
	const char *name =
		xtap_lookup(xtap_signals, ARRAY_SIZE(xtap_signals), sig);

	if (name)
		strscpy(out, name, len);
	else if (sig >= SIGRTMIN && sig <= _NSIG)
		snprintf(out, len, "SIGRTMIN+%lld",
			 (long long)(sig - SIGRTMIN));
	else
		snprintf(out, len, "%lld", (long long)sig);
}

void xtap_futex_op_str(char *out, size_t len, s64 op)
{
	s64 cmd = op & FUTEX_CMD_MASK;
	const char *name =
		xtap_lookup(xtap_futex_cmds, ARRAY_SIZE(xtap_futex_cmds), cmd);

	xtap_name_or_number(out, len, name, cmd);
	if (op & FUTEX_PRIVATE_FLAG)
		strlcat(out, "_PRIVATE", len);
	if (op & FUTEX_CLOCK_REALTIME)
		strlcat(out, "|FUTEX_CLOCK_REALTIME", len);
}

void xtap_sock_family_str(char *out, size_t len, s64 family)
{
	xtap_name_or_number(out, len,
			    xtap_lookup(xtap_families,
					ARRAY_SIZE(xtap_families), family),
			    family);
}

void xtap_sock_type_str(char *out, size_t len, s64 type)
{
	s64 base = type & SOCK_TYPE_MASK;
	s64 rest = type & ~(s64)SOCK_TYPE_MASK;

	xtap_name_or_number(out, len,
			    xtap_lookup(xtap_sock_types,
					ARRAY_SIZE(xtap_sock_types), base),
			    base);
	if (rest & SOCK_CLOEXEC)
		strlcat(out, "|SOCK_CLOEXEC", len);
	if (rest & SOCK_NONBLOCK)
		strlcat(out, "|SOCK_NONBLOCK", len);
	rest &= ~(s64)(SOCK_CLOEXEC | SOCK_NONBLOCK);
	xtap_append_rest(out, len, rest);
}
