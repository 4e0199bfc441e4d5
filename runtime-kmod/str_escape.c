// SPDX-License-Identifier: GPL-2.0
/* Escaping strings as stap's _stp_text_str(): text_str() and the quoted readers. */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include "str_escape.h"

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
	case '\a':
		return 'a';
	case '\b':
		return 'b';
	case '\f':
		return 'f';
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	case '\t':
		return 't';
	case '\v':
		return 'v';
	case '"':
		return '"';
	case '\\':
		return '\\';
	}
	return 0;
}

/* The escaped form of one character of n bytes into buf[10]: its length. */
static int xtap_escape_char(char *buf, u32 c, int n)
{
	int i, num;
	char esc;

	if (n > 1) {
		num = c <= 0xffff ? 6 : 10;
		buf[0] = '\\';
		buf[1] = c <= 0xffff ? 'u' : 'U';
		for (i = 2; i < num; i++)
			buf[i] =
				hex_asc_upper[(c >> ((num - 1 - i) * 4)) & 0xf];
		return num;
	}
	if (isascii(c) && isprint(c) && c != '"' && c != '\\') {
		buf[0] = c;
		return 1;
	}
	esc = xtap_short_escape(c);
	if (esc) {
		buf[0] = '\\';
		buf[1] = esc;
		return 2;
	}
	buf[0] = '\\';
	buf[1] = '0' + ((c >> 6) & 3);
	buf[2] = '0' + ((c >> 3) & 7);
	buf[3] = '0' + (c & 7);
	return 4;
}

/*
 * A quoted result keeps room for its quotes; when the input goes on past
 * the room, the end is cut to fit '"...' without splitting an escape
 * (the first escape reaching into the last three bytes marks where).
 */
void xtap_escape(char *out, const char *in, int inlen, int outlen, bool quoted)
{
	const unsigned char *s = (const unsigned char *)in;
	char *o = out, *esc = NULL;
	int esc_len = 0;
	u32 c = 0;

	if (quoted) {
		outlen = max(outlen, 5) - 2;
		*o++ = '"';
	}
	while (inlen > 0) {
		char buf[10];
		int n = xtap_utf8(s, inlen, &c), num;

		if (c == 0 || outlen <= 0)
			break;
		s += n;
		inlen -= n;
		num = xtap_escape_char(buf, c, n);
		if (num > 1 && !esc && outlen - 3 < num) {
			esc = o;
			esc_len = num;
		}
		if (outlen < num)
			break;
		memcpy(o, buf, num);
		o += num;
		outlen -= num;
	}
	if (quoted) {
		if (c && inlen > 0) {
			char *cut = o - 3 + outlen;

			o = esc && esc < cut && cut < esc + esc_len ? esc : cut;
			memcpy(o, "\"...", 4);
			o += 4;
		} else {
			*o++ = '"';
		}
	}
	*o = '\0';
}
