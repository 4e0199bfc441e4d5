/* SPDX-License-Identifier: GPL-2.0 */
/* struct module compat: the sizes of a loaded module's resident sections. */
#ifndef XTAP_COMPAT_MODULE_H
#define XTAP_COMPAT_MODULE_H

#include <linux/module.h>
#include "xtap_features.h"

/*
 * The module's code and the rest of what stays after init (data,
 * read-only data), in bytes. 6.4 split core_layout into one mem[] entry
 * per kind of memory.
 */
static inline void xtap_module_core_sizes(const struct module *m,
					  unsigned long *text,
					  unsigned long *data)
{
#ifdef XTAP_HAVE_MODULE_MEMORY
	*text = m->mem[MOD_TEXT].size;
	*data = m->mem[MOD_DATA].size + m->mem[MOD_RODATA].size +
		m->mem[MOD_RO_AFTER_INIT].size;
#else
	*text = m->core_layout.text_size;
	*data = m->core_layout.size - m->core_layout.text_size;
#endif
}

#endif /* XTAP_COMPAT_MODULE_H */
