// SPDX-License-Identifier: GPL-2.0
/* Kernel and user memory reads that never fault, and stap's fault error. */
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <xtap/memory.h>
#include "compat/maccess.h"
#include "internal.h"
#include "str_escape.h"

/* Bytes a string copy asks for at once: most strings end in the first. */
#define XTAP_STR_CHUNK 128

void xtap_read_fault(struct xtap_context *c, unsigned long addr)
{
	xtap_error(c, "read fault [man error::fault] at 0x%lx", addr);
}

void xtap_fault(struct xtap_context *c, const char *what, unsigned long addr)
{
	xtap_error(c, "%s fault at 0x%lx [man error::fault]", what, addr);
}

int xtap_kcopy(void *dst, unsigned long addr, u32 size)
{
	if (!size)
		return 0;
	if (!xtap_kernel_range_ok(addr, size) ||
	    copy_from_kernel_nofault(dst, (const void *)addr, size))
		return -EFAULT;
	return 0;
}

/*
 * Kernel threads and exiting tasks have no user space of their own; a
 * kernel thread's borrowed mm is not the one a script means.
 */
int xtap_ucopy(void *dst, unsigned long addr, u32 size)
{
	if (!size)
		return 0;
	if (!current->mm ||
	    copy_from_user_nofault(dst, (const void __user *)addr, size))
		return -EFAULT;
	return 0;
}

int xtap_ucopy_long(s64 *v, unsigned long addr, bool is_signed)
{
	if (xtap_user_long_size() == 4) {
		u32 x;

		if (xtap_ucopy(&x, addr, sizeof(x)))
			return -EFAULT;
		*v = is_signed ? (s64)(s32)x : (s64)x;
		return 0;
	}
	return xtap_ucopy(v, addr, sizeof(*v));
}

/*
 * The kernel's strncpy_*_nofault() are not exported to modules, so copy
 * in pieces that never cross a page: a string that ends just before an
 * unmapped page is read whole, as those functions would.
 */
static long xtap_copy_str(char *dst, unsigned long addr, u32 size, bool user)
{
	u32 len = 0;

	if (!size)
		return 0;
	while (len < size - 1) {
		unsigned long p = addr + len;
		u32 n = min3(size - 1 - len, XTAP_STR_CHUNK,
			     (u32)(PAGE_SIZE - offset_in_page(p)));
		u32 k;
		int rc = user ? xtap_ucopy(dst + len, p, n) :
				xtap_kcopy(dst + len, p, n);

		if (rc) {
			dst[0] = '\0';
			return -EFAULT;
		}
		k = strnlen(dst + len, n);
		len += k;
		if (k < n)
			break;
	}
	dst[len] = '\0';
	return len;
}

long xtap_kcopy_str(char *dst, unsigned long addr, u32 size)
{
	return xtap_copy_str(dst, addr, size, false);
}

long xtap_ucopy_str(char *dst, unsigned long addr, u32 size)
{
	return xtap_copy_str(dst, addr, size, true);
}

int xtap_kread(struct xtap_context *c, unsigned long addr, void *dst, u32 size)
{
	if (likely(!xtap_kcopy(dst, addr, size)))
		return 0;
	xtap_read_fault(c, addr);
	return -EFAULT;
}

/*
 * Guru-mode target-variable assignment ($p->field = v): a nofault write,
 * so that a bad address is a script error, never an oops.
 */
int xtap_kwrite(struct xtap_context *c, unsigned long addr, const void *src,
		u32 size)
{
	/* copy_to_kernel_nofault() is not exported: the arch's nofault store. */
	if (!xtap_kernel_range_ok(addr, size))
		goto fault;
	pagefault_disable();
	switch (size) {
	case 1:
		__put_kernel_nofault((void *)addr, src, u8, fault_on);
		break;
	case 2:
		__put_kernel_nofault((void *)addr, src, u16, fault_on);
		break;
	case 4:
		__put_kernel_nofault((void *)addr, src, u32, fault_on);
		break;
	case 8:
		__put_kernel_nofault((void *)addr, src, u64, fault_on);
		break;
	default:
		goto fault_on;
	}
	pagefault_enable();
	return 0;
fault_on:
	pagefault_enable();
fault:
	xtap_fault(c, "kernel write", addr);
	return -EFAULT;
}

int xtap_uread(struct xtap_context *c, unsigned long addr, void *dst, u32 size)
{
	if (likely(!xtap_ucopy(dst, addr, size)))
		return 0;
	xtap_read_fault(c, addr);
	return -EFAULT;
}

/* A string read's buffer size: max, within 1 (just the NUL) and MAXSTRINGLEN. */
static u32 xtap_str_size(u32 max)
{
	return clamp_t(u32, max, 1, xtap_sess.limits.maxstringlen);
}

char *xtap_kread_str(struct xtap_context *c, char *dst, unsigned long addr,
		     u32 max)
{
	if (xtap_kcopy_str(dst, addr, xtap_str_size(max)) < 0)
		xtap_fault(c, "kernel string copy", addr);
	return dst;
}

char *xtap_uread_str(struct xtap_context *c, char *dst, unsigned long addr,
		     u32 max)
{
	long rc = xtap_ucopy_str(dst, addr, xtap_str_size(max));

	/* stap's user_string() names the errno here, its kernel_string() not */
	if (rc < 0)
		xtap_error(
			c,
			"user string copy fault %ld at 0x%lx [man error::fault]",
			rc, addr);
	return dst;
}

/*
 * The quoted readers never raise: unreadable memory is shown as its
 * address. The raw string goes through the CPU's scratch string.
 */
static char *xtap_read_str_quoted(struct xtap_context *c, char *dst,
				  unsigned long addr, u32 max, int outlen,
				  bool user)
{
	char *raw = container_of(c, struct xtap_cpu_ctx, c)->str_tmp;
	int len = xtap_sess.limits.maxstringlen - 1;

	if (xtap_copy_str(raw, addr, xtap_str_size(max), user) < 0) {
		snprintf(dst, len + 1, "0x%lx", addr);
		return dst;
	}
	xtap_escape(dst, raw, len, clamp(outlen, 0, len), true);
	return dst;
}

char *xtap_kread_str_quoted(struct xtap_context *c, char *dst,
			    unsigned long addr, u32 max)
{
	return xtap_read_str_quoted(c, dst, addr, max, INT_MAX, false);
}

char *xtap_uread_str_quoted(struct xtap_context *c, char *dst,
			    unsigned long addr, u32 max)
{
	return xtap_read_str_quoted(c, dst, addr, max, INT_MAX, true);
}

char *xtap_uread_str_quoted_out(struct xtap_context *c, char *dst,
				unsigned long addr, u32 max, s64 outlen)
{
	return xtap_read_str_quoted(
		c, dst, addr, max, (int)clamp_t(s64, outlen, 0, INT_MAX), true);
}
