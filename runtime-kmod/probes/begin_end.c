// SPDX-License-Identifier: GPL-2.0
/* begin, end and error probes: run in order, in the runner's process context. */
#include "internal.h"

static void xtap_run_phase(const struct xtap_probe *probes, u16 n, int state)
{
	u16 i;

	for (i = 0; i < n && xtap_state() == state; i++) {
		xtap_run_probe(&probes[i], NULL);
		cond_resched();
	}
}

void xtap_begin_run(void)
{
	const struct xtap_script *s = xtap_sess.script;

	xtap_run_phase(s->begin, s->nbegin, XTAP_ST_STARTING);
}

/* exit() inside an end probe does not cut the remaining end probes short. */
void xtap_end_run(void)
{
	const struct xtap_script *s = xtap_sess.script;

	xtap_run_phase(s->end, s->nend, XTAP_ST_ENDING);
}

/* error probes: the session was stopped by an error (end probes do not run). */
void xtap_error_run(void)
{
	const struct xtap_script *s = xtap_sess.script;

	xtap_run_phase(s->error, s->nerror, XTAP_ST_ENDING);
}
