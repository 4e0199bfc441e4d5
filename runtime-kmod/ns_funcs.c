// SPDX-License-Identifier: GPL-2.0
/* Ids of a task as its own namespaces see them: task_ns_pid(), ns_uid() ... */
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>
#include <xtap/memory.h>
#include "internal.h"

/*
 * task is a task_struct address from a script: it is used only when it is
 * the current task or a live task that its own pid still finds (so a stale
 * pointer is never dereferenced; an unreadable one gives -1, no error).
 * Called under rcu_read_lock().
 */
static struct task_struct *xtap_live_task(struct xtap_context *c, s64 task)
{
	struct task_struct *t = (struct task_struct *)(unsigned long)task;
	pid_t pid;

	if (t == current)
		return t;
	if (xtap_kcopy(&pid, (unsigned long)&t->pid, sizeof(pid)))
		return NULL; /* not a task: -1, no error */
	if (pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID) != t)
		return NULL;
	return t;
}

s64 xtap_task_ns_id(struct xtap_context *c, s64 task, int which)
{
	struct task_struct *t;
	struct pid_namespace *pns;
	const struct cred *cred;
	s64 v = -1;

	rcu_read_lock();
	t = xtap_live_task(c, task);
	if (!t)
		goto out;
	pns = task_active_pid_ns(t);
	cred = __task_cred(t);
	switch (which) {
	case XTAP_NS_PID:
		v = pns ? task_tgid_nr_ns(t, pns) : -1;
		break;
	case XTAP_NS_TID:
		v = pns ? task_pid_nr_ns(t, pns) : -1;
		break;
	case XTAP_NS_PPID:
		v = pns ? task_tgid_nr_ns(rcu_dereference(t->real_parent),
					  pns) :
			  -1;
		break;
	case XTAP_NS_PGRP:
		v = pns ? task_pgrp_nr_ns(t, pns) : -1;
		break;
	case XTAP_NS_SID:
		v = pns ? task_session_nr_ns(t, pns) : -1;
		break;
	case XTAP_NS_UID:
		v = from_kuid_munged(cred->user_ns, cred->uid);
		break;
	case XTAP_NS_EUID:
		v = from_kuid_munged(cred->user_ns, cred->euid);
		break;
	case XTAP_NS_GID:
		v = from_kgid_munged(cred->user_ns, cred->gid);
		break;
	case XTAP_NS_EGID:
		v = from_kgid_munged(cred->user_ns, cred->egid);
		break;
	}
out:
	rcu_read_unlock();
	return v;
}
