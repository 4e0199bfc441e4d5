// SPDX-License-Identifier: GPL-2.0
/*
 * Doubles to decimal text and back, exactly (include/xtap/fp64.h):
 * fp_to_string() and string_to_fp().
 *
 * Both go through a decimal number of up to 800 digits, multiplied and
 * divided by powers of two a few bits at a time ("simple decimal
 * conversion", as Go's strconv does it). Every double's exact value fits
 * (at most 767 significant digits), so printing is exact before its one
 * rounding; parsing keeps 800 digits and remembers whether any nonzero
 * digit was cut, which decides the only case where it matters, a tie.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
#include <xtap/fp64.h>

#define FP64_DEC_DIGITS 800
#define FP64_DEC_MAX_SHIFT 60 /* 9 << 60 and a carry still fit a u64 */
#define FP64_DEC_SPARE 19 /* digits 2^60 can add in front */

struct fp64_decimal {
	/* digit values 0..9, most significant first */
	u8 d[FP64_DEC_DIGITS + FP64_DEC_SPARE];
	int nd; /* digits used */
	int dp; /* the decimal point: value = 0.d[0]d[1]... * 10^dp */
	bool trunc; /* nonzero digits were dropped past d[FP64_DEC_DIGITS - 1] */
};

static void fp64_dec_trim(struct fp64_decimal *a)
{
	while (a->nd > 0 && a->d[a->nd - 1] == 0)
		a->nd--;
	if (!a->nd)
		a->dp = 0;
}

static void fp64_dec_assign(struct fp64_decimal *a, u64 v)
{
	u8 buf[20];
	int n = 0;

	while (v) {
		buf[n++] = v % 10;
		v /= 10;
	}
	a->nd = 0;
	while (n > 0)
		a->d[a->nd++] = buf[--n];
	a->dp = a->nd;
	a->trunc = false;
	fp64_dec_trim(a);
}

/* a /= 2^k, k <= FP64_DEC_MAX_SHIFT */
static void fp64_dec_shift_right(struct fp64_decimal *a, int k)
{
	u64 n = 0, mask = (1ULL << k) - 1;
	int r = 0, w = 0;

	/* read digits until the value is at least 2^k */
	for (; (n >> k) == 0; r++) {
		if (r >= a->nd) {
			if (!n) {
				a->nd = 0;
				a->dp = 0;
				return;
			}
			while ((n >> k) == 0) {
				n *= 10;
				r++;
			}
			break;
		}
		n = n * 10 + a->d[r];
	}
	a->dp -= r - 1;
	for (; r < a->nd; r++) {
		u64 c = a->d[r];

		a->d[w++] = n >> k;
		n = (n & mask) * 10 + c;
	}
	while (n) {
		u8 digit = n >> k;

		n = (n & mask) * 10;
		if (w < FP64_DEC_DIGITS)
			a->d[w++] = digit;
		else if (digit)
			a->trunc = true;
	}
	a->nd = w;
	fp64_dec_trim(a);
}

/*
 * a *= 2^k, k <= FP64_DEC_MAX_SHIFT, in place from the last digit to the
 * first: 2^60 adds at most 19 digits in front, so digit r goes to r + 19
 * or lower, into the spare room at the end of d[], and the result is
 * moved down over the leading zeros.
 */
static void fp64_dec_shift_left(struct fp64_decimal *a, int k)
{
	int w = a->nd + FP64_DEC_SPARE, r, i;
	u64 n = 0;

	for (r = a->nd - 1; r >= 0; r--) {
		n += (u64)a->d[r] << k;
		a->d[--w] = n % 10;
		n /= 10;
	}
	while (n) {
		a->d[--w] = n % 10;
		n /= 10;
	}
	a->dp += FP64_DEC_SPARE - w; /* the digits gained in front */
	a->nd += FP64_DEC_SPARE - w;
	memmove(a->d, a->d + w, a->nd);
	if (a->nd > FP64_DEC_DIGITS) {
		for (i = FP64_DEC_DIGITS; i < a->nd; i++)
			if (a->d[i])
				a->trunc = true;
		a->nd = FP64_DEC_DIGITS;
	}
	fp64_dec_trim(a);
}

