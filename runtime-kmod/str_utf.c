// SPDX-License-Identifier: GPL-2.0
/*
 * Strings that are not plain C strings: UTF-16 and UTF-32 strings in kernel
 * or user memory (kernel_string_utf16() ...) turned into UTF-8, and byte
 * buffers quoted whole, NULs included (kernel_buffer_quoted() ...).
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <xtap/memory.h>
#include "internal.h"
#include "str_escape.h"

static int xtap_utf_read(struct xtap_context *c, unsigned long addr, void *dst,
			 u32 size, int user)
{
	return user ? xtap_ucopy(dst, addr, size) : xtap_kcopy(dst, addr, size);
}

/* c as UTF-8 into dst at *used (room for 4 bytes checked by the caller). */
static void xtap_put_utf8(char *dst, u32 *used, u32 cp)
{
	if (cp < 0x80) {
		dst[(*used)++] = cp;
	} else if (cp < 0x800) {
		dst[(*used)++] = 0xc0 | (cp >> 6);
		dst[(*used)++] = 0x80 | (cp & 0x3f);
	} else if (cp < 0x10000) {
		dst[(*used)++] = 0xe0 | (cp >> 12);
		dst[(*used)++] = 0x80 | ((cp >> 6) & 0x3f);
		dst[(*used)++] = 0x80 | (cp & 0x3f);
	} else {
		dst[(*used)++] = 0xf0 | (cp >> 18);
		dst[(*used)++] = 0x80 | ((cp >> 12) & 0x3f);
		dst[(*used)++] = 0x80 | ((cp >> 6) & 0x3f);
		dst[(*used)++] = 0x80 | (cp & 0x3f);
	}
}

/*
 * The NUL-terminated string of width-byte units (2: UTF-16 with surrogate
 * pairs, 4: UTF-32) at addr, as UTF-8, cut at MAXSTRINGLEN. An unreadable
 * unit or an invalid code point is an error ("... fault at 0x...") unless
 * err_msg is given, which is then the result; quoted: as string_quoted()
 * shows it, and the address in hex instead of an error.
 */
char *xtap_read_utf(struct xtap_context *c, char *dst, s64 addr, int width,
		    int user, int quoted, const char *err_msg)
{
	char *out = quoted ? container_of(c, struct xtap_cpu_ctx, c)->str_tmp :
			     dst;
	u32 size = xtap_strsize(), used = 0;
	unsigned long p = addr;

	for (;;) {
		u32 cp = 0;
		u16 lo;

		if (xtap_utf_read(c, p, &cp, width, user))
			goto fault;
		p += width;
		if (width == 2 && cp >= 0xd800 && cp < 0xdc00) {
			if (xtap_utf_read(c, p, &lo, 2, user))
				goto fault;
			if (lo < 0xdc00 || lo >= 0xe000)
				goto invalid;
			p += 2;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if ((cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff) {
			goto invalid;
		}
		if (!cp || used + 4 >= size)
			break;
		xtap_put_utf8(out, &used, cp);
	}
	out[used] = '\0';
	if (quoted)
		xtap_escape(dst, out, used, size - 1, true);
	return dst;
invalid:
	if (quoted || err_msg)
		goto fail;
	xtap_error(c, "invalid UTF-%d character at 0x%lx", width * 8,
		   p - width);
	dst[0] = '\0';
	return dst;
fault:
	if (quoted || err_msg)
		goto fail;
	xtap_fault(c, user ? "user string copy" : "kernel string copy", p);
	dst[0] = '\0';
	return dst;
fail:
	if (quoted)
		scnprintf(dst, size, "0x%llx", (unsigned long long)addr);
	else
		strscpy(dst, err_msg, size);
	return dst;
}

/* One byte escaped as the quoted readers show it; returns its length. */
static int xtap_escape_byte(char *buf, u8 ch)
{
	static const char names[] = "\a\b\t\n\v\f\r";
	static const char letters[] = "abtnvfr";
	const char *at;

	if (ch == '"' || ch == '\\') {
		buf[0] = '\\';
		buf[1] = ch;
		return 2;
	}
	if (ch >= 0x20 && ch < 0x7f) {
		buf[0] = ch;
		return 1;
	}
	at = ch ? memchr(names, ch, sizeof(names) - 1) : NULL;
	if (at) {
		buf[0] = '\\';
		buf[1] = letters[at - names];
		return 2;
	}
	return sprintf(buf, "\\%03o", ch);
}

/*
 * inlen bytes at addr, NULs included, in double quotes with escapes, the
 * result (quotes included) at most outlen bytes (0: MAXSTRINGLEN); a cut
 * result ends '"...'. Unreadable memory: the address in hex, or with raise
 * the read fault raised and "".
 */
char *xtap_buffer_quoted(struct xtap_context *c, char *dst, s64 addr, s64 inlen,
			 s64 outlen, int user, int raise)
{
	u32 size = xtap_strsize(), used = 1;
	s64 i;

	if (outlen <= 0 || outlen > size - 1)
		outlen = size - 1;
	if (inlen < 0)
		inlen = 0;
	dst[0] = '"';
	for (i = 0; i < inlen; i++) {
		char esc[5];
		u8 ch;
		int n;

		if (xtap_utf_read(c, addr + i, &ch, 1, user)) {
			if (raise) {
				xtap_fault(c,
					   user ? "user read" : "kernel read",
					   addr + i);
				dst[0] = '\0';
			} else {
				scnprintf(dst, size, "0x%llx",
					  (unsigned long long)addr);
			}
			return dst;
		}
		n = xtap_escape_byte(esc, ch);
		if (used + n + 1 > outlen) {
			/* room for '"...' */
			used = min_t(u32, used, outlen > 4 ? outlen - 4 : 1);
			strscpy(dst + used, "\"...", size - used);
			return dst;
		}
		memcpy(dst + used, esc, n);
		used += n;
	}
	dst[used++] = '"';
	dst[used] = '\0';
	return dst;
}

/* text_strn(): input escaped as text_str() does, at most len bytes (0: MAXSTRINGLEN). */
char *xtap_text_strn(char *dst, const char *input, s64 len, s64 quoted)
{
	char *in = dst == input ? NULL : (char *)input;
	s64 max = xtap_strsize() - 1;

	if (!in)
		return dst; /* the translator never passes its result as input */
	if (len <= 0 || len > max)
		len = max;
	xtap_escape(dst, in, max, len, quoted != 0);
	return dst;
}
