// SPDX-License-Identifier: GPL-2.0
/*
 * process("PATH").function("f")[.call|.return], .statement(ADDR) and
 * .mark("NAME") (USDT, with its semaphore): uprobes and uretprobes at a
 * file offset of a program or shared library (the translator found it in
 * the file's symbol table). A uprobe lives on the file's inode, so it fires
 * in every process that runs the file, wherever it is mapped; the handlers
 * run in the probed task's context with its user registers. Before arming,
 * the file's build-id is checked against the one the translator read.
 *
 * A uretprobe whose probe reads parameters ($param is their value at
 * entry, as in stap) or uses @entry also hooks the function's entry: the
 * call's argument registers go into a slot of xtap_ucalls, found again at
 * the return by the task, the probe and the user stack pointer (at entry
 * it points at the return address, which the return pops), and @entry's
 * saving half runs there, keyed by the slot.
 */
#define XTAP_BUILD_ID_MAX 64
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include "internal.h"
#include "context_inline.h"
#include "compat/uprobes.h"

/* Calls in flight at a time, over all uretprobes that keep arguments. */
#define XTAP_UCALL_SLOTS 1024

struct xtap_uprobe {
	struct uprobe_consumer uc;
	const struct xtap_uprobe_spec *spec;
	struct path path; /* held while armed: keeps the inode */
	struct xtap_uprobe_reg reg;
	bool armed;
	bool wrong_build; /* refused: the file is another build (reported) */
};

static struct xtap_uprobe *xtap_ups;
static u32 xtap_nups;

/* One call in flight of a function whose uretprobe keeps its arguments. */
struct xtap_ucall {
	unsigned long sp; /* 0: free; the user stack pointer at entry */
	struct task_struct *task; /* NULL until the claimer has filled it */
	const struct xtap_uprobe *xu;
	u64 args[XTAP_KFUNC_REG_ARGS];
};

static struct xtap_ucall *xtap_ucalls;

static u32 xtap_ucall_hash(unsigned long sp)
{
	return hash_long(sp, 32) % XTAP_UCALL_SLOTS;
}

/*
 * The slot this task's call of `xu` entered with `sp`, or NULL. No lock: a
 * slot is claimed by cmpxchg on its sp and filled by its task only; its
 * task field is set last and cleared first, so a lookup never takes a slot
 * half-filled by another task.
 */
static struct xtap_ucall *xtap_ucall_find(const struct xtap_uprobe *xu,
					  unsigned long sp)
{
	u32 start = xtap_ucall_hash(sp), i;

	for (i = 0; i < XTAP_UCALL_SLOTS; i++) {
		struct xtap_ucall *s =
			&xtap_ucalls[(start + i) % XTAP_UCALL_SLOTS];

		if (READ_ONCE(s->sp) == sp &&
		    smp_load_acquire(&s->task) == current && s->xu == xu)
			return s;
	}
	return NULL;
}

/*
 * A slot for a call entering now. One with the same task, probe and sp is
 * a call that never returned through its uretprobe (longjmp, exit): no
 * live call can share its stack address, so it is taken over.
 */
static struct xtap_ucall *xtap_ucall_claim(const struct xtap_uprobe *xu,
					   struct pt_regs *regs)
{
	unsigned long sp = user_stack_pointer(regs);
	struct xtap_ucall *s = xtap_ucall_find(xu, sp);
	u32 start = xtap_ucall_hash(sp), i;

	for (i = 0; !s && i < XTAP_UCALL_SLOTS; i++) {
		struct xtap_ucall *t =
			&xtap_ucalls[(start + i) % XTAP_UCALL_SLOTS];

		if (!READ_ONCE(t->sp) && cmpxchg(&t->sp, 0UL, sp) == 0UL)
			s = t;
	}
	if (!s)
		return NULL;
	s->xu = xu;
	for (i = 0; i < XTAP_KFUNC_REG_ARGS; i++)
		s->args[i] = regs_get_kernel_argument(regs, i);
	smp_store_release(&s->task, current);
	return s;
}

static void xtap_ucall_release(struct xtap_ucall *s)
{
	WRITE_ONCE(s->task, NULL);
	smp_store_release(&s->sp, 0UL);
}

/*
 * With -c or -x, process probes see only the target's process hierarchy,
 * as stap's do; without, every process that runs the file.
 */
