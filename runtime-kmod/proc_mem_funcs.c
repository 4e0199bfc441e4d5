// SPDX-License-Identifier: GPL-2.0
/* The proc_mem and task_time functions: a process's memory in pages, a task's CPU times. */
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <xtap/memory.h>

static s64 xtap_mm_pages(struct mm_struct *mm, enum xtap_proc_mem which)
{
	switch (which) {
	case XTAP_PROC_MEM_SIZE:
		return mm->total_vm;
	case XTAP_PROC_MEM_RSS:
		return get_mm_rss(mm);
	case XTAP_PROC_MEM_SHR:
		return get_mm_counter(mm, MM_FILEPAGES) +
		       get_mm_counter(mm, MM_SHMEMPAGES);
	case XTAP_PROC_MEM_TXT: /* as /proc/PID/statm's text */
		return (PAGE_ALIGN(mm->end_code) -
			(mm->start_code & PAGE_MASK)) >>
		       PAGE_SHIFT;
	case XTAP_PROC_MEM_DATA: /* and its data + stack */
		return mm->data_vm + mm->stack_vm;
	}
	return 0;
}

/*
 * Another task's mm stays while its task lock is held (exit_mm() clears
 * tsk->mm under it). The lock is only tried: a probe may run where the
 * scheduler's locks are held, and a busy lock gives 0, as stap's "could
 * not be retrieved".
 */
s64 xtap_proc_mem_current(enum xtap_proc_mem which)
{
	if (!current->mm || (current->flags & PF_KTHREAD))
		return 0;
	return xtap_mm_pages(current->mm, which);
}

s64 xtap_proc_mem(s64 pid, enum xtap_proc_mem which)
{
	struct task_struct *t;
	s64 pages = 0;

	if (pid <= 0 || pid > PID_MAX_LIMIT)
		return 0;
	rcu_read_lock();
	t = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (t && spin_trylock(&t->alloc_lock)) {
		if (t->mm && !(t->flags & PF_KTHREAD))
			pages = xtap_mm_pages(t->mm, which);
		spin_unlock(&t->alloc_lock);
	}
	rcu_read_unlock();
	return pages;
}

/* utime or stime in ns (the kernel's cputime), of a thread. */
s64 xtap_task_cputime(s64 tid, bool system)
{
	struct task_struct *t;
	s64 ns = 0;

	if (tid <= 0 || tid > PID_MAX_LIMIT)
		return 0;
	rcu_read_lock();
	t = pid_task(find_vpid(tid), PIDTYPE_PID);
	if (t)
		ns = system ? READ_ONCE(t->stime) : READ_ONCE(t->utime);
	rcu_read_unlock();
	return ns;
}
