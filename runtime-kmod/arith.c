// SPDX-License-Identifier: GPL-2.0
/* Checked integer arithmetic: division and modulo with script semantics. */
#include <linux/limits.h>
#include <linux/math64.h>
#include "internal.h"

s64 xtap_div(struct xtap_context *c, s64 a, s64 b, const char *where)
{
	if (unlikely(b == 0)) {
		/* The location is shown when the error ends the run; a catch
		 * sees just the message, as in stap. */
		if (!c->error) {
			xtap_error(c, "division by 0");
			c->error_where = where;
		}
		return 0;
	}
	if (unlikely(a == S64_MIN && b == -1))
		return S64_MIN;
	return div64_s64(a, b);
}

s64 xtap_mod(struct xtap_context *c, s64 a, s64 b, const char *where)
{
	s64 q;

	if (unlikely(b == 0)) {
		/* The location is shown when the error ends the run; a catch
		 * sees just the message, as in stap. */
		if (!c->error) {
			xtap_error(c, "division by 0");
			c->error_where = where;
		}
		return 0;
	}
	if (unlikely(b == -1))
		return 0;
	q = div64_s64(a, b);
	return a - q * b;
}
