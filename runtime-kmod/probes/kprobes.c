// SPDX-License-Identifier: GPL-2.0
/* kprobe.function("sym") and kprobe.function("sym").return providers. */
#include <linux/kprobes.h>
#include <linux/slab.h>
#include "internal.h"

struct xtap_kprobe {
	struct kprobe kp;
	struct kretprobe rp;
	const struct xtap_kprobe_spec *spec;
};

static struct xtap_kprobe *xtap_kps;
static struct kprobe **xtap_kp_armed;
static struct kretprobe **xtap_rp_armed;
static u16 xtap_nkps, xtap_nkp_armed, xtap_nrp_armed;

/* Like xtap_run_probe(), with the probed address kept for probefunc(). */
static void xtap_kprobe_run(const struct xtap_probe *p, struct pt_regs *regs,
			    void *addr)
{
	struct xtap_context *c = xtap_enter(p, regs);

	if (!c)
		return;
	container_of(c, struct xtap_cpu_ctx, c)->probe_addr = (unsigned long)addr;
	p->handler(c);
	xtap_leave(c);
}
NOKPROBE_SYMBOL(xtap_kprobe_run);

static int xtap_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct xtap_kprobe *xk = container_of(kp, struct xtap_kprobe, kp);

	xtap_kprobe_run(xk->spec->probe, regs, kp->addr);
	return 0;
}
NOKPROBE_SYMBOL(xtap_kprobe_pre);

/*
 * Under multi-threaded QEMU TCG (7.2), arming or disarming a kprobe on a
 * function another vCPU runs in a tight loop can oops the guest with RIP 0
 * in the text_poke_bp int3 sequence, with or without this handler (a
 * kernel-sample kretprobe module does the same); single-threaded TCG is
 * clean. Not an xtap bug: the test VM runs single-threaded (cli/vm).
 */
static int xtap_kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct xtap_kprobe *xk;

	if (unlikely(!rp))
		return 0;
	xk = container_of(rp, struct xtap_kprobe, rp);
	xtap_kprobe_run(xk->spec->probe, regs, rp->kp.addr);
	return 0;
}
NOKPROBE_SYMBOL(xtap_kretprobe_ret);

int xtap_kprobes_alloc(const struct xtap_script *s)
{
	if (!s->nkprobes)
		return 0;
	xtap_kps = kcalloc(s->nkprobes, sizeof(*xtap_kps), GFP_KERNEL);
	xtap_kp_armed = kcalloc(s->nkprobes, sizeof(*xtap_kp_armed), GFP_KERNEL);
	xtap_rp_armed = kcalloc(s->nkprobes, sizeof(*xtap_rp_armed), GFP_KERNEL);
	if (!xtap_kps || !xtap_kp_armed || !xtap_rp_armed) {
		xtap_kprobes_free();
		return -ENOMEM;
	}
	xtap_nkps = s->nkprobes;
	return 0;
}

void xtap_kprobes_free(void)
{
	kfree(xtap_kps);
	kfree(xtap_kp_armed);
	kfree(xtap_rp_armed);
	xtap_kps = NULL;
	xtap_kp_armed = NULL;
	xtap_rp_armed = NULL;
	xtap_nkps = 0;
}

static int xtap_kprobe_register(struct xtap_kprobe *xk)
{
	const struct xtap_kprobe_spec *spec = xk->spec;
	int err;

	if (spec->is_return) {
		memset(&xk->rp, 0, sizeof(xk->rp));
		xk->rp.kp.symbol_name = spec->symbol;
		xk->rp.handler = xtap_kretprobe_ret;
		xk->rp.maxactive = spec->maxactive;
		err = register_kretprobe(&xk->rp);
		if (!err)
			xtap_rp_armed[xtap_nrp_armed++] = &xk->rp;
	} else {
		memset(&xk->kp, 0, sizeof(xk->kp));
		xk->kp.symbol_name = spec->symbol;
		xk->kp.pre_handler = xtap_kprobe_pre;
		err = register_kprobe(&xk->kp);
		if (!err)
			xtap_kp_armed[xtap_nkp_armed++] = &xk->kp;
	}
	return err;
}

/*
 * Register every kprobe; on the first failure report it and roll back,
 * except for an optional probe point (stap's "probe point?"), which is
 * left out silently.
 */
int xtap_kprobes_arm(void)
{
	const struct xtap_script *s = xtap_sess.script;
	int i, err;

	for (i = 0; i < xtap_nkps; i++) {
		struct xtap_kprobe *xk = &xtap_kps[i];

		xk->spec = &s->kprobes[i];
		err = xtap_kprobe_register(xk);
		if (err && xk->spec->optional) {
			pr_debug(XTAP_PFX "optional %s not registered (%d)\n",
				 xk->spec->probe->point, err);
			continue;
		}
		if (err) {
			const struct xtap_probe *p = xk->spec->probe;

			xtap_fatal("cannot register %s at %s: %s (%d)",
				   p->point, p->location, xtap_errno_text(err), err);
			xtap_kprobes_disarm();
			return err;
		}
	}
	return 0;
}

/* Runs the kernel could not give us count as skipped, as in stap. */
static void xtap_kprobes_count_missed(void)
{
	u64 missed = 0;
	int i;

	for (i = 0; i < xtap_nkp_armed; i++)
		missed += xtap_kp_armed[i]->nmissed;
	for (i = 0; i < xtap_nrp_armed; i++)
		missed += xtap_rp_armed[i]->nmissed + xtap_rp_armed[i]->kp.nmissed;
	if (missed)
		atomic64_add(missed, &xtap_sess.skipped);
}

/* Batched: one RCU grace period for all probes of a family. */
void xtap_kprobes_disarm(void)
{
	if (xtap_nkp_armed)
		unregister_kprobes(xtap_kp_armed, xtap_nkp_armed);
	if (xtap_nrp_armed)
		unregister_kretprobes(xtap_rp_armed, xtap_nrp_armed);
	xtap_kprobes_count_missed();
	xtap_nkp_armed = 0;
	xtap_nrp_armed = 0;
}
