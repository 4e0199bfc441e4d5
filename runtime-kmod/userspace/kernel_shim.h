/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's headers to compile runtime files that are
 * plain computation in user space: the translator checks regular
 * expressions with the runtime's own compiler (regex_compile.c,
 * translator/regex/), and the unit tests hold the runtime's soft-float
 * (fp64*.c) to glibc's. Allocation is malloc; nothing here is part of the
 * module, and kbuild/runtime_build.cpp leaves this folder out of it.
 */
#ifndef XTAP_KERNEL_SHIM_H
#define XTAP_KERNEL_SHIM_H

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef unsigned long long u64; /* as the kernel's, for %llu */
typedef long long s64;

#define S64_MAX ((s64)(~0ULL >> 1))
#define S64_MIN (-S64_MAX - 1)

#define U32_MAX ((u32)~0U)
#define BITS_PER_LONG (sizeof(long) * CHAR_BIT)
#define BITS_TO_LONGS(n) (((n) + 8 * sizeof(long) - 1) / (8 * sizeof(long)))

#define __printf(a, b) __attribute__((format(printf, a, b)))
#define fallthrough __attribute__((__fallthrough__))

#define min_t(type, a, b) ((type)(a) < (type)(b) ? (type)(a) : (type)(b))
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

#define GFP_KERNEL 0
#define kcalloc(n, size, gfp) calloc((n), (size))
#define kzalloc(size, gfp) calloc(1, (size))
#define kfree(p) free(p)

static inline void __set_bit(unsigned int nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned int nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(long));
}

static inline void bitmap_complement(unsigned long *dst,
				     const unsigned long *src,
				     unsigned int nbits)
{
	unsigned int i;

	for (i = 0; i < BITS_TO_LONGS(nbits); i++)
		dst[i] = ~src[i];
}

#endif
