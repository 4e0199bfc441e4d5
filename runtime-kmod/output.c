// SPDX-License-Identifier: GPL-2.0
/* Staged handler output: printf into the per-CPU buffer, flushed as relay records. */
#include <linux/kernel.h>
#include "internal.h"

/* Largest payload that still fits a relay sub-buffer as one record. */
static u32 xtap_print_capacity(const struct xtap_context *c)
{
	u32 max = xtap_relay_max_record() - sizeof(struct xtap_rec_hdr);

	return min(c->printbuf_size, max);
}

void xtap_output_flush(struct xtap_context *c)
{
	struct xtap_rec_hdr *h;

	if (!c->printbuf_used)
		return;
	h = (struct xtap_rec_hdr *)(c->printbuf - sizeof(*h));
	h->size = sizeof(*h) + c->printbuf_used;
	h->type = XTAP_REC_TEXT;
	h->flags = 0;
	xtap_relay_write(h, h->size);
	c->printbuf_used = 0;
}

static void xtap_vprintf(struct xtap_context *c, const char *fmt, va_list ap)
{
	u32 cap = xtap_print_capacity(c);
	u32 room = cap - min(cap, c->printbuf_used);
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(c->printbuf + c->printbuf_used, room + 1, fmt, aq);
	va_end(aq);
	if (likely(n >= 0 && n <= room)) {
		c->printbuf_used += n;
		return;
	}
	/* Does not fit behind what is staged: flush, then format again. */
	xtap_output_flush(c);
	n = vsnprintf(c->printbuf, cap + 1, fmt, ap);
	if (n < 0)
		return;
	if (n > cap) {
		n = cap;
		xtap_warn(c, "printf output longer than the print buffer was truncated");
	}
	c->printbuf_used = n;
}

void xtap_printf(struct xtap_context *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xtap_vprintf(c, fmt, ap);
	va_end(ap);
}

/* Plain strings are copied in pieces, so any length goes through whole. */
void xtap_print_str(struct xtap_context *c, const char *s)
{
	u32 cap = xtap_print_capacity(c);
	size_t len = strlen(s);

	while (len) {
		u32 room = cap - min(cap, c->printbuf_used);
		size_t n = min_t(size_t, len, room);

		if (!n) {
			xtap_output_flush(c);
			continue;
		}
		memcpy(c->printbuf + c->printbuf_used, s, n);
		c->printbuf_used += n;
		s += n;
		len -= n;
	}
}

void xtap_print_long(struct xtap_context *c, s64 v)
{
	xtap_printf(c, "%lld", (long long)v);
}
