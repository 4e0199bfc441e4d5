// SPDX-License-Identifier: GPL-2.0
/* The memory tapset: GFP flags in words, with the kernel's own table. */
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/mmflags.h>
#include <xtap/memory.h>
#include <xtap/runtime.h>

/* Most bits first, as the kernel's show_gfp_flags() matches them. */
static const struct {
	unsigned long mask;
	const char *name;
} xtap_gfp_names[] = { __def_gfpflag_names };

char *xtap_gfp_flag_str(char *out, size_t len, s64 gfp)
{
	unsigned long rest = (unsigned long)gfp;
	size_t used = 0;
	size_t i;

	out[0] = '\0';
	if (!rest) {
		strscpy(out, "0", len);
		return out;
	}
	for (i = 0; i < ARRAY_SIZE(xtap_gfp_names) && rest; i++) {
		unsigned long mask = xtap_gfp_names[i].mask;

		if (!mask || (rest & mask) != mask)
			continue;
		rest &= ~mask;
		used += scnprintf(out + used, len - used, "%s%s",
				  used ? "|" : "", xtap_gfp_names[i].name);
	}
	if (rest)
		scnprintf(out + used, len - used, "%s%#lx", used ? "|" : "",
			  rest);
	return out;
}

s64 xtap_addr_to_node(struct xtap_context *c, s64 addr)
{
	if (!virt_addr_valid((void *)(uintptr_t)addr)) {
		xtap_error(c, "invalid kernel virtual address 0x%llx",
			   (unsigned long long)addr);
		return 0;
	}
	return page_to_nid(virt_to_page((void *)(uintptr_t)addr));
}
