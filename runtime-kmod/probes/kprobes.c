// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe.function("sym")[.return] and kernel.function("f")[.call|.return]:
 * kprobes and kretprobes on kernel functions by symbol name. The entry of
 * a kernel.function that ftrace can trace is called through ftrace
 * instead (fentry.c), which costs less per hit; the rest is the same.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "internal.h"
#include "context_inline.h"
#include "probes/fentry.h"

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
	bool fentry; /* armed through the set's ftrace_ops, not kp */
};

/*
 * The registrations of one family: kprobe.function (whose wildcards xtap-run
 * expands) and kernel.function (whose functions pass 2 found in the BTF)
 * share this code, each with its own set.
 */
struct xtap_kprobe_set {
	const struct xtap_kprobe_spec *specs;
	u32 nspecs;
	struct xtap_kprobe *kps;
	struct kprobe **kp_armed;
	struct kretprobe **rp_armed;
	u32 nkps, nkp_armed, nrp_armed;
	bool takes_symbols; /* wildcard specs are expanded through xtap_symbols */
	bool takes_fentry; /* entry probes go through ftrace where they can */
	bool unoptimized; /* too many kprobes to optimize (xtap_kprobe_post) */
	struct xtap_fentry *fentry;
};

/* kprobe.function is a kprobe, as its name says. */
static struct xtap_kprobe_set xtap_kprobe_set = { .takes_symbols = true };
static struct xtap_kprobe_set xtap_kfunc_set = { .takes_fentry = true };

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
MODULE_PARM_DESC(xtap_symbols,
		 "functions matching wildcard probe points (set by xtap-run)");

/*
 * Like xtap_run_probe(), with the probed address kept for probefunc() and,
 * in a return probe that saved them, the function's arguments at entry.
 * Inline, as the bracket around the handler: a hit calls nothing else.
 */
static __always_inline bool xtap_kprobe_run(const struct xtap_probe *p,
					    struct pt_regs *regs, void *addr,
					    const u64 *entry_args,
					    unsigned long entry_key)
{
	struct xtap_context *c = xtap_enter_inline(p, regs);
	struct xtap_cpu_ctx *cc;

	if (!c)
		return false;
	cc = container_of(c, struct xtap_cpu_ctx, c);
	cc->probe_addr = (unsigned long)addr;
	cc->entry_key = entry_key;
	c->args = entry_args;
	p->handler(c);
	c->args = NULL;
	xtap_leave_inline(c);
	return true;
}

static __always_inline void xtap_kprobe_hit(const struct xtap_kprobe *xk,
					    struct pt_regs *regs, void *addr)
{
	const struct xtap_kprobe_spec *spec = xk->spec;

	/* At a function's entry the stack pointer is at the return address. */
	if (spec->return_to &&
	    *(const unsigned long *)kernel_stack_pointer(regs) !=
		    *spec->return_to + spec->return_offset)
		return;
	xtap_kprobe_run(spec->probe, regs, addr, NULL, 0);
}

static int xtap_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	xtap_kprobe_hit(container_of(kp, struct xtap_kprobe, kp), regs,
			kp->addr);
	return 0;
}
NOKPROBE_SYMBOL(xtap_kprobe_pre);

/*
 * Only there to keep the kernel from optimizing the kprobe into a jump
 * (kprobes with a post handler are not optimized): with many kprobes,
 * optimizing them (an RCU-tasks grace period per batch, under the kprobe
 * mutex every registration waits for) costs four times registering them.
 */
static void xtap_kprobe_post(struct kprobe *kp, struct pt_regs *regs,
			     unsigned long flags)
{
}
NOKPROBE_SYMBOL(xtap_kprobe_post);

/*
 * Beyond this many kprobes (not through ftrace) in a family, they are left
 * unoptimized: arming is what costs then, a hit costs an int3 trap more.
 */
#define XTAP_KPROBE_OPTIMIZE_MAX 64

