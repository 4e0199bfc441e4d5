// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.data(ADDRESS|"SYMBOL")[.length(N)].write|.rw: a hardware
 * watchpoint (a debug register) on every online CPU, through the kernel's
 * wide breakpoints. The handler runs from the debug exception just after
 * the access, in the context that made it (its registers, its task), so
 * print_backtrace() shows who touched the data.
 *
 * x86 has four debug registers per CPU, shared with perf and debuggers;
 * the translator refuses more watchpoints than that, and a register taken
 * by someone else fails the session with that reason. As with stap, a CPU
 * brought online after the session started is not watched.
 */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include "internal.h"

struct xtap_hwbkpt {
	const struct xtap_hwbkpt_spec *spec;
	struct perf_event *__percpu *events; /* NULL: not registered */
};

static struct xtap_hwbkpt *xtap_hwbkpts;
static u32 xtap_nhwbkpts;

static void xtap_hwbkpt_hit(struct perf_event *bp,
			    struct perf_sample_data *data, struct pt_regs *regs)
{
	const struct xtap_hwbkpt_spec *spec = bp->overflow_handler_context;

	xtap_run_probe(spec->probe, regs);
}

static int xtap_hwbkpt_alloc(const void *specs, u32 n)
{
	const struct xtap_hwbkpt_spec *hspecs = specs;
	u32 i;

	if (!n)
		return 0;
	xtap_hwbkpts = kcalloc(n, sizeof(*xtap_hwbkpts), GFP_KERNEL);
	if (!xtap_hwbkpts)
		return -ENOMEM;
	xtap_nhwbkpts = n;
	for (i = 0; i < n; i++)
		xtap_hwbkpts[i].spec = &hspecs[i];
	return 0;
}

static void xtap_hwbkpt_free(void)
{
	kfree(xtap_hwbkpts);
	xtap_hwbkpts = NULL;
	xtap_nhwbkpts = 0;
}

static void xtap_hwbkpt_disarm(void)
{
	u32 i;

	for (i = 0; i < xtap_nhwbkpts; i++) {
		if (!xtap_hwbkpts[i].events)
			continue;
		/* Removes the event from every CPU and waits for its handlers. */
		unregister_wide_hw_breakpoint(xtap_hwbkpts[i].events);
		xtap_hwbkpts[i].events = NULL;
	}
}

static const char *xtap_hwbkpt_why(int err)
{
	switch (err) {
	case -ENOSPC:
		return "; no debug register is free (the CPU has few, shared with perf and debuggers)";
	case -EINVAL:
		return "; the kernel allows no watchpoint of this length at this address";
	case -ENODEV:
	case -EOPNOTSUPP:
		return "; this machine has no hardware watchpoints";
	default:
		return "";
	}
}

static int xtap_hwbkpt_arm(void)
{
	u32 i;

	for (i = 0; i < xtap_nhwbkpts; i++) {
		const struct xtap_hwbkpt_spec *spec = xtap_hwbkpts[i].spec;
		struct perf_event *__percpu *events;
		struct perf_event_attr attr;
		unsigned long addr = spec->symbol_address ?
					     *spec->symbol_address :
					     spec->address;

		if (addr & (spec->len - 1)) {
			xtap_fatal(
				"cannot watch %s at %s: address 0x%lx is not aligned to its length (%u bytes)",
				spec->probe->point, spec->probe->location, addr,
				spec->len);
			xtap_hwbkpt_disarm();
			return -EINVAL;
		}
		hw_breakpoint_init(&attr);
		attr.bp_addr = addr;
		attr.bp_len = spec->len;
		attr.bp_type = spec->type;
		events = register_wide_hw_breakpoint(&attr, xtap_hwbkpt_hit,
						     (void *)spec);
		if (!IS_ERR(events)) {
			xtap_hwbkpts[i].events = events;
			continue;
		}
		if (spec->optional)
			continue;
		xtap_fatal("cannot watch %s at %s: %s (%ld)%s",
			   spec->probe->point, spec->probe->location,
			   xtap_errno_text(PTR_ERR(events)), PTR_ERR(events),
			   xtap_hwbkpt_why(PTR_ERR(events)));
		xtap_hwbkpt_disarm();
		return PTR_ERR(events);
	}
	return 0;
}

const struct xtap_family_ops xtap_hwbkpt_ops = {
	.name = "hwbkpt",
	.alloc = xtap_hwbkpt_alloc,
	.arm = xtap_hwbkpt_arm,
	.disarm = xtap_hwbkpt_disarm,
	.free = xtap_hwbkpt_free,
};
