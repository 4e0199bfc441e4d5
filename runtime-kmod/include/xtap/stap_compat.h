/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stap's guru embedded-C interface, for C written for SystemTap: memory
 * access with fault checks (kread, kwrite, kderef, uread, uderef), the
 * fault label convention (CATCH_DEREF_FAULT) and STAP_PRINTF.
 *
 * The per-function names (STAP_ARG_x, STAP_RETVALUE, STAP_RETURN,
 * STAP_ERROR, THIS->x, THIS->__retvalue, CONTEXT) are defined by the
 * translator around each embedded function body, which has the two labels
 * the macros here jump to: deref_fault (a read or write faulted; the error
 * is already raised and ends the probe run) and out.
 *
 * These macros need a `struct xtap_context *c` in scope: in an embedded
 * function body it is the caller's context (CONTEXT).
 * docs/language.md, "Embedded C written for stap", is the reference.
 */
#ifndef XTAP_STAP_COMPAT_H
#define XTAP_STAP_COMPAT_H

#include <linux/string.h>
#include <linux/version.h>
#include <xtap/memory.h>

/*
 * The value of type *ptr at kernel (kread) or user (uread) address ptr.
 * On a fault the error is raised ("kernel read fault at 0x...") and the
 * function jumps to deref_fault, as stap's do.
 */
#define __xtap_compat_read(ptr, readfn)                             \
	({                                                          \
		union {                                             \
			typeof(*(ptr)) v;                           \
			u8 bytes[sizeof(*(ptr))];                   \
		} __xtap_r;                                         \
		if (readfn(c, (unsigned long)(ptr), __xtap_r.bytes, \
			   sizeof(__xtap_r.bytes)))                 \
			goto deref_fault;                           \
		__xtap_r.v;                                         \
	})
#define kread(ptr) __xtap_compat_read((ptr), xtap_kread)
#define uread(ptr) __xtap_compat_read((ptr), xtap_uread)

/* Writes value, converted to the type of *ptr, at kernel address ptr. */
#define kwrite(ptr, value)                                               \
	({                                                               \
		union {                                                  \
			typeof(*(ptr)) v;                                \
			u8 bytes[sizeof(*(ptr))];                        \
		} __xtap_w = { .v = (typeof(*(ptr)))(value) };           \
		if (xtap_kwrite(c, (unsigned long)(ptr), __xtap_w.bytes, \
				sizeof(__xtap_w.bytes)))                 \
			goto deref_fault;                                \
		(void)0;                                                 \
	})

/*
 * size (1, 2, 4 or 8) bytes at addr, zero-extended to a u64, as stap's
 * kderef/uderef return them.
 */
#define __xtap_compat_deref(size, addr, readfn)                           \
	({                                                                \
		u64 __xtap_d = 0;                                         \
		BUILD_BUG_ON((size) != 1 && (size) != 2 && (size) != 4 && \
			     (size) != 8);                                \
		if (readfn(c, (unsigned long)(addr), &__xtap_d, (size)))  \
			goto deref_fault;                                 \
		__xtap_d;                                                 \
	})
#define kderef(size, addr) __xtap_compat_deref((size), (addr), xtap_kread)
#define uderef(size, addr) __xtap_compat_deref((size), (addr), xtap_uread)

/*
 * stap's translator puts the deref_fault label in every function; scripts
 * written for old stap releases call CATCH_DEREF_FAULT() at the end of a
 * body to place it. xtap's translator always places it, so this is empty.
 */
#define CATCH_DEREF_FAULT() \
	do {                \
	} while (0)

/* Formatted output into the script's output stream, as print does. */
#define STAP_PRINTF(fmt, ...) xtap_printf(c, (fmt), ##__VA_ARGS__)
#define _stp_printf(fmt, ...) xtap_printf(c, (fmt), ##__VA_ARGS__)

/*
 * strlcpy, which C written for stap uses to fill THIS->__retvalue, left
 * the kernel in 6.8: the same copy (truncating, NUL-terminated) by strscpy.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0) && !defined(strlcpy)
static inline size_t xtap_compat_strlcpy(char *dst, const char *src,
					 size_t size)
{
	size_t len = strlen(src);

	if (size)
		strscpy(dst, src, size);
	return len;
}
#define strlcpy(dst, src, size) xtap_compat_strlcpy((dst), (src), (size))
#endif

#endif /* XTAP_STAP_COMPAT_H */
