// SPDX-License-Identifier: GPL-2.0
/* The task tapset: fields of a task_struct a script names by address, read nofault. */
#include <linux/bitops.h>
#include <linux/cred.h>
#include <linux/fdtable.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <xtap/memory.h>
#include "compat/sched.h"
#include "internal.h"

/* open_fds bits counted at most: fs.nr_open's default (16384 words). */
#define XTAP_MAX_FDS_COUNTED (1U << 20)

/*
 * Read the field of a struct at a script's address into *dst, which must
 * have the field's size: 0, or the fault raised and -EFAULT. The address
 * is computed, never dereferenced.
 */
#define XTAP_READ_FIELD(c, base, type, field, dst)                             \
	({                                                                     \
		BUILD_BUG_ON(sizeof(*(dst)) != sizeof_field(type, field));     \
		xtap_kread((c), (unsigned long)(base) + offsetof(type, field), \
			   (dst), sizeof(*(dst)));                             \
	})

#define XTAP_TASK_FIELD(c, task, field, dst) \
	XTAP_READ_FIELD(c, task, struct task_struct, field, dst)

s64 xtap_task_current(void)
{
	return (unsigned long)current;
}

s64 xtap_task_parent(struct xtap_context *c, s64 task)
{
	unsigned long parent;

	if (XTAP_TASK_FIELD(c, task, real_parent, &parent))
		return 0;
	return parent;
}

s64 xtap_task_pid(struct xtap_context *c, s64 task)
{
	pid_t tgid;

	if (XTAP_TASK_FIELD(c, task, tgid, &tgid))
		return 0;
	return tgid;
}

s64 xtap_task_tid(struct xtap_context *c, s64 task)
{
	pid_t pid;

	if (XTAP_TASK_FIELD(c, task, pid, &pid))
		return 0;
	return pid;
}

s64 xtap_task_state(struct xtap_context *c, s64 task)
{
	typeof(((struct task_struct *)0)->XTAP_TASK_STATE_FIELD) state;

	if (XTAP_TASK_FIELD(c, task, XTAP_TASK_STATE_FIELD, &state))
		return 0;
	return state;
}

s64 xtap_task_prio(struct xtap_context *c, s64 task)
{
	int prio;

	if (XTAP_TASK_FIELD(c, task, prio, &prio))
		return 0;
	return prio - MAX_RT_PRIO;
}

s64 xtap_task_nice(struct xtap_context *c, s64 task)
{
	int static_prio;

	if (XTAP_TASK_FIELD(c, task, static_prio, &static_prio))
		return 0;
	return PRIO_TO_NICE(static_prio);
}

s64 xtap_task_cpu(struct xtap_context *c, s64 task)
{
#ifdef XTAP_TASK_CPU_FIELD
	u32 cpu;

	if (XTAP_TASK_FIELD(c, task, XTAP_TASK_CPU_FIELD, &cpu))
		return 0;
	return cpu;
#else
	return 0;
#endif
}

/*
 * comm without task_lock(): a handler may interrupt the task renaming
 * itself. A fault is stap's, which reads comm as a kernel string.
 */
char *xtap_task_execname(struct xtap_context *c, char *dst, s64 task)
{
	unsigned long addr = task + offsetof(struct task_struct, comm);
	char comm[TASK_COMM_LEN];

	dst[0] = '\0';
	if (xtap_kcopy(comm, addr, sizeof(comm))) {
		xtap_fault(c, "kernel string copy", addr);
		return dst;
	}
	comm[sizeof(comm) - 1] = '\0';
	strscpy(dst, comm, xtap_sess.limits.maxstringlen);
	return dst;
}

/*
 * The ids of the task's real_cred (what task_uid() reads), mapped into the
 * current task's user namespace: the task's own namespace pointer would
 * have to be trusted to walk its id maps. stap checks the whole task_struct
 * first, so an unreadable task is a fault at its address.
 */
