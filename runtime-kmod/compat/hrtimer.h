/* SPDX-License-Identifier: GPL-2.0 */
/* hrtimer compat: hrtimer_setup() (6.13+) replaced hrtimer_init() + ->function. */
#ifndef XTAP_COMPAT_HRTIMER_H
#define XTAP_COMPAT_HRTIMER_H

#include <linux/hrtimer.h>
#include "xtap_features.h"

static inline void
xtap_hrtimer_setup(struct hrtimer *t,
		   enum hrtimer_restart (*fn)(struct hrtimer *),
		   clockid_t clock, enum hrtimer_mode mode)
{
#ifdef XTAP_HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

#endif /* XTAP_COMPAT_HRTIMER_H */
