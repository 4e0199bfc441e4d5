// SPDX-License-Identifier: GPL-2.0
/* The current process's command line: cmdline_args() and friends. */
#include <linux/mm_types.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <xtap/memory.h>
#include "internal.h"

/* Appends s to dst (size bytes, out used), cutting at the end. */
static void xtap_append(char *dst, u32 *out, u32 size, const char *s)
{
	ssize_t w;

	if (*out >= size - 1)
		return;
	w = strscpy(dst + *out, s, size - *out);
	*out = w < 0 ? size - 1 : *out + w;
}

/*
 * Arguments n..m of the current process (m < n: all from n), joined by
 * delim, into dst. "" when there are fewer than n + 1 arguments or the
 * arguments cannot be read: a kernel thread, or pages not resident (the
 * read never sleeps). At most MAXSTRINGLEN - 1 bytes of the command line
 * are read.
 */
char *xtap_cmdline_args(struct xtap_context *c, char *dst, s64 n, s64 m,
			const char *delim)
{
	char *raw = container_of(c, struct xtap_cpu_ctx, c)->str_tmp;
	u32 size = xtap_sess.limits.maxstringlen;
	struct mm_struct *mm = current->mm;
	unsigned long start, end;
	u32 len, pos = 0, out = 0;
	bool first = true;
	s64 i = 0;

	dst[0] = '\0';
	/* current's own mm cannot go away while it runs this probe */
	if (!mm || (current->flags & PF_KTHREAD) || n < 0)
		return dst;
	start = READ_ONCE(mm->arg_start);
	end = READ_ONCE(mm->arg_end);
	if (end <= start)
		return dst;
	len = min_t(unsigned long, end - start, size - 1);
	if (xtap_ucopy(raw, start, len))
		return dst;
	raw[len] = '\0';
	for (; pos < len; i++) {
		const char *arg = raw + pos;

		pos += strnlen(arg, len - pos) + 1;
		if (i < n || (m >= n && i > m))
			continue;
		if (!first)
			xtap_append(dst, &out, size, delim);
		xtap_append(dst, &out, size, arg);
		first = false;
	}
	return dst;
}
