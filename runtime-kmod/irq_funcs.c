// SPDX-License-Identifier: GPL-2.0
/* The irq tapset: IRQF_* flags and softirq numbers in words. */
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <xtap/memory.h>

struct xtap_irq_named {
	unsigned long value;
	const char *name;
};

#define N(x)          \
	{             \
		x, #x \
	}

static const struct xtap_irq_named xtap_irqflags[] = {
	N(IRQF_SHARED),		N(IRQF_PROBE_SHARED),	 N(IRQF_TIMER),
	N(IRQF_PERCPU),		N(IRQF_NOBALANCING),	 N(IRQF_IRQPOLL),
	N(IRQF_ONESHOT),	N(IRQF_NO_SUSPEND),	 N(IRQF_FORCE_RESUME),
	N(IRQF_NO_THREAD),	N(IRQF_EARLY_RESUME),	 N(IRQF_COND_SUSPEND),
	N(IRQF_NO_AUTOEN),	N(IRQF_NO_DEBUG),
#ifdef IRQF_COND_ONESHOT /* 6.10 */
	N(IRQF_COND_ONESHOT),
#endif
	N(IRQF_TRIGGER_RISING), N(IRQF_TRIGGER_FALLING), N(IRQF_TRIGGER_HIGH),
	N(IRQF_TRIGGER_LOW),	N(IRQF_TRIGGER_PROBE),
};

char *xtap_irqflags_str(char *out, size_t len, s64 flags)
{
	unsigned long rest = (unsigned long)flags;
	size_t used = 0;
	size_t i;

	strscpy(out, rest ? "" : "0", len);
	for (i = 0; i < ARRAY_SIZE(xtap_irqflags); i++) {
		if (!(rest & xtap_irqflags[i].value))
			continue;
		rest &= ~xtap_irqflags[i].value;
		used += scnprintf(out + used, len - used, "%s%s",
				  used ? "|" : "", xtap_irqflags[i].name);
	}
	if (rest)
		scnprintf(out + used, len - used, "%s%#lx", used ? "|" : "",
			  rest);
	return out;
}

/* The kernel's own table (softirq_to_name) is not exported. */
static const char *const xtap_softirq_names[] = {
	[HI_SOFTIRQ] = "HI",	       [TIMER_SOFTIRQ] = "TIMER",
	[NET_TX_SOFTIRQ] = "NET_TX",   [NET_RX_SOFTIRQ] = "NET_RX",
	[BLOCK_SOFTIRQ] = "BLOCK",     [IRQ_POLL_SOFTIRQ] = "IRQ_POLL",
	[TASKLET_SOFTIRQ] = "TASKLET", [SCHED_SOFTIRQ] = "SCHED",
	[HRTIMER_SOFTIRQ] = "HRTIMER", [RCU_SOFTIRQ] = "RCU",
};

char *xtap_softirq_name(char *out, size_t len, s64 nr)
{
	const char *name = NULL;

	if (nr >= 0 && nr < ARRAY_SIZE(xtap_softirq_names))
		name = xtap_softirq_names[nr];
	strscpy(out, name ? name : "", len);
	return out;
}
