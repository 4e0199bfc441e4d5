// SPDX-License-Identifier: GPL-2.0
/* What the unit tests read of a program compiled by the runtime's compiler. */
#include "../../../runtime-kmod/regex.h"

unsigned int xtap_test_re_ninst(const struct xtap_re_prog *p)
{
	return p->ninst;
}

unsigned int xtap_test_re_nsave(const struct xtap_re_prog *p)
{
	return p->nsave;
}
