// SPDX-License-Identifier: GPL-2.0
/*
 * IEEE-754 binary64 arithmetic in integers (include/xtap/fp64.h).
 *
 * A finite value is unpacked into an integer significand and a power of
 * two, the operation is done exactly (or with the bits below the result's
 * last one "jammed" into a sticky bit), and one function rounds and packs.
 * Division and square root work a bit at a time: the kernel has no
 * 128-by-64-bit division helper.
 */
#include <linux/limits.h>
#include <linux/types.h>
#include <xtap/fp64.h>

#define FP64_SIGN (1ULL << 63)
#define FP64_EXP_MASK 0x7ffULL
#define FP64_FRAC_MASK ((1ULL << 52) - 1)
#define FP64_QUIET (1ULL << 51)
#define FP64_INF 0x7ff0000000000000ULL

typedef unsigned __int128 fp64_u128;

static inline int fp64_exp_bits(u64 a)
{
	return (int)((a >> 52) & FP64_EXP_MASK);
}

static inline bool fp64_is_nan(u64 a)
{
	return fp64_exp_bits(a) == 0x7ff && (a & FP64_FRAC_MASK);
}

static inline bool fp64_is_inf(u64 a)
{
	return (a & ~FP64_SIGN) == FP64_INF;
}

static inline bool fp64_is_zero(u64 a)
{
	return !(a & ~FP64_SIGN);
}

/* The first NaN operand, quieted, as x86's SSE unit answers. */
static u64 fp64_propagate_nan(u64 a, u64 b)
{
	return (fp64_is_nan(a) ? a : b) | FP64_QUIET;
}

/* A finite nonzero value as sig * 2^exp, sig's top bit at bit 52. */
static u64 fp64_unpack(u64 a, int *exp)
{
	int e = fp64_exp_bits(a);
	u64 sig = a & FP64_FRAC_MASK;
	int shift;

	if (e) {
		*exp = e - 1075;
		return sig | (1ULL << 52);
	}
	shift = __builtin_clzll(sig) - 11;
	*exp = -1074 - shift;
	return sig << shift;
}

/* sig >> n, with any bit shifted out ORed into the result's bit 0. */
static u64 fp64_shift_right_jam(u64 sig, int n)
{
	if (n <= 0)
		return sig;
	if (n >= 64)
		return sig != 0;
	return (sig >> n) | ((sig & ((1ULL << n) - 1)) != 0);
}

static u64 fp64_shift_right_jam128(fp64_u128 v, int n)
{
	fp64_u128 lost;

	if (n <= 0)
		return (u64)v;
	lost = v & (((fp64_u128)1 << n) - 1);
	return (u64)(v >> n) | (lost != 0);
}

/*
 * The double nearest to sig * 2^exp (ties to even), with overflow to
 * infinity and gradual underflow. When the caller jammed lost bits into
 * sig's bit 0, sig must have its top bit at 62 or above, so that the jam
 * stays below the rounding point.
 */
static u64 fp64_round_pack(bool neg, int exp, u64 sig)
{
	u64 sign = neg ? FP64_SIGN : 0, q, rem, half;
	int shift, biased, rs;

	if (!sig)
		return sign;
	shift = __builtin_clzll(sig);
	sig <<= shift;
	exp -= shift;
	/* sig in [2^63, 2^64): the result's leading bit is 2^(exp + 63) */
	biased = exp + 63 + 1023;
	if (biased >= 2047)
		return sign | FP64_INF;
	rs = biased > 0 ? 11 : -(exp + 1074); /* subnormal: units of 2^-1074 */
	if (rs > 64)
		return sign;
	if (rs == 64) {
		q = 0;
		rem = sig;
		half = 1ULL << 63;
	} else {
		q = sig >> rs;
		rem = sig & ((1ULL << rs) - 1);
		half = 1ULL << (rs - 1);
	}
	if (rem > half || (rem == half && (q & 1)))
		q++;
	/* a rounding carry into bit 53 (or 52 from a subnormal) bumps the exponent */
	if (biased > 0)
		return sign + ((u64)(biased - 1) << 52) + q;
	return sign | q;
}

static u64 fp64_add_magnitudes(u64 a, u64 b, bool neg_b)
{
	bool neg_a = a >> 63, neg;
	int ea, eb, d;
	u64 ma, mb, sig;

	ma = fp64_unpack(a, &ea) << 10;
	mb = fp64_unpack(b, &eb) << 10;
	if (ea < eb || (ea == eb && ma < mb)) { /* a the larger */
		u64 t = ma;
		bool tn = neg_a;

		ma = mb;
		mb = t;
		d = ea;
		ea = eb;
		eb = d;
		neg_a = neg_b;
		neg_b = tn;
	}
	d = ea - eb;
	mb = fp64_shift_right_jam(mb, d);
	neg = neg_a;
	if (neg_a == neg_b) {
		sig = ma + mb; /* both below 2^63: no carry out */
	} else {
		sig = ma - mb;
		if (!sig)
			return 0; /* x - x is +0 when rounding to nearest */
	}
	return fp64_round_pack(neg, ea - 10, sig);
}

