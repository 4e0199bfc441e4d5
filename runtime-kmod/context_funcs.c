// SPDX-License-Identifier: GPL-2.0
/* Context functions: who and where the probe fired (execname, pid, uid ...). */
#include <linux/cred.h>
#include <linux/hardirq.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>
#include "internal.h"

/* No task_lock: a handler may run in NMI or under the task's own locks. */
char *xtap_execname(char *dst)
{
	char comm[TASK_COMM_LEN];

	memcpy(comm, current->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	strscpy(dst, comm, xtap_sess.limits.maxstringlen);
	return dst;
}

s64 xtap_pid(void)
{
	return task_tgid_nr(current);
}

s64 xtap_tid(void)
{
	return task_pid_nr(current);
}

s64 xtap_ppid(void)
{
	s64 ppid;

	rcu_read_lock();
	ppid = task_tgid_nr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
	return ppid;
}

s64 xtap_uid(void)
{
	return from_kuid_munged(current_user_ns(), current_uid());
}

s64 xtap_gid(void)
{
	return from_kgid_munged(current_user_ns(), current_gid());
}

s64 xtap_cpu(void)
{
	return raw_smp_processor_id();
}

s64 xtap_gettimeofday_ns(void)
{
	/* The seqcount reader could spin forever if the NMI hit the writer. */
	if (in_nmi())
		return ktime_get_real_fast_ns();
	return ktime_get_real_ns();
}

s64 xtap_target(void)
{
	return xtap_sess.target;
}
