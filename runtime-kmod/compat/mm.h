/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a task's memory map from a probe, which may not sleep. */
#ifndef XTAP_COMPAT_MM_H
#define XTAP_COMPAT_MM_H

#include <linux/mm.h>
#include <linux/mmap_lock.h>

/*
 * Both supported kernels (6.1, 6.12) have mmap_read_trylock() and
 * vma_lookup(); the per-VMA locks of 6.4+ (lock_vma_under_rcu) are not
 * exported to modules, so the trylock is the one lockless-enough way.
 */
static inline bool xtap_mm_read_trylock(struct mm_struct *mm)
{
	return mmap_read_trylock(mm);
}

static inline void xtap_mm_read_unlock(struct mm_struct *mm)
{
	mmap_read_unlock(mm);
}

static inline struct vm_area_struct *xtap_vma_lookup(struct mm_struct *mm,
						     unsigned long addr)
{
	return vma_lookup(mm, addr);
}

#endif /* XTAP_COMPAT_MM_H */
