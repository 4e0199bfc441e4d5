// SPDX-License-Identifier: GPL-2.0
/*
 * process("PATH").function("f")[.call|.return], .statement(ADDR) and
 * .mark("NAME") (USDT, with its semaphore): uprobes and uretprobes at a
 * file offset of a program or shared library (the translator found it in
 * the file's symbol table). A uprobe lives on the file's inode, so it fires
 * in every process that runs the file, wherever it is mapped; the handlers
 * run in the probed task's context with its user registers. Before arming,
 * the file's build-id is checked against the one the translator read.
 */
#define XTAP_BUILD_ID_MAX 64
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "internal.h"
#include "compat/uprobes.h"

struct xtap_uprobe {
	struct uprobe_consumer uc;
	const struct xtap_uprobe_spec *spec;
	struct path path;	/* held while armed: keeps the inode */
	struct xtap_uprobe_reg reg;
	bool armed;
	bool wrong_build;	/* refused: the file is another build (reported) */
};

static struct xtap_uprobe *xtap_ups;
static u32 xtap_nups;

/*
 * With -c or -x, process probes see only the target's process hierarchy,
 * as stap's do; without, every process that runs the file.
 */
static bool xtap_uprobe_wanted(const struct xtap_uprobe_spec *spec)
{
	if (spec->pid && task_tgid_nr(current) != spec->pid)
		return false;
	return xtap_sess.target <= 0 || xtap_target_set_pid(task_tgid_nr(current));
}

static void xtap_uprobe_run(const struct xtap_uprobe *xu, struct pt_regs *regs)
{
	struct xtap_context *c;

	if (!xtap_uprobe_wanted(xu->spec))
		return;
	c = xtap_enter(xu->spec->probe, regs);
	if (!c)
		return;
	xu->spec->probe->handler(c);
	xtap_leave(c);
}

static int xtap_uprobe_handler(XTAP_UPROBE_HANDLER_ARGS)
{
	xtap_uprobe_run(container_of(self, struct xtap_uprobe, uc), regs);
	return 0;
}

static int xtap_uretprobe_handler(XTAP_URETPROBE_HANDLER_ARGS)
{
	xtap_uprobe_run(container_of(self, struct xtap_uprobe, uc), regs);
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
	for (i = 0; i < n; i++)
		xtap_ups[i].spec = &s[i];
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
static int xtap_uprobe_same_build(const struct xtap_uprobe_spec *spec, const struct path *path,
				  u8 *now, ssize_t *got)
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
	return *got == spec->build_id_len && !memcmp(now, spec->build_id, spec->build_id_len);
}

/* Reports a build-id mismatch, unless the point is optional; -ENOEXEC. */
static int xtap_uprobe_wrong_build(const struct xtap_uprobe_spec *spec, const u8 *now, ssize_t got)
{
	if (spec->optional) {
		pr_debug(XTAP_PFX "%s not registered: %s is another build\n", spec->probe->point, spec->path);
		return -ENOEXEC;
	}
	xtap_fatal("cannot register %s at %s: %s is not the file the script was translated against: "
		   "its build-id is %*phN, the translator read %*phN",
		   spec->probe->point, spec->probe->location, spec->path,
		   (int)(got > 0 ? got : 0), now, (int)spec->build_id_len, spec->build_id);
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
	err = spec->build_id_len > sizeof(now) ? -EINVAL : xtap_uprobe_same_build(spec, &xu->path, now, &got);
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
	else
		xu->uc.handler = xtap_uprobe_handler;
	err = xtap_uprobe_register(&xu->reg, d_real_inode(xu->path.dentry), spec->offset,
				   spec->ref_ctr_offset, &xu->uc);
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
			pr_debug(XTAP_PFX "%s not registered (%d)\n", spec->probe->point, err);
			continue;
		}
		xtap_fatal("cannot register %s at %s: %s at offset 0x%llx of %s: %s (%d)",
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
}

const struct xtap_family_ops xtap_uprobe_ops = {
	.name = "uprobe",
	.alloc = xtap_uprobes_alloc,
	.arm = xtap_uprobes_arm,
	.disarm = xtap_uprobes_disarm,
	.free = xtap_uprobes_free,
};
