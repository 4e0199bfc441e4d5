// SPDX-License-Identifier: GPL-2.0
/* Script strings: bounded copies, concatenation and formatting (maxstringlen). */
#include <linux/kernel.h>
#include <linux/string.h>
#include "internal.h"

char *xtap_str_copy(char *dst, const char *src)
{
	if (dst != src)
		strscpy(dst, src ?: "", xtap_strsize());
	return dst;
}

char *xtap_str_append(char *dst, const char *src)
{
	size_t size = xtap_strsize();
	size_t len = strnlen(dst, size - 1);

	dst[len] = '\0';
	strscpy(dst + len, src ?: "", size - len);
	return dst;
}

/* dst may alias a or b: the result is built in place when that is safe. */
char *xtap_str_concat(char *dst, const char *a, const char *b)
{
	if (dst == b && dst != a) {
		size_t size = xtap_strsize();
		size_t alen = strnlen(a, size - 1);
		size_t blen = strnlen(b, size - 1);

		blen = min(blen, size - 1 - alen);
		memmove(dst + alen, b, blen);
		memcpy(dst, a, alen);
		dst[alen + blen] = '\0';
		return dst;
	}
	xtap_str_copy(dst, a);
	return xtap_str_append(dst, b);
}

char *xtap_sprintf(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, xtap_strsize(), fmt, ap);
	va_end(ap);
	return dst;
}

char *xtap_long_to_str(char *dst, s64 v)
{
	snprintf(dst, xtap_strsize(), "%lld", (long long)v);
	return dst;
}