s64 xtap_task_cred_id(struct xtap_context *c, s64 task, enum xtap_task_id which)
{
	unsigned long cred;
	kuid_t uid;
	kgid_t gid;
	int rc;

	if (xtap_kcopy(&cred, task + offsetof(struct task_struct, real_cred),
		       sizeof(cred))) {
		xtap_read_fault(c, task);
		return 0;
	}
	switch (which) {
	case XTAP_TASK_UID:
		rc = XTAP_READ_FIELD(c, cred, struct cred, uid, &uid);
		break;
	case XTAP_TASK_EUID:
		rc = XTAP_READ_FIELD(c, cred, struct cred, euid, &uid);
		break;
	case XTAP_TASK_GID:
		rc = XTAP_READ_FIELD(c, cred, struct cred, gid, &gid);
		return rc ? 0 : from_kgid_munged(current_user_ns(), gid);
	default:
		rc = XTAP_READ_FIELD(c, cred, struct cred, egid, &gid);
		return rc ? 0 : from_kgid_munged(current_user_ns(), gid);
	}
	return rc ? 0 : from_kuid_munged(current_user_ns(), uid);
}

/* The task's fd table, or 0 with *fdt unset when it has none (kernel threads). */
static int xtap_task_fdt(struct xtap_context *c, s64 task, unsigned long *fdt)
{
	unsigned long files;

	*fdt = 0;
	if (XTAP_TASK_FIELD(c, task, files, &files))
		return -EFAULT;
	if (!files)
		return 0;
	return XTAP_READ_FIELD(c, files, struct files_struct, fdt, fdt);
}

s64 xtap_task_max_file_handles(struct xtap_context *c, s64 task)
{
	unsigned long fdt;
	unsigned int max_fds;

	if (xtap_task_fdt(c, task, &fdt) || !fdt ||
	    XTAP_READ_FIELD(c, fdt, struct fdtable, max_fds, &max_fds))
		return 0;
	return max_fds;
}

/*
 * Counts the bits of the open_fds bitmap a block of words at a time, and
 * no further than XTAP_MAX_FDS_COUNTED: a garbage max_fds cannot make a
 * handler read for long.
 */
s64 xtap_task_open_file_handles(struct xtap_context *c, s64 task)
{
	unsigned long fdt, open_fds, words[16];
	unsigned int max_fds, nwords, i, n;
	s64 count = 0;

	if (xtap_task_fdt(c, task, &fdt) || !fdt ||
	    XTAP_READ_FIELD(c, fdt, struct fdtable, max_fds, &max_fds) ||
	    XTAP_READ_FIELD(c, fdt, struct fdtable, open_fds, &open_fds))
		return 0;
	nwords = BITS_TO_LONGS(min(max_fds, XTAP_MAX_FDS_COUNTED));
	for (i = 0; i < nwords; i += n) {
		unsigned int j;

		n = min_t(unsigned int, nwords - i, ARRAY_SIZE(words));
		if (xtap_kread(c, open_fds + i * sizeof(long), words,
			       n * sizeof(long)))
			return 0;
		for (j = 0; j < n; j++)
			count += hweight_long(words[j]);
	}
	return count;
}

s64 xtap_pid2task(s64 pid)
{
	struct task_struct *t;

	if (pid <= 0 || pid > PID_MAX_LIMIT)
		return 0;
	rcu_read_lock();
	t = pid_task(find_vpid(pid), PIDTYPE_PID);
	rcu_read_unlock();
	return (unsigned long)t;
}

s64 xtap_task_start_time(s64 tid)
{
	struct task_struct *t;
	u64 start = 0;

	if (tid <= 0 || tid > PID_MAX_LIMIT)
		return 0;
	rcu_read_lock();
	t = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (t)
		start = t->start_time;
	rcu_read_unlock();
	return start;
}

s64 xtap_euid(void)
{
	return from_kuid_munged(current_user_ns(), current_euid());
}

s64 xtap_egid(void)
{
	return from_kgid_munged(current_user_ns(), current_egid());
}

s64 xtap_pgrp(void)
{
	return task_pgrp_vnr(current);
}

s64 xtap_sid(void)
{
	return task_session_vnr(current);
}