/*
 * From ftrace (fentry.c), at the __fentry__ site `ip` of a function whose
 * entry probes are armed there, where the kprobe would have been: each
 * handler sees what a kprobe's sees there, the instruction pointer just
 * past the site's first byte (addr(), a backtrace's first frame), which
 * ftrace gets back unchanged.
 */
static void notrace xtap_kfunc_fentry(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	struct xtap_fentry *fe = container_of(ops, struct xtap_fentry, ops);
	const struct xtap_fentry_site *s, *end = fe->sites + fe->nsites;
	struct pt_regs *regs = ftrace_get_regs(fregs);
	/* Also keeps preemption off until the unlock. */
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);
	unsigned long saved_ip;

	if (bit < 0) {
		atomic64_inc(&fe->missed);
		return;
	}
	s = xtap_fentry_find(fe, ip);
	if (likely(regs && s)) {
		saved_ip = instruction_pointer(regs);
		instruction_pointer_set(regs, ip + sizeof(kprobe_opcode_t));
		/* Every probe on the function, in the order they were added. */
		for (; s < end && s->ip == ip; s++)
			xtap_kprobe_hit(s->owner, regs, (void *)ip);
		instruction_pointer_set(regs, saved_ip);
	}
	ftrace_test_recursion_unlock(bit);
}
NOKPROBE_SYMBOL(xtap_kfunc_fentry);

/*
 * kernel.function("f").return reads $param as its value at entry, as stap
 * does: the argument registers are saved in the instance's data area. A
 * probe using @entry has an entry half that saves its values under this
 * instance; when it cannot run (the CPU is already in a handler, a lock is
 * busy), the call is not probed at all: a non-zero return tells kretprobes
 * to drop the instance, and the kernel counts it as missed.
 */
static int xtap_kretprobe_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct xtap_kprobe *xk;
	u64 *saved = (u64 *)ri->data;
	int i;

	if (unlikely(!rp))
		return 1;
	xk = container_of(rp, struct xtap_kprobe, rp);
	if (xk->spec->save_args)
		for (i = 0; i < XTAP_KFUNC_REG_ARGS; i++)
			saved[i] = regs_get_kernel_argument(regs, i);
	if (xk->spec->frames) {
		/* The CFA: the stack address above the return address. */
		unsigned long cfa = kernel_stack_pointer(regs) + sizeof(long);
		int *slot = (int *)(saved + XTAP_KFUNC_REG_ARGS);

		*slot = xtap_entry_frame_claim(xk->spec->frames, cfa, saved);
		return *slot < 0;
	}
	if (xk->spec->entry_probe &&
	    !xtap_kprobe_run(xk->spec->entry_probe, regs, rp->kp.addr, NULL,
			     (unsigned long)ri))
		return 1;
	return 0;
}
NOKPROBE_SYMBOL(xtap_kretprobe_entry);

/*
 * Under multi-threaded QEMU TCG (7.2), arming or disarming a kprobe on a
 * function another vCPU runs in a tight loop can oops the guest with RIP 0
 * in the text_poke_bp int3 sequence, with or without this handler (a
 * kernel-sample kretprobe module does the same); single-threaded TCG is
 * clean. Not an xtap bug: the test VM runs single-threaded (cli/vm).
 */
static int xtap_kretprobe_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct xtap_kprobe *xk;

	if (unlikely(!rp))
		return 0;
	xk = container_of(rp, struct xtap_kprobe, rp);
	if (xk->spec->frames) {
		const u64 *saved = (const u64 *)ri->data;

		xtap_entry_frame_release(
			xk->spec->frames,
			*(const int *)(saved + XTAP_KFUNC_REG_ARGS));
		return 0;
	}
	xtap_kprobe_run(xk->spec->probe, regs, rp->kp.addr,
			xk->spec->save_args ? (const u64 *)ri->data : NULL,
			(unsigned long)ri);
	return 0;
}
NOKPROBE_SYMBOL(xtap_kretprobe_ret);

u64 xtap_kfunc_arg(struct xtap_context *c, int i)
{
	if (i < 0 || i >= XTAP_KFUNC_REG_ARGS)
		return 0;
	if (c->args)
		return c->args[i];
	return c->regs ? regs_get_kernel_argument(c->regs, i) : 0;
}
NOKPROBE_SYMBOL(xtap_kfunc_arg);

