/* SPDX-License-Identifier: GPL-2.0 */
/* Memory access: what the nofault copies leave to their callers, per arch. */
#ifndef XTAP_COMPAT_MACCESS_H
#define XTAP_COMPAT_MACCESS_H

#include <linux/mm.h>
#include <linux/thread_info.h>
#include <linux/types.h>
#ifdef CONFIG_X86_64
#include <asm/vsyscall.h>
#endif

/*
 * copy_from_kernel_nofault() checks where a read starts, not where it ends:
 * refuse a range that wraps around the address space, and on x86-64 one
 * that touches the vsyscall page, which kernels before the fix of 6.8 (and
 * its stable backports) could not read without an oops.
 */
static inline bool xtap_kernel_range_ok(unsigned long addr, u32 size)
{
	unsigned long last = addr + size - 1;

	if (last < addr)
		return false;
#ifdef CONFIG_X86_64
	if (addr < VSYSCALL_ADDR + PAGE_SIZE && last >= VSYSCALL_ADDR)
		return false;
#endif
	return true;
}

/* Bytes of a long in the current task's user space: 4 for 32-bit tasks. */
static inline u32 xtap_user_long_size(void)
{
#if defined(CONFIG_X86_64) && defined(CONFIG_COMPAT)
	if (test_thread_flag(TIF_ADDR32))
		return 4;
#endif
	return sizeof(long);
}

#endif /* XTAP_COMPAT_MACCESS_H */
