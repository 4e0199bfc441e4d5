// SPDX-License-Identifier: GPL-2.0
/* Feature test: no_llseek() exists (removed in 6.12). */
#include <linux/fs.h>

loff_t (*xtap_feature_no_llseek)(struct file *, loff_t, int) = no_llseek;
