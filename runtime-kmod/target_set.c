// SPDX-License-Identifier: GPL-2.0
/* target_set_pid(): is a process the target (-c, -x) or a descendant of it? */
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/threads.h>
#include "internal.h"

/*
 * Walks the parents of pid (in the initial pid namespace, as pid() counts)
 * up to init. A process reparented away from the target (its parent
 * exited) is no longer found, where stap's fork tracking would keep it.
 */
s64 xtap_target_set_pid(s64 pid)
{
	s64 target = xtap_sess.target;
	struct task_struct *t;
	int depth = 0;
	s64 found = 0;

	if (target <= 0 || pid <= 0 || pid > PID_MAX_LIMIT)
		return 0;
	rcu_read_lock();
	t = pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID);
	/* the chain ends at the idle task (pid 0); bounded all the same */
	while (t && t->pid > 0 && depth++ < PID_MAX_LIMIT) {
		if (task_tgid_nr(t) == target) {
			found = 1;
			break;
		}
		t = rcu_dereference(t->real_parent);
	}
	rcu_read_unlock();
	return found;
}
