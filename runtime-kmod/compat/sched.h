/* SPDX-License-Identifier: GPL-2.0 */
/* task_struct compat: where a task's state and CPU live. */
#ifndef XTAP_COMPAT_SCHED_H
#define XTAP_COMPAT_SCHED_H

#include <linux/sched.h>
#include "xtap_features.h"

/* task_struct.state became __state in 5.14 (and an unsigned int). */
#ifdef XTAP_HAVE_TASK_DUNDER_STATE
#define XTAP_TASK_STATE_FIELD __state
#else
#define XTAP_TASK_STATE_FIELD state
#endif

/*
 * Where task_cpu() finds the CPU: in the thread_info embedded in the task
 * (CONFIG_THREAD_INFO_IN_TASK, x86); elsewhere it is behind ->stack, which
 * xtap does not chase, and uniprocessor kernels have none.
 */
#if defined(CONFIG_SMP) && defined(CONFIG_THREAD_INFO_IN_TASK)
#define XTAP_TASK_CPU_FIELD thread_info.cpu
#endif

#endif /* XTAP_COMPAT_SCHED_H */
