// SPDX-License-Identifier: GPL-2.0
/* netfilter.hook(...).pf(...) provider: one nf_hook_ops per probe, in init_net. */
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include "internal.h"

struct xtap_nf_hook {
	struct nf_hook_ops ops;
	bool registered;
};

static struct xtap_nf_hook *xtap_nf_hooks;
static u32 xtap_nf_nhooks;

/*
 * Runs in softirq or process context, for every packet through the hook.
 * A guru-mode script may set $verdict (args[5], written in place): the
 * packet is then dropped (NF_DROP) or goes on (NF_ACCEPT). Other verdicts
 * would hand the packet to no one (NF_STOLEN leaks it, NF_QUEUE without a
 * queue drops it, NF_REPEAT can loop): they are refused as an error and
 * the packet goes on.
 */
static unsigned int xtap_nf_hookfn(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	const struct xtap_netfilter_spec *spec = priv;
	u64 args[] = {
		state->hook,
		(unsigned long)skb,
		(unsigned long)state->in,
		(unsigned long)state->out,
		(unsigned long)state->okfn,
		NF_ACCEPT,
	};
	struct xtap_context *c = xtap_enter(spec->probe, NULL);
	unsigned int verdict = NF_ACCEPT;

	if (c) {
		c->args = args;
		spec->probe->handler(c);
		c->args = NULL;
		verdict = (u32)READ_ONCE(args[5]);
		if (verdict != NF_DROP && verdict != NF_ACCEPT) {
			if (!c->error)
				xtap_error(
					c,
					"$verdict %u is not NF_DROP (0) or NF_ACCEPT (1); the packet goes on",
					verdict);
			verdict = NF_ACCEPT;
		}
		xtap_leave(c);
	}
	return verdict;
}

static int xtap_netfilter_alloc(const void *specs, u32 n)
{
	const struct xtap_netfilter_spec *nspecs = specs;
	u32 i;

	if (!n)
		return 0;
	xtap_nf_hooks = kcalloc(n, sizeof(*xtap_nf_hooks), GFP_KERNEL);
	if (!xtap_nf_hooks)
		return -ENOMEM;
	xtap_nf_nhooks = n;
	for (i = 0; i < n; i++) {
		struct nf_hook_ops *ops = &xtap_nf_hooks[i].ops;

		ops->hook = xtap_nf_hookfn;
		ops->priv = (void *)&nspecs[i];
		ops->pf = nspecs[i].pf;
		ops->hooknum = nspecs[i].hook;
		ops->priority = nspecs[i].priority;
	}
	return 0;
}

static void xtap_netfilter_disarm(void)
{
	u32 i;

	/* nf_unregister_net_hook() waits (synchronize_net) for running hooks. */
	for (i = 0; i < xtap_nf_nhooks; i++) {
		if (xtap_nf_hooks[i].registered)
			nf_unregister_net_hook(&init_net,
					       &xtap_nf_hooks[i].ops);
		xtap_nf_hooks[i].registered = false;
	}
}

static int xtap_netfilter_arm(void)
{
	u32 i;
	int err;

	for (i = 0; i < xtap_nf_nhooks; i++) {
		struct xtap_nf_hook *h = &xtap_nf_hooks[i];

		err = nf_register_net_hook(&init_net, &h->ops);
		if (err) {
			const struct xtap_netfilter_spec *spec = h->ops.priv;

			pr_err("xtap: cannot register %s (hook %u, protocol family %u): error %d\n",
			       spec->probe->point, h->ops.hooknum, h->ops.pf,
			       err);
			xtap_netfilter_disarm();
			return err;
		}
		h->registered = true;
	}
	return 0;
}

static void xtap_netfilter_free(void)
{
	kfree(xtap_nf_hooks);
	xtap_nf_hooks = NULL;
	xtap_nf_nhooks = 0;
}

const struct xtap_family_ops xtap_netfilter_ops = {
	.name = "netfilter",
	.alloc = xtap_netfilter_alloc,
	.arm = xtap_netfilter_arm,
	.disarm = xtap_netfilter_disarm,
	.free = xtap_netfilter_free,
};
