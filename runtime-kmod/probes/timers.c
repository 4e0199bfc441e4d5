// SPDX-License-Identifier: GPL-2.0
/* timer.ms(N)/timer.us(N)/... provider: one periodic hrtimer per probe. */
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/slab.h>
#include "compat/hrtimer.h"
#include "internal.h"

#define XTAP_TIMER_MIN_NS 10000ULL /* keep a tiny period from starving a CPU */

struct xtap_timer {
	struct hrtimer t;
	const struct xtap_timer_spec *spec;
	u64 period_ns;
	u64 randomize_ns; /* each interval moves by up to this much either way */
	bool armed;
};

static struct xtap_timer *xtap_timers;
static u16 xtap_ntimers;

static ktime_t xtap_timer_interval(const struct xtap_timer *xt)
{
	u64 ns = xt->period_ns;

	if (xt->randomize_ns)
		ns = ns - xt->randomize_ns +
		     get_random_u64() % (2 * xt->randomize_ns + 1);
	return ns_to_ktime(max(ns, XTAP_TIMER_MIN_NS));
}

static enum hrtimer_restart xtap_timer_fire(struct hrtimer *t)
{
	struct xtap_timer *xt = container_of(t, struct xtap_timer, t);

	xtap_run_probe(xt->spec->probe, NULL);
	/* Timers are armed while the session is still STARTING: keep going. */
	if (xtap_state() > XTAP_ST_RUNNING)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, xtap_timer_interval(xt));
	return HRTIMER_RESTART;
}

static int xtap_timers_alloc(const void *specs, u32 n)
{
	const struct xtap_timer_spec *tspecs = specs;
	int i;

	if (!n)
		return 0;
	xtap_timers = kcalloc(n, sizeof(*xtap_timers), GFP_KERNEL);
	if (!xtap_timers)
		return -ENOMEM;
	xtap_ntimers = n;
	for (i = 0; i < xtap_ntimers; i++) {
		struct xtap_timer *xt = &xtap_timers[i];

		xt->spec = &tspecs[i];
		xt->period_ns =
			xt->spec->period_jiffies ?
				jiffies_to_nsecs(xt->spec->period_jiffies) :
				xt->spec->period_ns;
		xt->randomize_ns =
			xt->spec->period_jiffies ?
				jiffies_to_nsecs(xt->spec->randomize_jiffies) :
				xt->spec->randomize_ns;
		/* The translator keeps M at most N; stay safe for any module. */
		xt->randomize_ns = min(xt->randomize_ns, xt->period_ns);
		xtap_hrtimer_setup(&xt->t, xtap_timer_fire, CLOCK_MONOTONIC,
				   HRTIMER_MODE_REL);
	}
	return 0;
}

static void xtap_timers_free(void)
{
	kfree(xtap_timers);
	xtap_timers = NULL;
	xtap_ntimers = 0;
}

static int xtap_timers_arm(void)
{
	int i;

	for (i = 0; i < xtap_ntimers; i++) {
		struct xtap_timer *xt = &xtap_timers[i];

		xt->armed = true;
		hrtimer_start(&xt->t, xtap_timer_interval(xt),
			      HRTIMER_MODE_REL);
	}
	return 0;
}

/* hrtimer_cancel waits for a running callback, so nothing fires afterwards. */
static void xtap_timers_disarm(void)
{
	int i;

	for (i = 0; i < xtap_ntimers; i++) {
		struct xtap_timer *xt = &xtap_timers[i];

		if (xt->armed)
			hrtimer_cancel(&xt->t);
		xt->armed = false;
	}
}

const struct xtap_family_ops xtap_timer_ops = {
	.name = "timer",
	.alloc = xtap_timers_alloc,
	.arm = xtap_timers_arm,
	.disarm = xtap_timers_disarm,
	.free = xtap_timers_free,
};
