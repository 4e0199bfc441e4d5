/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IEEE-754 binary64 arithmetic in integers, for the fp_* tapset functions:
 * a double travels in a script's long as its bit pattern, and probe
 * handlers may not touch the FPU. Every result is the correctly rounded
 * one (round to nearest, ties to even), subnormals included, as the
 * hardware's; a NaN operand gives that NaN quieted (the first one), an
 * invalid operation stap's default NaN. The unit test
 * tests/unit/fp64_test.cpp holds each function to glibc.
 */
#ifndef XTAP_FP64_H
#define XTAP_FP64_H

#include <linux/types.h>

#define XTAP_FP64_DEFAULT_NAN 0x7ff8000000000000ULL

u64 xtap_fp64_add(u64 a, u64 b);
u64 xtap_fp64_sub(u64 a, u64 b);
u64 xtap_fp64_mul(u64 a, u64 b);
u64 xtap_fp64_div(u64 a, u64 b);
/* IEEE remainder(): a - n * b, n the integer nearest a / b (ties to even) */
u64 xtap_fp64_rem(u64 a, u64 b);
u64 xtap_fp64_sqrt(u64 a);
int xtap_fp64_eq(u64 a, u64 b);
int xtap_fp64_le(u64 a, u64 b);
int xtap_fp64_lt(u64 a, u64 b);
u64 xtap_fp64_from_s64(s64 v);
u64 xtap_fp64_from_fp32(u32 f);

/*
 * To an integer in one of SoftFloat's rounding modes (stap's fp_to_long):
 * 0 nearest even, 1 toward zero, 2 down, 3 up, 4 nearest away from zero,
 * 6 to odd; any other mode truncates. NaN is 0, out of range saturates.
 */
s64 xtap_fp64_to_s64(u64 a, int mode);

/* fp64_decimal.c: "%.*f" of the exact value, and back, correctly rounded */
char *xtap_fp64_to_string(char *dst, size_t size, u64 a, s64 precision);
bool xtap_fp64_from_string(const char *s, u64 *out);

#endif /* XTAP_FP64_H */
