// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel and module variables a script reads by address (@var, globals in
 * DWARF probes): their symbols are looked up once at module load, so that
 * KASLR and module load addresses need no rebuild. kallsyms_lookup_name()
 * is not exported; a kprobe registered disabled on it tells its address
 * (the kernel resolves kprobe symbols itself) without arming anything.
 */
#include <linux/kprobes.h>
#include "internal.h"

typedef unsigned long (*xtap_lookup_fn)(const char *name);

static xtap_lookup_fn xtap_find_lookup(void)
{
	struct kprobe kp = {
		.symbol_name = "kallsyms_lookup_name",
		.flags = KPROBE_FLAG_DISABLED,
	};
	xtap_lookup_fn fn;

	if (register_kprobe(&kp) < 0)
		return NULL;
	fn = (xtap_lookup_fn)kp.addr;
	unregister_kprobe(&kp);
	return fn;
}

int xtap_resolve_data_symbols(const char *const *names, unsigned long *addrs,
			      u32 n)
{
	xtap_lookup_fn lookup = xtap_find_lookup();
	u32 i;

	if (!lookup) {
		pr_err(XTAP_PFX
		       "%s: cannot find kallsyms_lookup_name to place the script's kernel variables\n",
		       module_name(THIS_MODULE));
		return -ENOENT;
	}
	for (i = 0; i < n; i++) {
		addrs[i] = lookup(names[i]);
		if (!addrs[i]) {
			pr_err(XTAP_PFX
			       "%s: symbol %s is not in this kernel (is its module loaded?)\n",
			       module_name(THIS_MODULE), names[i]);
			return -ENOENT;
		}
	}
	return 0;
}
