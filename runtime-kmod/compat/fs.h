/* SPDX-License-Identifier: GPL-2.0 */
/* VFS compat: no_llseek() was removed in 6.12; noop_llseek() is its stand-in. */
#ifndef XTAP_COMPAT_FS_H
#define XTAP_COMPAT_FS_H

#include <linux/fs.h>
#include "xtap_features.h"

#ifdef XTAP_HAVE_NO_LLSEEK
#define xtap_no_llseek no_llseek
#else
#define xtap_no_llseek noop_llseek
#endif

#endif /* XTAP_COMPAT_FS_H */