static u64 fp64_addsub(u64 a, u64 b, bool negate_b)
{
	u64 nb = negate_b ? b ^ FP64_SIGN : b;

	if (fp64_is_nan(a) || fp64_is_nan(b))
		return fp64_propagate_nan(a, b);
	if (fp64_is_inf(a)) {
		if (fp64_is_inf(nb) && (a ^ nb) & FP64_SIGN)
			return XTAP_FP64_DEFAULT_NAN; /* inf - inf */
		return a;
	}
	if (fp64_is_inf(nb))
		return nb;
	if (fp64_is_zero(a)) {
		if (fp64_is_zero(nb))
			return a & nb; /* -0 only if both are -0 */
		return nb;
	}
	if (fp64_is_zero(nb))
		return a;
	return fp64_add_magnitudes(a, nb & ~FP64_SIGN, nb >> 63);
}

u64 xtap_fp64_add(u64 a, u64 b)
{
	return fp64_addsub(a, b, false);
}

u64 xtap_fp64_sub(u64 a, u64 b)
{
	return fp64_addsub(a, b, true);
}

u64 xtap_fp64_mul(u64 a, u64 b)
{
	bool neg = (a ^ b) >> 63;
	u64 sign = neg ? FP64_SIGN : 0;
	fp64_u128 p;
	int ea, eb, top;

	if (fp64_is_nan(a) || fp64_is_nan(b))
		return fp64_propagate_nan(a, b);
	if (fp64_is_inf(a) || fp64_is_inf(b)) {
		if (fp64_is_zero(a) || fp64_is_zero(b))
			return XTAP_FP64_DEFAULT_NAN; /* inf * 0 */
		return sign | FP64_INF;
	}
	if (fp64_is_zero(a) || fp64_is_zero(b))
		return sign;
	p = (fp64_u128)fp64_unpack(a, &ea) * fp64_unpack(b, &eb);
	/* p has 105 or 106 bits: keep 64, the rest as a sticky bit */
	top = 128 - __builtin_clzll((u64)(p >> 64)) - 64;
	return fp64_round_pack(neg, ea + eb + top,
			       fp64_shift_right_jam128(p, top));
}

u64 xtap_fp64_div(u64 a, u64 b)
{
	bool neg = (a ^ b) >> 63;
	u64 sign = neg ? FP64_SIGN : 0, ma, mb, q = 0;
	int ea, eb, i;

	if (fp64_is_nan(a) || fp64_is_nan(b))
		return fp64_propagate_nan(a, b);
	if (fp64_is_inf(a)) {
		if (fp64_is_inf(b))
			return XTAP_FP64_DEFAULT_NAN;
		return sign | FP64_INF;
	}
	if (fp64_is_inf(b))
		return sign;
	if (fp64_is_zero(b)) {
		if (fp64_is_zero(a))
			return XTAP_FP64_DEFAULT_NAN;
		return sign | FP64_INF;
	}
	if (fp64_is_zero(a))
		return sign;
	ma = fp64_unpack(a, &ea);
	mb = fp64_unpack(b, &eb);
	/* 64 quotient bits of ma / mb, the first worth 2^0: q = ma/mb * 2^63 */
	for (i = 0; i < 64; i++) {
		q <<= 1;
		if (ma >= mb) {
			ma -= mb;
			q |= 1;
		}
		ma <<= 1;
	}
	return fp64_round_pack(neg, ea - eb - 63, q | (ma != 0));
}

