// SPDX-License-Identifier: GPL-2.0
/* String tapset functions with stap's semantics: substr, tokenize, text_str ... */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "internal.h"

static size_t xtap_strsize(void)
{
	return xtap_sess.limits.maxstringlen;
}

/* This CPU's scratch string: for results whose dst may alias an input. */
static char *xtap_str_tmp(void)
{
	return this_cpu_ptr(xtap_sess.ctx)->str_tmp;
}

/* substr(str, start, length): 0-based start; out of range gives "". */
char *xtap_substr(char *dst, const char *s, s64 start, s64 len)
{
	size_t size = xtap_strsize();
	size_t slen = strnlen(s, size - 1);
	size_t n;

	if (start < 0 || start >= slen || len <= 0) {
		dst[0] = '\0';
		return dst;
	}
	n = min_t(u64, len, slen - start);
	memmove(dst, s + start, n);
	dst[n] = '\0';
	return dst;
}

s64 xtap_isinstr(const char *s1, const char *s2)
{
	return strstr(s1, s2) != NULL;
}

/* stap calls simple_strtol(): leading blanks, sign, 0x/0 prefixes for base 0/16. */
s64 xtap_strtol(struct xtap_context *c, const char *s, s64 base)
{
	if (base != 0 && (base < 2 || base > 36)) {
		xtap_error(c, "strtol: invalid base %lld (0 or 2..36)", base);
		return 0;
	}
	return simple_strtol(s, NULL, base);
}

/* Every occurrence of from replaced by to; an empty from leaves s as it is. */
char *xtap_str_replace(char *dst, const char *s, const char *from, const char *to)
{
	size_t size = xtap_strsize(), flen = strlen(from), tlen = strlen(to);
	char *out = xtap_str_tmp();
	size_t used = 0;
	const char *hit;

	if (!flen)
		return xtap_str_copy(dst, s);
	for (;;) {
		size_t n;

		hit = strstr(s, from);
		n = hit ? hit - s : strlen(s);
		n = min(n, size - 1 - used);
		memcpy(out + used, s, n);
		used += n;
		if (!hit)
			break;
		n = min(tlen, size - 1 - used);
		memcpy(out + used, to, n);
		used += n;
		s = hit + flen;
	}
	out[used] = '\0';
	memcpy(dst, out, used + 1);
	return dst;
}

/*
 * tokenize(str, delim): a non-empty str starts over, "" continues with the
 * string of the previous call on this CPU; empty tokens are skipped, "" at
 * the end. Like stap, the state lives in the CPU's context.
 */
char *xtap_tokenize(struct xtap_context *c, char *dst, const char *s, const char *delim)
{
	struct xtap_cpu_ctx *cc = container_of(c, struct xtap_cpu_ctx, c);
	char *token, *end;

	if (s[0]) {
		strscpy(cc->tok_str, s, xtap_strsize());
		cc->tok_next = cc->tok_str;
		cc->tok_end = cc->tok_str + strlen(cc->tok_str);
	}
	do {
		token = strsep(&cc->tok_next, delim);
	} while (token && !token[0]);
	if (!token) {
		dst[0] = '\0';
		return dst;
	}
	end = cc->tok_next ? cc->tok_next - 1 : cc->tok_end;
	memcpy(dst, token, end - token + 1);
	return dst;
}

/* One character of s, stap's _stp_decode_utf8(): bytes consumed, *cp set. */
static int xtap_utf8(const unsigned char *s, size_t n, u32 *cp)
{
	int len, i;
	u32 c;

	if ((s[0] & 0xe0) == 0xc0 && n >= 2) {
		len = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0 && n >= 3) {
		len = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0 && n >= 4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		goto verbatim;
	}
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto verbatim;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* surrogates, beyond RFC 3629, overlong encodings: shown byte by byte */
	if ((c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff || c < 0x80 ||
	    (len == 3 && c < 0x800) || (len == 4 && c < 0x10000))
		goto verbatim;
	*cp = c;
	return len;
verbatim:
	*cp = s[0];
	return 1;
}

static char xtap_short_escape(u32 c)
{
	switch (c) {
	case '\a': return 'a';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	case '\v': return 'v';
	case '"': return '"';
	case '\\': return '\\';
	}
	return 0;
}

/* text_str(): printable ASCII as is, \n-style and octal escapes, \uXXXX for UTF-8. */
char *xtap_text_str(char *dst, const char *s)
{
	const unsigned char *in = (const unsigned char *)s;
	size_t inlen = strnlen(s, xtap_strsize() - 1);
	int room = xtap_strsize() - 1;
	char *buf = xtap_str_tmp(), *out = buf;

	while (inlen > 0) {
		int n, i, num;
		u32 c;
		char esc;

		n = xtap_utf8(in, inlen, &c);
		in += n;
		inlen -= n;
		if (n > 1) {
			num = c <= 0xffff ? 6 : 10;
			if (room < num)
				break;
			*out++ = '\\';
			*out++ = c <= 0xffff ? 'u' : 'U';
			for (i = num - 3; i >= 0; i--)
				*out++ = hex_asc[(c >> (i * 4)) & 0xf];
		} else if (isascii(c) && isprint(c) && c != '"' && c != '\\') {
			num = 1;
			if (room < num)
				break;
			*out++ = c;
		} else if ((esc = xtap_short_escape(c))) {
			num = 2;
			if (room < num)
				break;
			*out++ = '\\';
			*out++ = esc;
		} else {
			num = 4;
			if (room < num)
				break;
			*out++ = '\\';
			*out++ = '0' + ((c >> 6) & 3);
			*out++ = '0' + ((c >> 3) & 7);
			*out++ = '0' + (c & 7);
		}
		room -= num;
	}
	*out = '\0';
	memcpy(dst, buf, out - buf + 1);
	return dst;
}

s64 xtap_stringat(struct xtap_context *c, const char *s, s64 pos)
{
	if (pos >= 0 && pos < strnlen(s, xtap_strsize() - 1))
		return s[pos];	/* char, as stap: signed or not as the kernel builds it */
	xtap_error(c, "Position out of bounds");
	return 0;
}
