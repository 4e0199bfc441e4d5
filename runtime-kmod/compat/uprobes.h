/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uprobes compat: uprobe_register() returns the struct uprobe since 6.12
 * (undone by uprobe_unregister_nosync() and one uprobe_unregister_sync()
 * for a batch); before, it returned an int and uprobe_unregister() took the
 * inode and offset and waited itself. Newer kernels also pass the consumer
 * handlers a trailing __u64 *data.
 */
#ifndef XTAP_COMPAT_UPROBES_H
#define XTAP_COMPAT_UPROBES_H

#include <linux/err.h>
#include <linux/uprobes.h>
#include "xtap_features.h"

/* What undoing one registration needs. */
struct xtap_uprobe_reg {
	struct inode *inode;
	loff_t offset;
	struct uprobe_consumer *uc;
#ifdef XTAP_HAVE_UPROBE_REGISTER_RETURNS_UPROBE
	struct uprobe *uprobe;
#endif
};

/*
 * ref_ctr_offset: non-zero, the file offset of a USDT semaphore the kernel
 * increments while the probe is armed (and decrements after).
 */
static inline int xtap_uprobe_register(struct xtap_uprobe_reg *r,
				       struct inode *inode, loff_t offset,
				       loff_t ref_ctr_offset,
				       struct uprobe_consumer *uc)
{
	r->inode = inode;
	r->offset = offset;
	r->uc = uc;
#ifdef XTAP_HAVE_UPROBE_REGISTER_RETURNS_UPROBE
	r->uprobe = uprobe_register(inode, offset, ref_ctr_offset, uc);
	return IS_ERR(r->uprobe) ? PTR_ERR(r->uprobe) : 0;
#else
	if (ref_ctr_offset)
		return uprobe_register_refctr(inode, offset, ref_ctr_offset,
					      uc);
	return uprobe_register(inode, offset, uc);
#endif
}

/* Removes the probe; handlers may still be running until _sync(). */
static inline void xtap_uprobe_unregister_nosync(struct xtap_uprobe_reg *r)
{
#ifdef XTAP_HAVE_UPROBE_REGISTER_RETURNS_UPROBE
	uprobe_unregister_nosync(r->uprobe, r->uc);
#else
	uprobe_unregister(r->inode, r->offset, r->uc);
#endif
}

/* Waits until no handler of an unregistered consumer runs. */
static inline void xtap_uprobe_unregister_sync(void)
{
#ifdef XTAP_HAVE_UPROBE_REGISTER_RETURNS_UPROBE
	uprobe_unregister_sync();
#endif
}

#ifdef XTAP_HAVE_UPROBE_HANDLER_DATA
#define XTAP_UPROBE_HANDLER_ARGS \
	struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data
#define XTAP_URETPROBE_HANDLER_ARGS                       \
	struct uprobe_consumer *self, unsigned long func, \
		struct pt_regs *regs, __u64 *data
#else
#define XTAP_UPROBE_HANDLER_ARGS \
	struct uprobe_consumer *self, struct pt_regs *regs
#define XTAP_URETPROBE_HANDLER_ARGS \
	struct uprobe_consumer *self, unsigned long func, struct pt_regs *regs
#endif

#endif /* XTAP_COMPAT_UPROBES_H */
