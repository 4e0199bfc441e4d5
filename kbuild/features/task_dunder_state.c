// SPDX-License-Identifier: GPL-2.0
/* Feature test: task_struct.__state (5.14+) replaced task_struct.state. */
#include <linux/sched.h>

unsigned int xtap_feature_task_dunder_state(struct task_struct *t);
unsigned int xtap_feature_task_dunder_state(struct task_struct *t) { return READ_ONCE(t->__state); }