u64 xtap_kfunc_return(struct xtap_context *c)
{
	return c->regs ? regs_return_value(c->regs) : 0;
}
NOKPROBE_SYMBOL(xtap_kfunc_return);

u64 xtap_dwarf_reg(struct xtap_context *c, int regno)
{
	const struct pt_regs *r = c->regs;

	if (!r)
		return 0;
	switch (regno) {
	case 0:
		return r->ax;
	case 1:
		return r->dx;
	case 2:
		return r->cx;
	case 3:
		return r->bx;
	case 4:
		return r->si;
	case 5:
		return r->di;
	case 6:
		return r->bp;
	case 7:
		return kernel_stack_pointer((struct pt_regs *)r);
	case 8:
		return r->r8;
	case 9:
		return r->r9;
	case 10:
		return r->r10;
	case 11:
		return r->r11;
	case 12:
		return r->r12;
	case 13:
		return r->r13;
	case 14:
		return r->r14;
	case 15:
		return r->r15;
	case 16:
		return r->ip;
	default:
		return 0;
	}
}
NOKPROBE_SYMBOL(xtap_dwarf_reg);

void xtap_dwarf_set_reg(struct xtap_context *c, int regno, u64 v)
{
	struct pt_regs *r = c->regs;

	if (!r)
		return;
	switch (regno) {
	case 0:
		r->ax = v;
		break;
	case 1:
		r->dx = v;
		break;
	case 2:
		r->cx = v;
		break;
	case 3:
		r->bx = v;
		break;
	case 4:
		r->si = v;
		break;
	case 5:
		r->di = v;
		break;
	case 6:
		r->bp = v;
		break;
	case 8:
		r->r8 = v;
		break;
	case 9:
		r->r9 = v;
		break;
	case 10:
		r->r10 = v;
		break;
	case 11:
		r->r11 = v;
		break;
	case 12:
		r->r12 = v;
		break;
	case 13:
		r->r13 = v;
		break;
	case 14:
		r->r14 = v;
		break;
	case 15:
		r->r15 = v;
		break;
	default:
		break;
	}
}
NOKPROBE_SYMBOL(xtap_dwarf_set_reg);

/* `user`: a variable of a probed program (process probes), in user memory. */
static u64 xtap_dwarf_read(struct xtap_context *c, u64 addr, u32 size,
			   int is_signed, bool user)
{
	u64 v = 0;
	int err;

	if (size > sizeof(v))
		return 0;
	err = user ? xtap_uread(c, (unsigned long)addr, &v, size) :
		     xtap_kread(c, (unsigned long)addr, &v, size);
	if (err)
		return 0;
	if (is_signed && size < sizeof(v)) {
		u32 shift = 64 - size * 8;

		return (u64)((s64)(v << shift) >> shift);
	}
	return v;
}
NOKPROBE_SYMBOL(xtap_dwarf_read);

u64 xtap_dwarf_load(struct xtap_context *c, u64 addr, u32 size, int is_signed)
{
	return xtap_dwarf_read(c, addr, size, is_signed, false);
}
NOKPROBE_SYMBOL(xtap_dwarf_load);

u64 xtap_dwarf_uload(struct xtap_context *c, u64 addr, u32 size, int is_signed)
{
	return xtap_dwarf_read(c, addr, size, is_signed, true);
}
NOKPROBE_SYMBOL(xtap_dwarf_uload);

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
static int xtap_add_symbols(struct xtap_kprobe_set *set)
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
		    spec >= set->nspecs || !set->specs[spec].wildcard ||
		    !name[1]) {
			xtap_init_error("bad xtap_symbols entry '%s'", item);
			break;
		}
		xk = &set->kps[set->nkps];
		xk->spec = &set->specs[spec];
		xk->symbol = kstrdup(name + 1, GFP_KERNEL);
		xk->from_wildcard = true;
		if (!xk->symbol) {
			kfree(list);
			return -ENOMEM;
		}
		set->nkps++;
	}
	kfree(list);
	return 0;
}

