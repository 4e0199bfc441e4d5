// SPDX-License-Identifier: GPL-2.0
/* Calendar dates for ctime(). */
#include <linux/kernel.h>
#include <linux/time.h>
#include "internal.h"

char *xtap_ctime(struct xtap_context *c, char *dst, s64 secs)
{
	static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed",
					 "Thu", "Fri", "Sat" };
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr",
					    "May", "Jun", "Jul", "Aug",
					    "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	dst[0] = '\0';
	/* stap's ctime() covers what a 32-bit time_t can say, 1901..2038 */
	if (secs > S32_MAX) {
		xtap_error(c, "Time too far in the future to be converted");
		return dst;
	}
	if (secs < S32_MIN) {
		xtap_error(c, "Time too far in the past to be converted");
		return dst;
	}
	time64_to_tm(secs, 0, &tm);
	snprintf(dst, xtap_sess.limits.maxstringlen,
		 "%s %s %2d %02d:%02d:%02d %ld", days[tm.tm_wday],
		 months[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, tm.tm_year + 1900);
	return dst;
}
