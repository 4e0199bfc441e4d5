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
 * Copies the current process's argument (env false) or environment (env
 * true) area, a sequence of NUL-terminated strings, into the CPU's string
 * scratch: at most MAXSTRINGLEN - 1 bytes, NUL-terminated. Returns the
 * bytes copied, or 0 for a kernel thread, an empty area or pages not
 * resident (the read never sleeps). current's own mm cannot go away while
 * it runs the probe.
 */
u32 xtap_copy_mm_strings(struct xtap_context *c, bool env, char **raw)
{
	struct mm_struct *mm = current->mm;
	unsigned long start, end;
	u32 len;

	*raw = container_of(c, struct xtap_cpu_ctx, c)->str_tmp;
	if (!mm || (current->flags & PF_KTHREAD))
		return 0;
	start = env ? READ_ONCE(mm->env_start) : READ_ONCE(mm->arg_start);
	end = env ? READ_ONCE(mm->env_end) : READ_ONCE(mm->arg_end);
	if (end <= start)
		return 0;
	len = min_t(unsigned long, end - start,
		    xtap_sess.limits.maxstringlen - 1);
	if (xtap_ucopy(*raw, start, len))
		return 0;
	(*raw)[len] = '\0';
	return len;
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
	u32 size = xtap_sess.limits.maxstringlen;
	u32 len, pos = 0, out = 0;
	bool first = true;
	char *raw;
	s64 i = 0;

	dst[0] = '\0';
	if (n < 0)
		return dst;
	len = xtap_copy_mm_strings(c, false, &raw);
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
