// SPDX-License-Identifier: GPL-2.0
/* Feature test: hrtimer_setup() (6.13+) sets the callback at init time. */
#include <linux/hrtimer.h>

static enum hrtimer_restart xtap_ft_fn(struct hrtimer *t) { return HRTIMER_NORESTART; }

void xtap_feature_hrtimer_setup(struct hrtimer *t);
void xtap_feature_hrtimer_setup(struct hrtimer *t) {
  hrtimer_setup(t, xtap_ft_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