static void fp64_dec_shift(struct fp64_decimal *a, int k)
{
	if (!a->nd)
		return;
	while (k > 0) {
		int n = min(k, FP64_DEC_MAX_SHIFT);

		fp64_dec_shift_left(a, n);
		k -= n;
	}
	while (k < 0) {
		int n = min(-k, FP64_DEC_MAX_SHIFT);

		fp64_dec_shift_right(a, n);
		k += n;
	}
}

/* Whether rounding to nd digits goes up: ties to even, cut digits count. */
static bool fp64_dec_round_up(const struct fp64_decimal *a, int nd)
{
	if (nd < 0 || nd >= a->nd)
		return false;
	if (a->d[nd] == 5 && nd + 1 == a->nd) {
		if (a->trunc)
			return true;
		return nd > 0 && (a->d[nd - 1] & 1);
	}
	return a->d[nd] >= 5;
}

/* Round to nd digits (nd may be 0: the value becomes 0 or 10^dp). */
static void fp64_dec_round(struct fp64_decimal *a, int nd)
{
	int i;

	if (nd < 0 || nd >= a->nd)
		return;
	if (!fp64_dec_round_up(a, nd)) {
		a->nd = nd;
		fp64_dec_trim(a);
		return;
	}
	for (i = nd - 1; i >= 0; i--) {
		if (a->d[i] < 9) {
			a->d[i]++;
			a->nd = i + 1;
			return;
		}
	}
	a->d[0] = 1; /* 999 rounds up to 1000 */
	a->nd = 1;
	a->dp++;
}

struct fp64_out {
	char *dst;
	size_t size, used;
};

static void fp64_put(struct fp64_out *o, char ch)
{
	if (o->used + 1 < o->size)
		o->dst[o->used++] = ch;
}

static void fp64_puts(struct fp64_out *o, const char *s)
{
	while (*s)
		fp64_put(o, *s++);
}

/* "%.*f" of the double's exact value, as glibc prints it. */
char *xtap_fp64_to_string(char *dst, size_t size, u64 a, s64 precision)
{
	struct fp64_out o = { dst, size, 0 };
	struct fp64_decimal dec;
	int e = (int)((a >> 52) & 0x7ff), i;
	u64 frac = a & ((1ULL << 52) - 1);

	if (!size)
		return dst;
	if (precision < 0)
		precision = 0;
	if (precision > FP64_DEC_DIGITS * 2)
		precision = FP64_DEC_DIGITS * 2; /* past any buffer anyway */
	if (a >> 63)
		fp64_put(&o, '-');
	if (e == 0x7ff) {
		fp64_puts(&o, frac ? "nan" : "inf");
		dst[o.used] = '\0';
		return dst;
	}
	fp64_dec_assign(&dec, e ? frac | (1ULL << 52) : frac);
	fp64_dec_shift(&dec, (e ? e : 1) - 1075);
	fp64_dec_round(&dec, dec.dp + (int)precision);
	if (dec.dp <= 0)
		fp64_put(&o, '0');
	for (i = 0; i < dec.dp; i++)
		fp64_put(&o, i < dec.nd ? '0' + dec.d[i] : '0');
	if (precision)
		fp64_put(&o, '.');
	for (i = 0; i < precision && o.used + 1 < o.size; i++) {
		int k = dec.dp + i;

		fp64_put(&o, k >= 0 && k < dec.nd ? '0' + dec.d[k] : '0');
	}
	dst[o.used] = '\0';
	return dst;
}

static bool fp64_word(const char **s, const char *word)
{
	size_t i;

	for (i = 0; word[i]; i++)
		if (tolower((*s)[i]) != word[i])
			return false;
	*s += i;
	return true;
}