static void xtap_kprobe_set_free(struct xtap_kprobe_set *set)
{
	u32 i;

	for (i = 0; set->kps && i < set->nkps; i++)
		if (set->kps[i].from_wildcard)
			kfree(set->kps[i].symbol);
	for (i = 0; i < set->nspecs; i++)
		if (set->specs[i].frames)
			xtap_entry_frames_free(set->specs[i].frames);
	xtap_fentry_free(set->fentry);
	set->fentry = NULL;
	kvfree(set->kps);
	kvfree(set->kp_armed);
	kvfree(set->rp_armed);
	if (set->takes_symbols) {
		kfree(xtap_symbols);
		xtap_symbols = NULL;
	}
	set->kps = NULL;
	set->kp_armed = NULL;
	set->rp_armed = NULL;
	set->nkps = 0;
}

static int xtap_kprobe_set_alloc(struct xtap_kprobe_set *set, const void *specs,
				 u32 nspecs)
{
	const struct xtap_kprobe_spec *kspecs = specs;
	u32 n, i;

	set->specs = kspecs;
	set->nspecs = nspecs;
	n = nspecs + (set->takes_symbols ? xtap_count_symbols() : 0);
	if (!n)
		return 0;
	/* Thousands of functions: megabytes, which need not be contiguous. */
	set->kps = kvcalloc(n, sizeof(*set->kps), GFP_KERNEL);
	set->kp_armed = kvcalloc(n, sizeof(*set->kp_armed), GFP_KERNEL);
	set->rp_armed = kvcalloc(n, sizeof(*set->rp_armed), GFP_KERNEL);
	if (!set->kps || !set->kp_armed || !set->rp_armed) {
		xtap_kprobe_set_free(set);
		return -ENOMEM;
	}
	for (i = 0; i < nspecs; i++) {
		if (kspecs[i].frames) {
			/* As many calls in flight as the kernel's default maxactive. */
			u32 nslots =
				kspecs[i].maxactive ?:
					max_t(u32, 10, 2 * num_possible_cpus());

			if (xtap_entry_frames_alloc(kspecs[i].frames, nslots)) {
				xtap_kprobe_set_free(set);
				return -ENOMEM;
			}
		}
		if (kspecs[i].wildcard)
			continue;
		set->kps[set->nkps].spec = &kspecs[i];
		set->kps[set->nkps].symbol = kspecs[i].symbol;
		set->nkps++;
	}
	return set->takes_symbols ? xtap_add_symbols(set) : 0;
}

static int xtap_kprobe_register(struct xtap_kprobe_set *set,
				struct xtap_kprobe *xk)
{
	const struct xtap_kprobe_spec *spec = xk->spec;
	int err;

	if (spec->is_return) {
		memset(&xk->rp, 0, sizeof(xk->rp));
		xk->rp.kp.symbol_name = xk->symbol;
		xk->rp.kp.offset = spec->offset;
		xk->rp.handler = xtap_kretprobe_ret;
		if (spec->save_args || spec->entry_probe)
			xk->rp.entry_handler = xtap_kretprobe_entry;
		if (spec->save_args)
			xk->rp.data_size = XTAP_KFUNC_REG_ARGS * sizeof(u64);
		xk->rp.maxactive = spec->maxactive;
		if (spec->frames) {
			xk->rp.entry_handler = xtap_kretprobe_entry;
			xk->rp.data_size =
				XTAP_KFUNC_REG_ARGS * sizeof(u64) + sizeof(int);
			xk->rp.maxactive = spec->frames->nslots;
		}
		err = register_kretprobe(&xk->rp);
		if (!err)
			set->rp_armed[set->nrp_armed++] = &xk->rp;
	} else {
		memset(&xk->kp, 0, sizeof(xk->kp));
		if (spec->address) {
			xk->kp.addr = (kprobe_opcode_t *)spec->address;
		} else {
			xk->kp.symbol_name = xk->symbol;
			xk->kp.offset = xk->from_wildcard ? 0 : spec->offset;
		}
		xk->kp.pre_handler = xtap_kprobe_pre;
		if (set->unoptimized)
			xk->kp.post_handler = xtap_kprobe_post;
		err = register_kprobe(&xk->kp);
		if (!err)
			set->kp_armed[set->nkp_armed++] = &xk->kp;
	}
	return err;
}