static bool xtap_uprobe_wanted(const struct xtap_uprobe_spec *spec)
{
	if (spec->pid && task_tgid_nr(current) != spec->pid)
		return false;
	return xtap_sess.target <= 0 ||
	       xtap_target_set_pid(task_tgid_nr(current));
}

/* `call`: the call's slot where arguments are kept, else NULL. */
static void xtap_uprobe_run(const struct xtap_probe *p, struct pt_regs *regs,
			    struct xtap_ucall *call, bool at_return)
{
	struct xtap_context *c = xtap_enter_inline(p, regs);

	if (!c)
		return;
	container_of(c, struct xtap_cpu_ctx, c)->entry_key =
		(unsigned long)call;
	c->args = call && at_return ? call->args : NULL;
	p->handler(c);
	c->args = NULL;
	xtap_leave_inline(c);
}

static bool xtap_uprobe_keeps_calls(const struct xtap_uprobe_spec *spec)
{
	return spec->is_return && (spec->save_args || spec->entry_probe);
}

/* A hit of the uprobe's instruction, or of the uretprobe's return. */
static void xtap_uprobe_hit(struct xtap_uprobe *xu, struct pt_regs *regs,
			    bool at_return)
{
	struct xtap_ucall *call;

	if (!xtap_uprobe_wanted(xu->spec))
		return;
	if (!xtap_uprobe_keeps_calls(xu->spec)) {
		xtap_uprobe_run(xu->spec->probe, regs, NULL, at_return);
		return;
	}
	if (!at_return) {
		/* The entry of a uretprobe's function: keep the call's arguments. */
		call = xtap_ucall_claim(xu, regs);
		if (call && xu->spec->entry_probe)
			xtap_uprobe_run(xu->spec->entry_probe, regs, call,
					false);
		return;
	}
	/*
	 * A return whose entry was not kept (the call began before the probes
	 * were armed, or every slot was taken) is not probed, as a kretprobe's.
	 */
	call = xtap_ucall_find(xu, user_stack_pointer(regs) - sizeof(long));
	if (!call)
		return;
	xtap_uprobe_run(xu->spec->probe, regs, call, true);
	xtap_ucall_release(call);
}

static int xtap_uprobe_handler(XTAP_UPROBE_HANDLER_ARGS)
{
	xtap_uprobe_hit(container_of(self, struct xtap_uprobe, uc), regs,
			false);
	return 0;
}

static int xtap_uretprobe_handler(XTAP_URETPROBE_HANDLER_ARGS)
{
	xtap_uprobe_hit(container_of(self, struct xtap_uprobe, uc), regs, true);
	return 0;
}

static int xtap_uprobes_alloc(const void *specs, u32 n)
{
	const struct xtap_uprobe_spec *s = specs;
	u32 i;

	if (!n)
		return 0;
	xtap_ups = kcalloc(n, sizeof(*xtap_ups), GFP_KERNEL);
	if (!xtap_ups)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		xtap_ups[i].spec = &s[i];
		if (xtap_uprobe_keeps_calls(&s[i]) && !xtap_ucalls) {
			xtap_ucalls = kvcalloc(XTAP_UCALL_SLOTS,
					       sizeof(*xtap_ucalls),
					       GFP_KERNEL);
			if (!xtap_ucalls) {
				kfree(xtap_ups);
				xtap_ups = NULL;
				return -ENOMEM;
			}
		}
	}
	xtap_nups = n;
	return 0;
}

static void xtap_uprobes_disarm(void)
{
	u32 i;
	bool any = false;

	for (i = 0; i < xtap_nups; i++) {
		if (!xtap_ups[i].armed)
			continue;
		xtap_uprobe_unregister_nosync(&xtap_ups[i].reg);
		any = true;
	}
	if (any)
		xtap_uprobe_unregister_sync();
	for (i = 0; i < xtap_nups; i++) {
		if (!xtap_ups[i].armed)
			continue;
		path_put(&xtap_ups[i].path);
		xtap_ups[i].armed = false;
	}
}

/*
 * The file at the spec's path must be the one the translator read: the
 * offsets came from it. Its build-id bytes are read where the translator
 * found them; 1 if they match (or the translator saw none), 0 if not, with
 * what the file has there in `now`, or -errno.
 */
