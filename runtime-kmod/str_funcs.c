// SPDX-License-Identifier: GPL-2.0
/* String tapset functions with stap's semantics: substr, tokenize, text_str ... */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <xtap/memory.h>
#include "internal.h"
#include "str_escape.h"

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
char *xtap_str_replace(char *dst, const char *s, const char *from,
		       const char *to)
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
char *xtap_tokenize(struct xtap_context *c, char *dst, const char *s,
		    const char *delim)
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

/* text_str(): printable ASCII as is, \n-style and octal escapes, \uXXXX for UTF-8. */
char *xtap_text_str(char *dst, const char *s)
{
	int len = xtap_strsize() - 1;
	char *buf = xtap_str_tmp();

	xtap_escape(buf, s, len, len, false);
	strscpy(dst, buf, xtap_strsize());
	return dst;
}

/* string_quoted(): the same in double quotes, a cut string ending "... */
char *xtap_str_quoted(char *dst, const char *s)
{
	int len = xtap_strsize() - 1;
	char *buf = xtap_str_tmp();

	xtap_escape(buf, s, len, len, true);
	strscpy(dst, buf, xtap_strsize());
	return dst;
}

s64 xtap_stringat(struct xtap_context *c, const char *s, s64 pos)
{
	if (pos >= 0 && pos < strnlen(s, xtap_strsize() - 1))
		return s[pos]; /* char, as stap: signed or not as the kernel builds it */
	xtap_error(c, "Position out of bounds");
	return 0;
}
