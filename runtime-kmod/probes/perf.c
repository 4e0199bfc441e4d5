// SPDX-License-Identifier: GPL-2.0
/*
 * perf.sw.*, perf.hw.*, perf.type(N).config(M) and timer.profile: one kernel
 * perf event per probe on every online CPU, its overflow handler running
 * the probe in the context the event interrupted.
 *
 * Events follow CPU hotplug: a dynamic cpuhp state creates a CPU's events
 * when it comes online (and, when the state is set up, on every CPU already
 * online) and releases them before it goes offline. A failure while arming
 * fails the session, naming the probe; a failure on a CPU that comes online
 * later only warns, since refusing the CPU would be worse.
 */
#include <linux/cpuhotplug.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include "internal.h"

struct xtap_perf {
	const struct xtap_perf_spec *spec;
	struct perf_event *__percpu *events;
};

static struct xtap_perf *xtap_perfs;
static u32 xtap_nperfs;
static int xtap_perf_cpuhp = -1; /* the dynamic cpuhp state, once set up */
static bool xtap_perf_arming; /* inside cpuhp_setup_state() */
static const struct xtap_perf_spec *xtap_perf_failed;
static int xtap_perf_failed_err;

static void xtap_perf_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	const struct xtap_perf_spec *spec = event->overflow_handler_context;

	xtap_run_probe(spec->probe, regs);
}

static void xtap_perf_attr(const struct xtap_perf_spec *spec,
			   struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = spec->type;
	attr->config = spec->config;
	if (spec->tick) {
		attr->sample_period = TICK_NSEC; /* cpu_clock counts ns */
	} else if (spec->sample_period) {
		attr->sample_period = spec->sample_period;
	} else {
		attr->freq = 1;
		attr->sample_freq = spec->sample_freq;
	}
}

static void xtap_perf_warn(const struct xtap_perf_spec *spec, unsigned int cpu,
			   int err)
{
	char msg[192];

	snprintf(msg, sizeof(msg), "%s at %s is not sampled on CPU %u: %s (%d)",
		 spec->probe->point, spec->probe->location, cpu,
		 xtap_errno_text(err), err);
	xtap_msg_text(XTAP_MSG_WARNING, msg);
}

static int xtap_perf_cpu_down(unsigned int cpu)
{
	u32 i;

	for (i = 0; i < xtap_nperfs; i++) {
		struct perf_event **slot =
			per_cpu_ptr(xtap_perfs[i].events, cpu);

		if (*slot)
			perf_event_release_kernel(*slot);
		*slot = NULL;
	}
	return 0;
}

static int xtap_perf_cpu_up(unsigned int cpu)
{
	struct perf_event_attr attr;
	u32 i;

	for (i = 0; i < xtap_nperfs; i++) {
		const struct xtap_perf_spec *spec = xtap_perfs[i].spec;
		struct perf_event *ev;

		xtap_perf_attr(spec, &attr);
		ev = perf_event_create_kernel_counter(
			&attr, cpu, NULL, xtap_perf_overflow, (void *)spec);
		if (!IS_ERR(ev)) {
			*per_cpu_ptr(xtap_perfs[i].events, cpu) = ev;
			continue;
		}
		if (spec->optional)
			continue;
		if (!xtap_perf_arming) {
			xtap_perf_warn(spec, cpu, PTR_ERR(ev));
			continue;
		}
		/* cpuhp_setup_state() tears down the CPUs already done. */
		xtap_perf_failed = spec;
		xtap_perf_failed_err = PTR_ERR(ev);
		xtap_perf_cpu_down(cpu);
		return PTR_ERR(ev);
	}
	return 0;
}

static int xtap_perf_alloc(const void *specs, u32 n)
{
	const struct xtap_perf_spec *pspecs = specs;
	u32 i;

	if (!n)
		return 0;
	xtap_perfs = kcalloc(n, sizeof(*xtap_perfs), GFP_KERNEL);
	if (!xtap_perfs)
		return -ENOMEM;
	xtap_nperfs = n;
	for (i = 0; i < n; i++) {
		xtap_perfs[i].spec = &pspecs[i];
		xtap_perfs[i].events = alloc_percpu(struct perf_event *);
		if (!xtap_perfs[i].events)
			return -ENOMEM;
	}
	return 0;
}

static void xtap_perf_free(void)
{
	u32 i;

	for (i = 0; i < xtap_nperfs; i++)
		free_percpu(xtap_perfs[i].events);
	kfree(xtap_perfs);
	xtap_perfs = NULL;
	xtap_nperfs = 0;
}

static int xtap_perf_arm(void)
{
	int ret;

	if (!xtap_nperfs)
		return 0;
	xtap_perf_failed = NULL;
	xtap_perf_arming = true;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "xtap/perf:online",
				xtap_perf_cpu_up, xtap_perf_cpu_down);
	xtap_perf_arming = false;
	if (ret >= 0) {
		xtap_perf_cpuhp = ret;
		return 0;
	}
	if (xtap_perf_failed)
		xtap_fatal("cannot register %s at %s: %s (%d)%s",
			   xtap_perf_failed->probe->point,
			   xtap_perf_failed->probe->location,
			   xtap_errno_text(xtap_perf_failed_err),
			   xtap_perf_failed_err,
			   xtap_perf_failed_err == -ENOENT ?
				   "; this machine has no such perf event" :
				   "");
	else
		xtap_fatal("cannot set up perf events: %s (%d)",
			   xtap_errno_text(ret), ret);
	return ret;
}

static void xtap_perf_disarm(void)
{
	if (xtap_perf_cpuhp < 0)
		return;
	/* Releases every CPU's events; a running hrtimer sample is waited for. */
	cpuhp_remove_state(xtap_perf_cpuhp);
	xtap_perf_cpuhp = -1;
	/* Software events fire under RCU and hardware ones in NMIs: let them end. */
	synchronize_rcu();
}

const struct xtap_family_ops xtap_perf_ops = {
	.name = "perf",
	.alloc = xtap_perf_alloc,
	.arm = xtap_perf_arm,
	.disarm = xtap_perf_disarm,
	.free = xtap_perf_free,
};
