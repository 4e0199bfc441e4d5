/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace compat: adding many addresses to an ops's filter. Each
 * ftrace_set_filter_ip() copies the whole filter hash, so adding n
 * addresses one by one costs n^2; ftrace_set_filter_ips() (5.18) adds a
 * batch with one copy. Where it is missing, one at a time.
 */
#ifndef XTAP_COMPAT_FTRACE_H
#define XTAP_COMPAT_FTRACE_H

#include <linux/ftrace.h>
#include "xtap_features.h"

static inline int xtap_ftrace_set_filter_ips(struct ftrace_ops *ops,
					     unsigned long *ips, unsigned int n)
{
#ifdef XTAP_HAVE_FTRACE_SET_FILTER_IPS
	return ftrace_set_filter_ips(ops, ips, n, 0, 0);
#else
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = ftrace_set_filter_ip(ops, ips[i], 0, 0);
		if (err)
			return err;
	}
	return 0;
#endif
}

#endif /* XTAP_COMPAT_FTRACE_H */