static bool xtap_kprobe_armed(const struct xtap_kprobe *xk)
{
	if (xk->fentry)
		return true;
	return xk->spec->is_return ? xk->rp.kp.addr != NULL :
				     xk->kp.addr != NULL;
}

/*
 * A function entry (no statement offset, no fixed address) of the running
 * kernel itself: a module's function could go away with its module while
 * ftrace still filters on its address.
 */
static bool xtap_kprobe_wants_fentry(const struct xtap_kprobe *xk)
{
	const struct xtap_kprobe_spec *spec = xk->spec;

	return !spec->is_return && !spec->offset && !spec->address &&
	       !spec->frames && xk->symbol && !strchr(xk->symbol, ':');
}

/*
 * Puts the set's function entries that ftrace can trace on one ftrace_ops,
 * armed at once; the others (and all of them, should the ops not register)
 * are left to kprobes. A kprobe registered disabled on each tells, without
 * arming anything, what kprobes would allow (their blacklist) and whether
 * the site is the function's __fentry__ call (KPROBE_FLAG_FTRACE), and
 * where; they are unregistered together, one RCU grace period. Never fails
 * the session: kprobes are the fallback.
 */
static void xtap_kprobe_set_arm_fentry(struct xtap_kprobe_set *set)
{
	struct kprobe **checks;
	u32 i, n = 0;

	if (!set->takes_fentry)
		return;
	for (i = 0; i < set->nkps; i++)
		n += xtap_kprobe_wants_fentry(&set->kps[i]);
	if (!n)
		return;
	checks = kvcalloc(n, sizeof(*checks), GFP_KERNEL);
	set->fentry = checks ? xtap_fentry_new(xtap_kfunc_fentry, n) : NULL;
	if (!set->fentry) {
		kvfree(checks);
		return;
	}
	for (n = 0, i = 0; i < set->nkps; i++) {
		struct xtap_kprobe *xk = &set->kps[i];

		if (!xtap_kprobe_wants_fentry(xk))
			continue;
		/* Thousands of functions: give the CPU up now and then. */
		cond_resched();
		memset(&xk->kp, 0, sizeof(xk->kp));
		xk->kp.symbol_name = xk->symbol;
		xk->kp.flags = KPROBE_FLAG_DISABLED;
		if (register_kprobe(&xk->kp))
			continue;
		checks[n++] = &xk->kp;
		xk->fentry = (xk->kp.flags & KPROBE_FLAG_FTRACE) &&
			     !xtap_fentry_add(set->fentry,
					      (unsigned long)xk->kp.addr, xk);
	}
	if (n)
		unregister_kprobes(checks, n);
	kvfree(checks);
	if (xtap_fentry_arm(set->fentry)) {
		pr_debug(
			XTAP_PFX
			"ftrace refused the function entries; kprobes instead\n");
		for (i = 0; i < set->nkps; i++)
			set->kps[i].fentry = false;
		xtap_fentry_free(set->fentry);
		set->fentry = NULL;
		return;
	}
	/* The functions ftrace would not trace after all: kprobes. */
	for (i = 0; i < set->fentry->nsites && !set->fentry->sites[i].ip; i++)
		((struct xtap_kprobe *)set->fentry->sites[i].owner)->fentry =
			false;
}

/*
 * Whether `xk` belongs to the same probe point as the spec `spec` whose
 * matches are being counted: the functions of a wildcard the runner
 * expanded, or the specs of one pattern pass 2 expanded (same pattern id).
 */
static bool xtap_same_pattern(const struct xtap_kprobe *xk,
			      const struct xtap_kprobe_spec *spec)
{
	if (spec->wildcard)
		return xk->spec == spec;
	return xk->spec->pattern == spec->pattern;
}

