// SPDX-License-Identifier: GPL-2.0
/* Feature test: ftrace_set_filter_ips() sets many filter addresses at once (5.18). */
#include <linux/ftrace.h>

int (*xtap_feature_ftrace_set_filter_ips)(struct ftrace_ops *, unsigned long *, unsigned int, int,
                                          int) = ftrace_set_filter_ips;
