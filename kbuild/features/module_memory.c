// SPDX-License-Identifier: GPL-2.0
/* Feature test: struct module's mem[] (6.4+) replaced core_layout and init_layout. */
#include <linux/module.h>

unsigned int xtap_feature_module_memory(struct module *m);
unsigned int xtap_feature_module_memory(struct module *m) { return m->mem[MOD_TEXT].size; }
