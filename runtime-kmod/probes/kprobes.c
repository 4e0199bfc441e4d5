// SPDX-License-Identifier: GPL-2.0
/* kprobe.function("sym") and kprobe.function("sym").return providers. */
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "internal.h"

/*
 * One per kernel function probed: a probe point's own symbol, or one of the
 * functions its wildcard matched.
 */
struct xtap_kprobe {
	struct kprobe kp;
	struct kretprobe rp;
	const struct xtap_kprobe_spec *spec;
	const char *symbol;
	bool from_wildcard;
};

static const struct xtap_kprobe_spec *xtap_kspecs;
static u32 xtap_nkspecs;
static struct xtap_kprobe *xtap_kps;
static struct kprobe **xtap_kp_armed;
static struct kretprobe **xtap_rp_armed;
static u32 xtap_nkps, xtap_nkp_armed, xtap_nrp_armed;

/*
 * "SPEC:NAME,SPEC:NAME...": the functions matching the script's wildcard
 * probe points (kprobe.function("vfs_*")), expanded by xtap-run from
 * /proc/kallsyms because a module cannot list kernel symbols itself.
 */
static char *xtap_symbols;

/* Not charp: that type refuses values over 1024 bytes. */
static int xtap_symbols_set(const char *val, const struct kernel_param *kp)
{
	char *copy = kstrdup(val, GFP_KERNEL);

	if (!copy)
		return -ENOMEM;
	kfree(xtap_symbols);
	xtap_symbols = copy;
	return 0;
}

static const struct kernel_param_ops xtap_symbols_ops = {
	.set = xtap_symbols_set,
};
module_param_cb(xtap_symbols, &xtap_symbols_ops, NULL, 0);
MODULE_PARM_DESC(xtap_symbols, "functions matching wildcard probe points (set by xtap-run)");

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