u64 xtap_fp64_sqrt(u64 a)
{
	fp64_u128 m, root = 0, bit;
	u64 sig;
	int e;

	if (fp64_is_nan(a))
		return a | FP64_QUIET;
	if (fp64_is_zero(a))
		return a; /* sqrt(-0) is -0 */
	if (a >> 63)
		return XTAP_FP64_DEFAULT_NAN;
	if (fp64_is_inf(a))
		return a;
	sig = fp64_unpack(a, &e);
	if (e & 1) {
		sig <<= 1;
		e--;
	}
	/* sqrt(sig * 2^72) has 63 or 64 bits; e stays even */
	m = (fp64_u128)sig << 72;
	bit = (fp64_u128)1 << 126;
	while (bit > m)
		bit >>= 2;
	while (bit) {
		if (m >= root + bit) {
			m -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	return fp64_round_pack(false, e / 2 - 36, (u64)root | (m != 0));
}

/*
 * remainder(a, b) = a - n*b, n the integer nearest a/b (ties to even).
 * The result is exact; the loop is a long division, one quotient bit per
 * power of two between the operands (at most about 2100).
 */
u64 xtap_fp64_rem(u64 a, u64 b)
{
	bool neg = a >> 63, odd = false;
	u64 ma, mb;
	int ea, eb, d;

	if (fp64_is_nan(a) || fp64_is_nan(b))
		return fp64_propagate_nan(a, b);
	if (fp64_is_inf(a) || fp64_is_zero(b))
		return XTAP_FP64_DEFAULT_NAN;
	if (fp64_is_inf(b) || fp64_is_zero(a))
		return a;
	ma = fp64_unpack(a, &ea);
	mb = fp64_unpack(b, &eb);
	if (ea < eb - 1)
		return a; /* |a| < |b| / 2 */
	if (ea < eb) { /* work in units of a's exponent */
		mb <<= 1;
		eb = ea;
	} else {
		for (d = ea - eb; d > 0; d--) {
			if (ma >= mb)
				ma -= mb;
			ma <<= 1;
		}
		if (ma >= mb) {
			ma -= mb;
			odd = true;
		}
	}
	/* ma * 2^eb is now the remainder of truncation, in [0, |b|) */
	if (2 * ma > mb || (2 * ma == mb && odd)) {
		ma = mb - ma;
		neg = !neg;
	}
	if (!ma)
		return a & FP64_SIGN;
	return fp64_round_pack(neg, eb, ma);
}

int xtap_fp64_eq(u64 a, u64 b)
{
	if (fp64_is_nan(a) || fp64_is_nan(b))
		return 0;
	return a == b || (fp64_is_zero(a) && fp64_is_zero(b));
}

/* Orders non-NaN values; +0 and -0 are equal. */
static int fp64_cmp(u64 a, u64 b)
{
	bool na = a >> 63, nb = b >> 63;

	if (fp64_is_zero(a) && fp64_is_zero(b))
		return 0;
	if (na != nb)
		return na ? -1 : 1;
	if (a == b)
		return 0;
	return ((a < b) != na) ? -1 : 1;
}

int xtap_fp64_le(u64 a, u64 b)
{
	if (fp64_is_nan(a) || fp64_is_nan(b))
		return 0;
	return fp64_cmp(a, b) <= 0;
}

int xtap_fp64_lt(u64 a, u64 b)
{
	if (fp64_is_nan(a) || fp64_is_nan(b))
		return 0;
	return fp64_cmp(a, b) < 0;
}

u64 xtap_fp64_from_s64(s64 v)
{
	u64 mag = v < 0 ? -(u64)v : (u64)v;

	return fp64_round_pack(v < 0, 0, mag);
}

u64 xtap_fp64_from_fp32(u32 f)
{
	bool neg = f >> 31;
	u64 sign = neg ? FP64_SIGN : 0, frac = f & 0x7fffff;
	int e = (f >> 23) & 0xff;

	if (e == 0xff) {
		if (frac) /* NaN: quiet, payload kept in the top fraction bits */
			return sign | FP64_INF | FP64_QUIET | (frac << 29);
		return sign | FP64_INF;
	}
	if (!e && !frac)
		return sign;
	if (e)
		return fp64_round_pack(neg, e - 150, frac | (1ULL << 23));
	return fp64_round_pack(neg, -149, frac);
}

/* Whether the rounding mode moves the magnitude up, given what was cut. */
static bool fp64_round_up(int mode, bool neg, u64 mag, u64 rem, u64 half)
{
	if (!rem)
		return false;
	switch (mode) {
	case 0: /* nearest, ties to even */
		return rem > half || (rem == half && (mag & 1));
	case 4: /* nearest, ties away from zero */
		return rem >= half;
	case 2: /* toward -inf */
		return neg;
	case 3: /* toward +inf */
		return !neg;
	default:
		return false;
	}
}

s64 xtap_fp64_to_s64(u64 a, int mode)
{
	bool neg = a >> 63, inexact;
	u64 sig, mag, rem = 0, half = 0;
	int e;

	if (fp64_is_nan(a))
		return 0;
	if (fp64_is_zero(a))
		return 0;
	if (fp64_is_inf(a))
		return neg ? S64_MIN : S64_MAX;
	sig = fp64_unpack(a, &e);
	if (e >= 0) {
		if (e > 11)
			return neg ? S64_MIN : S64_MAX;
		mag = sig << e; /* at most 2^64 - 2^11: fits */
	} else if (e <= -64) {
		mag = 0;
		rem = sig;
		half = e == -64 ? 1ULL << 63 : ~0ULL; /* below any half */
	} else {
		mag = sig >> -e;
		rem = sig & ((1ULL << -e) - 1);
		half = 1ULL << (-e - 1);
	}
	inexact = rem != 0;
	if (fp64_round_up(mode, neg, mag, rem, half))
		mag++;
	if (mode == 6 && inexact)
		mag |= 1;
	if (neg)
		return mag > (1ULL << 63) ? S64_MIN : (s64)-mag;
	return mag > (u64)S64_MAX ? S64_MAX : (s64)mag;
}