/*
 * A wildcard probe point is fine while at least one function it matched
 * could be probed; functions kprobes refuse (notrace, inlined away,
 * blacklisted) are left out with a warning, as stap does. Each pattern is
 * checked once, at its first spec.
 */
static int xtap_check_wildcards(struct xtap_kprobe_set *set)
{
	u32 i, j;

	for (i = 0; i < set->nspecs; i++) {
		const struct xtap_kprobe_spec *spec = &set->specs[i];
		u32 matched = 0, armed = 0;

		if (!spec->wildcard && !spec->pattern)
			continue;
		if (spec->pattern && i > 0 &&
		    set->specs[i - 1].pattern == spec->pattern)
			continue;
		for (j = 0; j < set->nkps; j++) {
			struct xtap_kprobe *xk = &set->kps[j];

			if (!xtap_same_pattern(xk, spec))
				continue;
			matched++;
			if (xtap_kprobe_armed(xk))
				armed++;
		}
		if (armed && armed < matched) {
			char msg[160];

			snprintf(
				msg, sizeof(msg),
				"%u of %u functions matching %s could not be probed",
				matched - armed, matched,
				spec->pattern_text ? spec->pattern_text :
						     spec->probe->point);
			xtap_msg_text(XTAP_MSG_WARNING, msg);
		}
		if (!armed && !spec->optional) {
			xtap_fatal(
				"no kernel function matching %s at %s can be probed",
				spec->pattern_text ? spec->pattern_text :
						     spec->probe->point,
				spec->probe->location);
			return -ENOENT;
		}
	}
	return 0;
}

static void xtap_kprobe_set_disarm(struct xtap_kprobe_set *set);

/*
 * kprobe.module("m").function("f") whose symbol the kernel does not know:
 * the module is not loaded (or has no such function). As in stap, that is
 * no reason to stop the other probes; the user is told once per probe.
 */
static void xtap_kprobe_not_loaded(struct xtap_kprobe *xk)
{
	const struct xtap_probe *p = xk->spec->probe;
	const char *colon = strchr(xk->symbol, ':');
	char msg[256];

	memset(&xk->kp, 0, sizeof(xk->kp));
	memset(&xk->rp, 0, sizeof(xk->rp));
	snprintf(
		msg, sizeof(msg),
		"%s at %s is not armed: no module '%.*s' with a function '%s' is loaded",
		p->point, p->location, colon ? (int)(colon - xk->symbol) : 0,
		xk->symbol, colon ? colon + 1 : xk->symbol);
	xtap_msg_text(XTAP_MSG_WARNING, msg);
}

/*
 * Register every kprobe; on the first failure report it and roll back,
 * except for an optional probe point (stap's "probe point?") and the
 * functions a wildcard matched, which are left out.
 */
static int xtap_kprobe_set_arm(struct xtap_kprobe_set *set)
{
	u32 i, nkprobes = 0;
	int err;

	xtap_kprobe_set_arm_fentry(set);
	for (i = 0; i < set->nkps; i++)
		nkprobes += !set->kps[i].fentry && !set->kps[i].spec->is_return;
	set->unoptimized = nkprobes > XTAP_KPROBE_OPTIMIZE_MAX;
	for (i = 0; i < set->nkps; i++) {
		struct xtap_kprobe *xk = &set->kps[i];

		if (xk->fentry)
			continue;
		cond_resched();
		err = xtap_kprobe_register(set, xk);
		if (err && (xk->spec->optional || xk->from_wildcard ||
			    xk->spec->pattern)) {
			memset(&xk->kp, 0, sizeof(xk->kp));
			memset(&xk->rp, 0, sizeof(xk->rp));
			pr_debug(XTAP_PFX "%s not registered on %s (%d)\n",
				 xk->spec->probe->point, xk->symbol, err);
			continue;
		}
		if (err == -ENOENT && xk->spec->in_module) {
			xtap_kprobe_not_loaded(xk);
			continue;
		}
		if (err) {
			const struct xtap_probe *p = xk->spec->probe;

			if (xk->spec->frames)
				xtap_fatal(
					"cannot register the kretprobe on %s that keeps the "
					"entry values %s reads at %s: %s (%d)",
					xk->spec->frames->function, p->point,
					p->location, xtap_errno_text(err), err);
			else if (xk->spec->address &&
				 (err == -ENOENT || err == -EINVAL))
				xtap_fatal(
					"cannot register %s at %s: %#lx is not an instruction of "
					"the running kernel's code (%d); KASLR moves the kernel on "
					"each boot, kernel.statement(ADDR) without .absolute follows it",
					p->point, p->location,
					xk->spec->address, err);
			else
				xtap_fatal("cannot register %s at %s: %s (%d)",
					   p->point, p->location,
					   xtap_errno_text(err), err);
			xtap_kprobe_set_disarm(set);
			return err;
		}
	}
	err = xtap_check_wildcards(set);
	if (err)
		xtap_kprobe_set_disarm(set);
	return err;
}