/* [+-]digits[.digits][(e|E)[+-]digits], at least one digit; inf, nan. */
static bool fp64_parse(const char *s, struct fp64_decimal *a, bool *neg,
		       int *special)
{
	bool any = false, point = false;
	int exp = 0, exp_sign = 1;

	a->nd = 0;
	a->dp = 0;
	a->trunc = false;
	*special = 0;
	*neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (fp64_word(&s, "infinity") || fp64_word(&s, "inf")) {
		*special = 1;
		return !*s;
	}
	if (fp64_word(&s, "nan")) {
		*special = 2;
		return !*s;
	}
	for (;; s++) {
		if (*s == '.' && !point) {
			point = true;
			continue;
		}
		if (*s < '0' || *s > '9')
			break;
		any = true;
		/* leading zeros only move the point */
		if (*s == '0' && !a->nd) {
			if (point)
				a->dp--;
			continue;
		}
		if (a->nd < FP64_DEC_DIGITS)
			a->d[a->nd++] = *s - '0';
		else if (*s != '0')
			a->trunc = true;
		if (!point)
			a->dp++;
	}
	if (!any)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			exp_sign = *s++ == '-' ? -1 : 1;
		if (*s < '0' || *s > '9')
			return false;
		for (; *s >= '0' && *s <= '9'; s++)
			if (exp < 100000)
				exp = exp * 10 + (*s - '0');
	}
	if (*s)
		return false;
	a->dp += exp_sign * exp;
	fp64_dec_trim(a);
	return true;
}

/* The decimal's value as the nearest double (Go's decimal.floatBits). */
static u64 fp64_dec_to_bits(struct fp64_decimal *a, bool neg)
{
	static const u8 powtab[] = { 1, 3, 6, 9, 13, 16, 19, 23, 26 };
	u64 sign = neg ? 1ULL << 63 : 0, mant = 0;
	int exp = 0, i, n;

	if (!a->nd || a->dp < -330)
		return sign;
	if (a->dp > 310)
		return sign | 0x7ff0000000000000ULL;
	/* scale by powers of two into [0.5, 1) */
	while (a->dp > 0) {
		n = a->dp >= (int)sizeof(powtab) ? 27 : powtab[a->dp];
		fp64_dec_shift(a, -n);
		exp += n;
	}
	while (a->dp < 0 || (a->dp == 0 && a->d[0] < 5)) {
		n = -a->dp >= (int)sizeof(powtab) ? 27 : powtab[-a->dp];
		fp64_dec_shift(a, n);
		exp -= n;
	}
	exp--; /* the value is now in [1, 2) * 2^exp */
	if (exp < -1022) { /* subnormal: fewer significant bits */
		fp64_dec_shift(a, -(-1022 - exp));
		exp = -1022;
	}
	if (exp + 1023 >= 0x7ff)
		return sign | 0x7ff0000000000000ULL;
	fp64_dec_shift(a, 53);
	/* the integer part, rounded */
	for (i = 0; i < a->dp && i < 20; i++)
		mant = mant * 10 + (i < a->nd ? a->d[i] : 0);
	if (fp64_dec_round_up(a, a->dp))
		mant++;
	if (mant == 2ULL << 52) {
		mant >>= 1;
		exp++;
		if (exp + 1023 >= 0x7ff)
			return sign | 0x7ff0000000000000ULL;
	}
	if (!(mant & (1ULL << 52)))
		exp = -1023; /* subnormal */
	return sign | ((u64)(exp + 1023) << 52) | (mant & ((1ULL << 52) - 1));
}

bool xtap_fp64_from_string(const char *s, u64 *out)
{
	struct fp64_decimal dec;
	int special;
	bool neg;

	if (!fp64_parse(s, &dec, &neg, &special))
		return false;
	if (special == 1)
		*out = (neg ? 1ULL << 63 : 0) | 0x7ff0000000000000ULL;
	else if (special == 2)
		*out = XTAP_FP64_DEFAULT_NAN | (neg ? 1ULL << 63 : 0);
	else
		*out = fp64_dec_to_bits(&dec, neg);
	return true;
}
