// SPDX-License-Identifier: GPL-2.0
/* Histogram printing in stap's ASCII format (@hist_linear, @hist_log). */
#include <linux/kernel.h>
#include <linux/math64.h>
#include "internal.h"
#include "stat.h"

#define XTAP_HIST_WIDTH 50 /* bar columns, stap's HIST_WIDTH */
#define XTAP_HIST_ELISION \
	2 /* empty rows kept around data, stap's HIST_ELISION */

static const char xtap_hist_bar[XTAP_HIST_WIDTH + 1] =
	"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
static const char xtap_hist_rule[XTAP_HIST_WIDTH + 1] =
	"--------------------------------------------------";

/* Characters of v in decimal, sign included. */
static int xtap_digits(s64 v)
{
	u64 u = v < 0 ? 0 - (u64)v : (u64)v;
	int n = v < 0 ? 1 : 0;

	if (v == 0)
		return 1;
	while (u) {
		u = div_u64(u, 10);
		n++;
	}
	return n;
}

/* The lower bound of log bucket b, stap's _stp_bucket_to_val. */
static s64 xtap_log_bucket_value(int b)
{
	if (b == XTAP_HIST_LOG_BUCKET0)
		return 0;
	if (b < XTAP_HIST_LOG_BUCKET0)
		return S64_MIN >> b;
	return 1LL << (b - XTAP_HIST_LOG_BUCKET0 - 1);
}

/* Is row i empty along with its neighbours within the elision distance? */
static bool xtap_hist_elide(const struct xtap_stat_data *sd, int i, int lo,
			    int hi, int nbuckets)
{
	int reach = min(XTAP_HIST_ELISION, nbuckets);
	int from = max(lo, i - reach), to = min(hi, i + reach);
	int k;

	for (k = from; k <= to; k++)
		if (sd->hist[k])
			return false;
	return true;
}

/*
 * Where a histogram's text goes: the CPU's output (print), or the end of
 * a string buffer of MAXSTRINGLEN bytes (sprint), cut where it is full.
 */
struct xtap_hist_sink {
	struct xtap_context *c;
	char *dst; /* NULL: print */
};

static __printf(2, 3) void xtap_hist_out(struct xtap_hist_sink *o,
					 const char *fmt, ...)
{
	size_t size = xtap_strsize(), len;
	va_list ap;

	va_start(ap, fmt);
	if (!o->dst) {
		xtap_vprintf(o->c, fmt, ap);
	} else {
		len = strnlen(o->dst, size - 1);
		vsnprintf(o->dst + len, size - len, fmt, ap);
	}
	va_end(ap);
}

static void xtap_hist_write(struct xtap_hist_sink *o,
			    const struct xtap_stat_layout *l,
			    const struct xtap_stat_data *sd);

void xtap_stat_hist_print(struct xtap_context *c,
			  const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *sd)
{
	struct xtap_hist_sink o = { .c = c };

	xtap_hist_write(&o, l, sd);
}

int xtap_stat_hist_sprint(struct xtap_context *c, char *dst,
			  const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *sd)
{
	struct xtap_hist_sink o = { .c = c, .dst = dst };

	if (sd->count == 0) {
		xtap_error(c, "empty aggregate");
		return -1;
	}
	xtap_hist_write(&o, l, sd);
	return 0;
}

int xtap_stat_hist_bucket(struct xtap_context *c,
			  const struct xtap_stat_layout *l,
			  const struct xtap_stat_data *sd, s64 i, s64 *out)
{
	*out = 0;
	if (sd->count == 0) {
		xtap_error(c, "empty aggregate");
		return -1;
	}
	if (i < 0 || i >= l->nbuckets) {
		xtap_error(c, "histogram index out of range");
		return -1;
	}
	*out = sd->hist[i];
	return 0;
}

static void xtap_hist_write(struct xtap_hist_sink *o,
			    const struct xtap_stat_layout *l,
			    const struct xtap_stat_data *sd)
{
	struct xtap_context *c = o->c;
	const struct xtap_stat_desc *d = l->desc;
	bool linear = d->hist == XTAP_HIST_LINEAR;
	int n = l->nbuckets, lo = -1, hi = 0, i, val_space, cnt_space;
	bool under = false, over = false, eliding = false;
	s64 valmax = 0, scale;

	if (d->hist != XTAP_HIST_LINEAR && d->hist != XTAP_HIST_LOG)
		return;
	if (sd->count == 0) {
		xtap_error(c, "empty aggregate");
		return;
	}
	for (i = 0; i < n; i++) {
		if (sd->hist[i] > 0 && lo == -1)
			lo = i;
		if (sd->hist[i] > 0)
			hi = i;
		if (sd->hist[i] > valmax)
			valmax = sd->hist[i];
	}
	/* Up to two empty rows either side of the data. */
	for (i = 0; i < 2; i++) {
		if (linear ? lo > 0 : lo > 0 && lo != XTAP_HIST_LOG_BUCKET0)
			lo--;
		if (hi < n - 1)
			hi++;
	}
	if (linear) {
		/* Under- and overflow rows only when they hold something. */
		if (lo == 0 && sd->hist[0] == 0)
			lo++;
		if (hi == n - 1 && sd->hist[hi] == 0)
			hi--;
		under = lo == 0;
		over = hi == n - 1;
	}
	scale = valmax <= XTAP_HIST_WIDTH ?
			1 :
			div64_s64(valmax + XTAP_HIST_WIDTH - 1,
				  XTAP_HIST_WIDTH);
	cnt_space = xtap_digits(valmax);
	if (linear)
		val_space = max(xtap_digits(d->lo) + under,
				xtap_digits(d->lo + d->step * hi) + over);
	else
		val_space = max(xtap_digits(xtap_log_bucket_value(hi)),
				xtap_digits(xtap_log_bucket_value(lo)));
	val_space = max(val_space, 5); /* strlen("value") */

	xtap_hist_out(o, "%*s |%s count\n", val_space, "value", xtap_hist_rule);
	for (i = lo; i <= hi; i++) {
		const char *prefix = "";
		s64 val;
		int bar;

		if (xtap_hist_elide(sd, i, lo, hi, n)) {
			eliding = true;
			continue;
		}
		if (eliding) {
			xtap_hist_out(o, "%*s ~\n", val_space, "");
			eliding = false;
		}
		if (!linear) {
			val = xtap_log_bucket_value(i);
		} else if (i == 0) {
			val = d->lo;
			prefix = "<";
		} else if (i == n - 1) {
			val = d->lo + (s64)(i - 2) * d->step;
			prefix = ">";
		} else {
			val = d->lo + (s64)(i - 1) * d->step;
		}
		bar = div64_s64(sd->hist[i], scale);
		xtap_hist_out(o, "%*s%lld |%.*s%*lld\n",
			      val_space - xtap_digits(val), prefix, val, bar,
			      xtap_hist_bar,
			      XTAP_HIST_WIDTH - bar + 1 + cnt_space,
			      sd->hist[i]);
	}
	xtap_hist_out(o, "\n");
}