/* Runs the kernel could not give us count as skipped, as in stap. */
static void xtap_kprobes_count_missed(struct xtap_kprobe_set *set)
{
	u64 missed = 0;
	int i;

	for (i = 0; i < set->nkp_armed; i++)
		missed += set->kp_armed[i]->nmissed;
	for (i = 0; i < set->nrp_armed; i++)
		missed += set->rp_armed[i]->nmissed +
			  set->rp_armed[i]->kp.nmissed;
	if (missed)
		atomic64_add(missed, &xtap_sess.skipped);
}

/* Batched: one RCU grace period for all probes of a family. */
static void xtap_kprobe_set_disarm(struct xtap_kprobe_set *set)
{
	if (set->fentry) {
		u64 missed = xtap_fentry_disarm(set->fentry);

		if (missed)
			atomic64_add(missed, &xtap_sess.skipped);
	}
	if (set->nkp_armed)
		unregister_kprobes(set->kp_armed, set->nkp_armed);
	if (set->nrp_armed)
		unregister_kretprobes(set->rp_armed, set->nrp_armed);
	xtap_kprobes_count_missed(set);
	set->nkp_armed = 0;
	set->nrp_armed = 0;
}

static int xtap_kprobes_alloc(const void *specs, u32 nspecs)
{
	return xtap_kprobe_set_alloc(&xtap_kprobe_set, specs, nspecs);
}

static int xtap_kprobes_arm(void)
{
	return xtap_kprobe_set_arm(&xtap_kprobe_set);
}

static void xtap_kprobes_disarm(void)
{
	xtap_kprobe_set_disarm(&xtap_kprobe_set);
}

static void xtap_kprobes_free(void)
{
	xtap_kprobe_set_free(&xtap_kprobe_set);
}

const struct xtap_family_ops xtap_kprobe_ops = {
	.name = "kprobe",
	.alloc = xtap_kprobes_alloc,
	.arm = xtap_kprobes_arm,
	.disarm = xtap_kprobes_disarm,
	.free = xtap_kprobes_free,
};

static int xtap_kfuncs_alloc(const void *specs, u32 nspecs)
{
	return xtap_kprobe_set_alloc(&xtap_kfunc_set, specs, nspecs);
}

static int xtap_kfuncs_arm(void)
{
	return xtap_kprobe_set_arm(&xtap_kfunc_set);
}

static void xtap_kfuncs_disarm(void)
{
	xtap_kprobe_set_disarm(&xtap_kfunc_set);
}

static void xtap_kfuncs_free(void)
{
	xtap_kprobe_set_free(&xtap_kfunc_set);
}

/* kernel.function("f")[.call|.return]: the same mechanism, its own set. */
const struct xtap_family_ops xtap_kfunc_ops = {
	.name = "kernel.function",
	.alloc = xtap_kfuncs_alloc,
	.arm = xtap_kfuncs_arm,
	.disarm = xtap_kfuncs_disarm,
	.free = xtap_kfuncs_free,
};