/* Entries of xtap_symbols that name a wildcard spec of this script. */
static u32 xtap_count_symbols(void)
{
	const char *p = xtap_symbols;
	u32 n = 0;

	while (p && *p) {
		n++;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return n;
}

/* Adds the wildcard matches; a malformed entry is an init error. */
static int xtap_add_symbols(void)
{
	char *list, *cur, *item;

	if (!xtap_symbols || !*xtap_symbols)
		return 0;
	list = kstrdup(xtap_symbols, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cur = list;
	while ((item = strsep(&cur, ",")) != NULL) {
		char *name = strchr(item, ':');
		unsigned int spec;
		struct xtap_kprobe *xk;

		if (!name || (*name = '\0', kstrtouint(item, 10, &spec)) ||
		    spec >= xtap_nkspecs || !xtap_kspecs[spec].wildcard || !name[1]) {
			xtap_init_error("bad xtap_symbols entry '%s'", item);
			break;
		}
		xk = &xtap_kps[xtap_nkps];
		xk->spec = &xtap_kspecs[spec];
		xk->symbol = kstrdup(name + 1, GFP_KERNEL);
		xk->from_wildcard = true;
		if (!xk->symbol) {
			kfree(list);
			return -ENOMEM;
		}
		xtap_nkps++;
	}
	kfree(list);
	return 0;
}

static void xtap_kprobes_free(void);
static void xtap_kprobes_disarm(void);

static int xtap_kprobes_alloc(const void *specs, u32 nspecs)
{
	const struct xtap_kprobe_spec *kspecs = specs;
	u32 n, i;

	xtap_kspecs = kspecs;
	xtap_nkspecs = nspecs;
	n = nspecs + xtap_count_symbols();
	if (!n)
		return 0;
	xtap_kps = kcalloc(n, sizeof(*xtap_kps), GFP_KERNEL);
	xtap_kp_armed = kcalloc(n, sizeof(*xtap_kp_armed), GFP_KERNEL);
	xtap_rp_armed = kcalloc(n, sizeof(*xtap_rp_armed), GFP_KERNEL);
	if (!xtap_kps || !xtap_kp_armed || !xtap_rp_armed) {
		xtap_kprobes_free();
		return -ENOMEM;
	}
	for (i = 0; i < nspecs; i++) {
		if (kspecs[i].wildcard)
			continue;
		xtap_kps[xtap_nkps].spec = &kspecs[i];
		xtap_kps[xtap_nkps].symbol = kspecs[i].symbol;
		xtap_nkps++;
	}
	return xtap_add_symbols();
}

static void xtap_kprobes_free(void)
{
	u32 i;

	for (i = 0; xtap_kps && i < xtap_nkps; i++)
		if (xtap_kps[i].from_wildcard)
			kfree(xtap_kps[i].symbol);
	kfree(xtap_kps);
	kfree(xtap_kp_armed);
	kfree(xtap_rp_armed);
	kfree(xtap_symbols);
	xtap_symbols = NULL;
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
		xk->rp.kp.symbol_name = xk->symbol;
		xk->rp.handler = xtap_kretprobe_ret;
		xk->rp.maxactive = spec->maxactive;
		err = register_kretprobe(&xk->rp);
		if (!err)
			xtap_rp_armed[xtap_nrp_armed++] = &xk->rp;
	} else {
		memset(&xk->kp, 0, sizeof(xk->kp));
		xk->kp.symbol_name = xk->symbol;
		xk->kp.pre_handler = xtap_kprobe_pre;
		err = register_kprobe(&xk->kp);
		if (!err)
			xtap_kp_armed[xtap_nkp_armed++] = &xk->kp;
	}
	return err;
}

/*
 * A wildcard probe point is fine while at least one function it matched
 * could be probed; functions kprobes refuse (notrace, inlined away) are
 * left out with a warning, as stap does.
 */
static int xtap_check_wildcards(void)
{
	u32 i, j;

	for (i = 0; i < xtap_nkspecs; i++) {
		const struct xtap_kprobe_spec *spec = &xtap_kspecs[i];
		u32 matched = 0, armed = 0;

		if (!spec->wildcard)
			continue;
		for (j = 0; j < xtap_nkps; j++) {
			struct xtap_kprobe *xk = &xtap_kps[j];

			if (xk->spec != spec)
				continue;
			matched++;
			if (spec->is_return ? xk->rp.kp.addr != NULL : xk->kp.addr != NULL)
				armed++;
		}
		if (armed && armed < matched) {
			char msg[160];

			snprintf(msg, sizeof(msg), "%u of %u functions matching %s could not be probed",
				 matched - armed, matched, spec->probe->point);
			xtap_msg_text(XTAP_MSG_WARNING, msg);
		}
		if (!armed && !spec->optional) {
			xtap_fatal("no kernel function matching %s at %s can be probed",
				   spec->probe->point, spec->probe->location);
			return -ENOENT;
		}
	}
	return 0;
}

/*
 * Register every kprobe; on the first failure report it and roll back,
 * except for an optional probe point (stap's "probe point?") and the
 * functions a wildcard matched, which are left out.
 */
static int xtap_kprobes_arm(void)
{
	u32 i;
	int err;

	for (i = 0; i < xtap_nkps; i++) {
		struct xtap_kprobe *xk = &xtap_kps[i];

		err = xtap_kprobe_register(xk);
		if (err && (xk->spec->optional || xk->from_wildcard)) {
			memset(&xk->kp, 0, sizeof(xk->kp));
			memset(&xk->rp, 0, sizeof(xk->rp));
			pr_debug(XTAP_PFX "%s not registered on %s (%d)\n",
				 xk->spec->probe->point, xk->symbol, err);
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
	err = xtap_check_wildcards();
	if (err)
		xtap_kprobes_disarm();
	return err;
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
static void xtap_kprobes_disarm(void)
{
	if (xtap_nkp_armed)
		unregister_kprobes(xtap_kp_armed, xtap_nkp_armed);
	if (xtap_nrp_armed)
		unregister_kretprobes(xtap_rp_armed, xtap_nrp_armed);
	xtap_kprobes_count_missed();
	xtap_nkp_armed = 0;
	xtap_nrp_armed = 0;
}

const struct xtap_family_ops xtap_kprobe_ops = {
	.name = "kprobe",
	.alloc = xtap_kprobes_alloc,
	.arm = xtap_kprobes_arm,
	.disarm = xtap_kprobes_disarm,
	.free = xtap_kprobes_free,
};