static int xtap_uprobe_same_build(const struct xtap_uprobe_spec *spec,
				  const struct path *path, u8 *now,
				  ssize_t *got)
{
	struct file *f;
	loff_t pos = spec->build_id_offset;

	*got = 0;
	if (!spec->build_id_len)
		return 1;
	f = dentry_open(path, O_RDONLY, current_cred());
	if (IS_ERR(f))
		return PTR_ERR(f);
	*got = kernel_read(f, now, spec->build_id_len, &pos);
	fput(f);
	if (*got < 0)
		return *got;
	return *got == spec->build_id_len &&
	       !memcmp(now, spec->build_id, spec->build_id_len);
}

/* Reports a build-id mismatch, unless the point is optional; -ENOEXEC. */
static int xtap_uprobe_wrong_build(const struct xtap_uprobe_spec *spec,
				   const u8 *now, ssize_t got)
{
	if (spec->optional) {
		pr_debug(XTAP_PFX "%s not registered: %s is another build\n",
			 spec->probe->point, spec->path);
		return -ENOEXEC;
	}
	xtap_fatal(
		"cannot register %s at %s: %s is not the file the script was translated against: "
		"its build-id is %*phN, the translator read %*phN",
		spec->probe->point, spec->probe->location, spec->path,
		(int)(got > 0 ? got : 0), now, (int)spec->build_id_len,
		spec->build_id);
	return -ENOEXEC;
}

static int xtap_uprobe_arm_one(struct xtap_uprobe *xu)
{
	u8 now[XTAP_BUILD_ID_MAX];
	ssize_t got;
	const struct xtap_uprobe_spec *spec = xu->spec;
	int err;

	err = kern_path(spec->path, LOOKUP_FOLLOW, &xu->path);
	if (err)
		return err;
	if (!d_is_reg(xu->path.dentry)) {
		path_put(&xu->path);
		return -EINVAL;
	}
	err = spec->build_id_len > sizeof(now) ?
		      -EINVAL :
		      xtap_uprobe_same_build(spec, &xu->path, now, &got);
	if (err <= 0) {
		path_put(&xu->path);
		if (err)
			return err;
		xu->wrong_build = true;
		return xtap_uprobe_wrong_build(spec, now, got);
	}
	memset(&xu->uc, 0, sizeof(xu->uc));
	if (spec->is_return)
		xu->uc.ret_handler = xtap_uretprobe_handler;
	if (!spec->is_return || xtap_uprobe_keeps_calls(spec))
		xu->uc.handler = xtap_uprobe_handler;
	err = xtap_uprobe_register(&xu->reg, d_real_inode(xu->path.dentry),
				   spec->offset, spec->ref_ctr_offset, &xu->uc);
	if (err) {
		path_put(&xu->path);
		return err;
	}
	xu->armed = true;
	return 0;
}

static int xtap_uprobes_arm(void)
{
	u32 i;
	int err;

	for (i = 0; i < xtap_nups; i++) {
		const struct xtap_uprobe_spec *spec = xtap_ups[i].spec;

		err = xtap_uprobe_arm_one(&xtap_ups[i]);
		if (!err)
			continue;
		if (xtap_ups[i].wrong_build && !spec->optional) {
			/* xtap_uprobe_wrong_build() reported it */
			xtap_uprobes_disarm();
			return err;
		}
		if (spec->optional) {
			pr_debug(XTAP_PFX "%s not registered (%d)\n",
				 spec->probe->point, err);
			continue;
		}
		xtap_fatal(
			"cannot register %s at %s: %s at offset 0x%llx of %s: %s (%d)",
			spec->probe->point, spec->probe->location,
			spec->is_return ? "uretprobe" : "uprobe",
			(unsigned long long)spec->offset, spec->path,
			xtap_errno_text(err), err);
		xtap_uprobes_disarm();
		return err;
	}
	return 0;
}

static void xtap_uprobes_free(void)
{
	kfree(xtap_ups);
	xtap_ups = NULL;
	xtap_nups = 0;
	kvfree(xtap_ucalls);
	xtap_ucalls = NULL;
}

const struct xtap_family_ops xtap_uprobe_ops = {
	.name = "uprobe",
	.alloc = xtap_uprobes_alloc,
	.arm = xtap_uprobes_arm,
	.disarm = xtap_uprobes_disarm,
	.free = xtap_uprobes_free,
};
