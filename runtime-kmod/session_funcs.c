// SPDX-License-Identifier: GPL-2.0
/* Who runs the session, and what it runs in: stp_pid(), module_name(), env_var(), loadavg. */
#include <linux/cred.h>
#include <linux/jiffies.h>
#include <linux/mm_types.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <xtap/memory.h>
#include "compat/module.h"
#include "internal.h"

s64 xtap_collector_tgid;
static kuid_t xtap_collector_euid;

/* From xtap-run's open of the control file: stp_pid(), is_myproc(). */
void xtap_note_collector(void)
{
	WRITE_ONCE(xtap_collector_tgid, task_tgid_nr(current));
	xtap_collector_euid = current_euid();
}

s64 xtap_is_myproc(void)
{
	return uid_eq(current_euid(), xtap_collector_euid);
}

char *xtap_module_name(char *dst)
{
	strscpy(dst, THIS_MODULE->name, xtap_strsize());
	return dst;
}

/*
 * module_size(): stap's "NNdata/NNtext/NNctx/NNnet/NNalloc kb". ctx is the
 * per-CPU handler contexts with their frame stacks, print and string
 * buffers, on every possible CPU; xtap has no network buffers (net 0),
 * and alloc counts the contexts only (maps and statistics are not
 * tallied).
 */
char *xtap_module_size(char *dst)
{
	const struct xtap_limits *l = &xtap_sess.limits;
	unsigned long text, data, ctx;

	xtap_module_core_sizes(THIS_MODULE, &text, &data);
	ctx = sizeof(struct xtap_cpu_ctx) + l->stack_size + l->printbuf_size +
	      sizeof(struct xtap_rec_hdr) + 3 * l->maxstringlen +
	      XTAP_ERRBUF_EXTRA;
	ctx *= num_possible_cpus();
	snprintf(dst, xtap_strsize(), "%ludata/%lutext/%luctx/0net/%lualloc kb",
		 data / 1024, text / 1024, ctx / 1024, ctx / 1024);
	return dst;
}

/*
 * The value of the environment variable name of the current process, ""
 * when it has none, is a kernel thread, or its environment is not resident
 * (the read never sleeps). At most MAXSTRINGLEN - 1 bytes are read.
 */
char *xtap_env_var(struct xtap_context *c, char *dst, const char *name)
{
	u32 size = xtap_sess.limits.maxstringlen;
	size_t nlen = strlen(name);
	u32 len, pos = 0;
	char *raw;

	dst[0] = '\0';
	if (!nlen)
		return dst;
	len = xtap_copy_mm_strings(c, true, &raw);
	while (pos < len) {
		const char *var = raw + pos;

		pos += strnlen(var, len - pos) + 1;
		if (!strncmp(var, name, nlen) && var[nlen] == '=') {
			strscpy(dst, var + nlen + 1, size);
			break;
		}
	}
	return dst;
}

/* target(), and each live process whose parent is in the set: "P begat C". */
void xtap_target_set_report(struct xtap_context *c)
{
	struct task_struct *p;
	int seen = 0;

	xtap_printf(c, "target set:\n");
	if (xtap_sess.target <= 0)
		return;
	xtap_printf(c, "%lld\n", xtap_sess.target);
	rcu_read_lock();
	for_each_process(p)
	{
		s64 pid = task_tgid_nr(p);
		s64 parent = task_tgid_nr(rcu_dereference(p->real_parent));

		if (++seen > 65536)
			break;
		if (pid != xtap_sess.target && xtap_target_set_pid(pid))
			xtap_printf(c, "%lld begat %lld\n", parent, pid);
	}
	rcu_read_unlock();
}

/* The load average over 1, 5 and 15 minutes (index 0, 1, 2), fixed point (FSHIFT bits). */
s64 xtap_loadavg(s64 index)
{
	if (index < 0 || index > 2)
		return 0;
	return READ_ONCE(avenrun[index]);
}

/* "0.04 0.09 0.10", as the first three fields of /proc/loadavg. */
char *xtap_sprint_loadavg(char *dst)
{
	unsigned long a[3];
	int i;

	for (i = 0; i < 3; i++)
		a[i] = READ_ONCE(avenrun[i]) + FIXED_1 / 200;
	scnprintf(dst, xtap_strsize(), "%lu.%02lu %lu.%02lu %lu.%02lu",
		  LOAD_INT(a[0]), LOAD_FRAC(a[0]), LOAD_INT(a[1]),
		  LOAD_FRAC(a[1]), LOAD_INT(a[2]), LOAD_FRAC(a[2]));
	return dst;
}

s64 xtap_ktime_get_ns(void)
{
	if (in_nmi())
		return ktime_get_mono_fast_ns();
	return ktime_get_ns();
}

s64 xtap_hz(void)
{
	return HZ;
}
