// SPDX-License-Identifier: GPL-2.0
/* Staged handler output: printf into the per-CPU buffer, flushed as relay records. */
#include <linux/kernel.h>
#include <linux/uaccess.h>
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
	h->type = c->printbuf_items ? XTAP_REC_FORMATTED : XTAP_REC_TEXT;
	h->flags = 0;
	if (unlikely(!xtap_relay_write(h, h->size)))
		xtap_probe_dropped(c->probe, h->size);
	c->printbuf_used = 0;
	c->printbuf_items = false;
}

/* Text staged behind binary printf items is an item too: its header's room. */
#define XTAP_TEXT_ITEM_HDR 8

static void xtap_text_item_hdr(struct xtap_context *c, u32 len)
{
	u32 hdr[2] = { 0, len };

	memcpy(c->printbuf + c->printbuf_used, hdr, sizeof(hdr));
}

__printf(2, 0) void xtap_vprintf(struct xtap_context *c, const char *fmt,
				 va_list ap)
{
	u32 cap = xtap_print_capacity(c);
	u32 at =
		c->printbuf_used + (c->printbuf_items ? XTAP_TEXT_ITEM_HDR : 0);
	u32 room = cap - min(cap, at);
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(c->printbuf + at, room + 1, fmt, aq);
	va_end(aq);
	if (likely(n >= 0 && n <= room)) {
		if (c->printbuf_items)
			xtap_text_item_hdr(c, n);
		c->printbuf_used = at + n;
		return;
	}
	/* Does not fit behind what is staged: flush, then format again. */
	xtap_output_flush(c);
	n = vsnprintf(c->printbuf, cap + 1, fmt, ap);
	if (n < 0)
		return;
	if (n > cap) {
		n = cap;
		xtap_warn(
			c,
			"printf output longer than the print buffer was truncated");
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
	xtap_print_bytes(c, s, strlen(s));
}

void xtap_print_bytes(struct xtap_context *c, const void *buf, size_t len)
{
	u32 cap = xtap_print_capacity(c);
	const char *s = buf;

	while (len) {
		u32 at = c->printbuf_used +
			 (c->printbuf_items ? XTAP_TEXT_ITEM_HDR : 0);
		u32 room = cap - min(cap, at);
		size_t n = min_t(size_t, len, room);

		if (!n) {
			xtap_output_flush(c);
			continue;
		}
		if (c->printbuf_items)
			xtap_text_item_hdr(c, n);
		memcpy(c->printbuf + at, s, n);
		c->printbuf_used = at + n;
		s += n;
		len -= n;
	}
}

bool xtap_binary_output;

/*
 * The binary printf item (abi.h, XTAP_REC_FORMATTED): the format id and the
 * raw values, formatted by the runner. Copying a few words costs a fraction
 * of vsnprintf's walk over the format, which is most of a printf's time.
 */
bool xtap_bprintf(struct xtap_context *c, u32 id, const char *kinds,
		  const u64 *v)
{
	u32 cap = xtap_print_capacity(c), max = xtap_sess.limits.maxstringlen;
	u32 size = sizeof(id), i;
	char *p;

	for (i = 0; kinds[i]; i++)
		size += kinds[i] == 's' ?
				sizeof(u32) +
					strnlen((const char *)(unsigned long)
							v[i],
						max) :
				sizeof(u64);
	if (unlikely(size > cap))
		return false;
	if (c->printbuf_used &&
	    (!c->printbuf_items || cap - c->printbuf_used < size))
		xtap_output_flush(c);
	c->printbuf_items = true;
	p = c->printbuf + c->printbuf_used;
	memcpy(p, &id, sizeof(id));
	p += sizeof(id);
	for (i = 0; kinds[i]; i++) {
		if (kinds[i] == 's') {
			const char *s = (const char *)(unsigned long)v[i];
			u32 n = strnlen(s, max);

			memcpy(p, &n, sizeof(n));
			memcpy(p + sizeof(n), s, n);
			p += sizeof(n) + n;
		} else {
			memcpy(p, &v[i], sizeof(u64));
			p += sizeof(u64);
		}
	}
	c->printbuf_used = p - c->printbuf;
	return true;
}

void xtap_print_long(struct xtap_context *c, s64 v)
{
	xtap_printf(c, "%lld", (long long)v);
}

/* %b: the low bytes of v, least significant first (x86 memory order), like stap. */
void xtap_print_binary(struct xtap_context *c, s64 v, int bytes)
{
	u8 buf[8];
	int i;

	if (bytes != 1 && bytes != 2 && bytes != 4)
		bytes = 8;
	for (i = 0; i < bytes; i++)
		buf[i] = (u64)v >> (8 * i);
	xtap_print_bytes(c, buf, bytes);
}

/*
 * printf's %b with its width and precision (-1: none), as stap: the
 * precision says how many bytes, else the width does; with a precision,
 * the width is the field's, padded with spaces (after the bytes with '-').
 * The translator refuses other counts written in the format; one passed
 * as an argument ('*') writes 8 bytes. common/printf_format.cpp formats
 * binary records the same way.
 */
void xtap_print_binary_field(struct xtap_context *c, s64 v, int width,
			     int precision, bool left)
{
	int bytes = precision >= 0 ? precision : width;
	int pad;

	if (bytes != 1 && bytes != 2 && bytes != 4)
		bytes = 8;
	pad = precision >= 0 && width > bytes ? width - bytes : 0;
	if (!left && pad)
		xtap_printf(c, "%*s", pad, "");
	xtap_print_binary(c, v, bytes);
	if (left && pad)
		xtap_printf(c, "%*s", pad, "");
}

/* Copy len bytes of kernel memory in pieces; emit them when out is set. */
static int xtap_read_kernel(struct xtap_context *c, unsigned long addr, int len,
			    int hex, bool out)
{
	u8 chunk[64];
	char digits[2 * sizeof(chunk)];
	int done, n, i;

	for (done = 0; done < len; done += n) {
		unsigned long p = addr + done;

		n = min_t(int, len - done, sizeof(chunk));
		if (xtap_kcopy(chunk, p, n)) {
			for (i = 0; i < n - 1;
			     i++) /* the first byte that faults */
				if (xtap_kcopy(chunk, p + i, 1))
					break;
			xtap_read_fault(c, p + i);
			return -1;
		}
		if (!out)
			continue;
		if (hex) {
			for (i = 0; i < n; i++) {
				digits[2 * i] = hex_asc_hi(chunk[i]);
				digits[2 * i + 1] = hex_asc_lo(chunk[i]);
			}
			xtap_print_bytes(c, digits, 2 * n);
		} else {
			xtap_print_bytes(c, chunk, n);
		}
	}
	return 0;
}

/*
 * %m / %M: len bytes of kernel memory (at least 1, at most maxstringlen),
 * raw or as two hex digits each. Like stap, a fault prints nothing of it:
 * the range is read once before anything is staged.
 */
int xtap_print_memory(struct xtap_context *c, s64 addr, int len, int hex)
{
	len = clamp_t(int, len, 1, xtap_sess.limits.maxstringlen);
	if (xtap_read_kernel(c, addr, len, hex, false))
		return -1;
	return xtap_read_kernel(c, addr, len, hex, true);
}

void xtap_switch_file(struct xtap_context *c)
{
	struct xtap_rec_hdr h = { .size = sizeof(h),
				  .type = XTAP_REC_SWITCH_FILE };

	/* In stream order: what the run printed before the call goes first. */
	xtap_output_flush(c);
	xtap_relay_write(&h, sizeof(h));
}
