/* SPDX-License-Identifier: GPL-2.0 */
/* Escaping for text_str(), string_quoted() and the quoted memory readers. */
#ifndef XTAP_STR_ESCAPE_H
#define XTAP_STR_ESCAPE_H

#include <linux/types.h>

/*
 * Escape at most inlen bytes of in (it ends at a NUL) into out, in at most
 * outlen bytes plus a NUL: printable ASCII as is, \n-style and octal
 * escapes, \uXXXX for UTF-8. quoted: in double quotes within outlen, and a
 * cut string ends '"...'. out must not overlap in.
 */
void xtap_escape(char *out, const char *in, int inlen, int outlen, bool quoted);

#endif /* XTAP_STR_ESCAPE_H */
