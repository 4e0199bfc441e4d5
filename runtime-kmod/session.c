// SPDX-License-Identifier: GPL-2.0
/* Session lifetime: set up from the script descriptor, start, stop, tear down. */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xtap/limits.h>
#include "internal.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xtap probe script");

struct xtap_session xtap_sess;

static const struct xtap_limits xtap_default_limits = {
	.maxstringlen = 512,
	.maxaction = 1000,
	.maxnesting = 10,
	.maxmapentries = 2048,
	.maxskipped = 100,
	.maxerrors = 0,
	.maxtrylock = 1000,
	.stack_size = 16384,
	.subbuf_size = XTAP_RELAY_DEFAULT_SUBBUF_SIZE,
	.n_subbufs = XTAP_RELAY_DEFAULT_SUBBUFS,
	.printbuf_size = 8192,
	.maxaction_interruptible = 10000,
};

const struct xtap_limits *xtap_limits(void)
{
	return &xtap_sess.limits;
}

/* Zero fields take the default; values the runtime cannot work with are refused. */
static int xtap_limits_setup(const struct xtap_limits *in)
{
	struct xtap_limits *l = &xtap_sess.limits;
	const u32 *src = (const u32 *)in;
	const u32 *def = (const u32 *)&xtap_default_limits;
	u32 *dst = (u32 *)l;
	size_t i;

	/* The u32 limits come first; the overload guard's u64 pair is taken as is. */
	for (i = 0;
	     i < offsetof(struct xtap_limits, overload_interval) / sizeof(u32);
	     i++)
		dst[i] = src[i] ? src[i] : def[i];
	l->maxerrors = in->maxerrors;
	l->overload_interval = in->overload_interval;
	l->overload_threshold = in->overload_interval ? in->overload_threshold :
							0;
	l->overload_skip = in->overload_skip;
	/* As stap: begin, end and error handlers may run ten times MAXACTION. */
	if (!in->maxaction_interruptible)
		l->maxaction_interruptible = l->maxaction > U32_MAX / 10 ?
						     U32_MAX :
						     l->maxaction * 10;

	if (l->maxstringlen < 16 || l->maxstringlen > (1U << 20) ||
	    l->subbuf_size < XTAP_RELAY_MIN_SUBBUF_SIZE ||
	    l->n_subbufs < XTAP_RELAY_MIN_SUBBUFS ||
	    (u64)l->subbuf_size * l->n_subbufs > XTAP_RELAY_MAX_BYTES_PER_CPU ||
	    l->printbuf_size < 64 || l->printbuf_size > (16U << 20) ||
	    l->stack_size > (64U << 20)) {
		pr_err(XTAP_PFX "%s: invalid limits\n",
		       module_name(THIS_MODULE));
		return -EINVAL;
	}
	l->subbuf_size = PAGE_ALIGN(l->subbuf_size);
	return 0;
}

static void xtap_hello(void)
{
	struct xtap_hello h = {
		.size = sizeof(h),
		.ncpus = nr_cpu_ids,
		.subbuf_size = xtap_sess.limits.subbuf_size,
		.n_subbufs = xtap_sess.limits.n_subbufs,
	};

	strscpy(h.script, xtap_sess.script->name ?: "", sizeof(h.script));
	xtap_msg_queue(XTAP_MSG_HELLO, &h, sizeof(h));
}

/* A collector attached to a detached session (-A) is greeted as at load. */
static void xtap_greet_attached(void)
{
	xtap_hello();
	if (xtap_state() == XTAP_ST_RUNNING)
		xtap_msg_queue(XTAP_MSG_STARTED, NULL, 0);
}

static DEFINE_MUTEX(xtap_cmd_mutex);

/* Groups [0, n) are armed: disarm them, last armed first. */
static void xtap_disarm_groups(u16 n)
{
	const struct xtap_script *s = xtap_sess.script;

	while (n--)
		s->groups[n].ops->disarm();
}

static void xtap_disarm_all(void)
{
	xtap_disarm_groups(xtap_sess.armed_groups);
	xtap_sess.armed_groups = 0;
	/* Handlers run with irqs off: after this no run that saw RUNNING is left. */
	synchronize_rcu();
	xtap_contexts_wait_idle();
}

/* Arm every group in order; on a failure, roll back the ones before it. */
static int xtap_arm_all(void)
{
	const struct xtap_script *s = xtap_sess.script;
	u16 i;
	int err;

	for (i = 0; i < s->ngroups; i++) {
		err = s->groups[i].ops->arm();
		if (err) {
			/* The failing family reported the error and rolled back itself. */
			xtap_disarm_all();
			return err;
		}
		xtap_sess.armed_groups = i + 1;
	}
	return 0;
}

/* START: run begin probes in order, arm every probe, report STARTED. */
int xtap_cmd_start(s64 target)
{
	int err = 0;

	mutex_lock(&xtap_cmd_mutex);
	if (atomic_cmpxchg(&xtap_sess.state, XTAP_ST_INIT, XTAP_ST_STARTING) !=
	    XTAP_ST_INIT) {
		err = -EBUSY;
		goto out;
	}
	xtap_sess.target = target;
	if (xtap_sess.init_error[0]) {
		xtap_fatal("%s", xtap_sess.init_error);
		goto out;
	}
	xtap_begin_run();
	if (xtap_state() != XTAP_ST_STARTING)
		goto out; /* exit() or an error in a begin probe */

	if (xtap_arm_all())
		goto out;
	if (atomic_cmpxchg(&xtap_sess.state, XTAP_ST_STARTING,
			   XTAP_ST_RUNNING) == XTAP_ST_STARTING)
		xtap_msg_queue(XTAP_MSG_STARTED, NULL, 0);
out:
	mutex_unlock(&xtap_cmd_mutex);
	return err;
}

static void xtap_done(void)
{
	struct xtap_done d = { .size = sizeof(d) };

	xtap_relay_dropped(&d.dropped_records, &d.dropped_bytes);
	d.errors = atomic64_read(&xtap_sess.errors);
	d.skipped = atomic64_read(&xtap_sess.skipped);
	d.hits = xtap_contexts_hits();
	d.warnings = atomic64_read(&xtap_sess.warnings);
	d.skipped_reentrant = atomic64_read(&xtap_sess.skipped_reentrant);
	d.skipped_lock = atomic64_read(&xtap_sess.skipped_lock);
	xtap_probe_acct_report(&d);
	xtap_msg_queue(XTAP_MSG_DONE, &d, sizeof(d));
}

/*
 * STOP (and module unload): disarm, wait for in-flight handlers, run the end
 * probes, or the error probes if a fatal error ended the session, report
 * DONE. Idempotent.
 */
void xtap_cmd_stop(bool run_end)
{
	int st;

	mutex_lock(&xtap_cmd_mutex);
	st = atomic_xchg(&xtap_sess.state, XTAP_ST_STOPPING);
	if (st == XTAP_ST_DONE) {
		atomic_set(&xtap_sess.state, XTAP_ST_DONE);
		goto out;
	}
	if (st != XTAP_ST_INIT) {
		xtap_disarm_all();
		if (run_end) {
			atomic_set(&xtap_sess.state, XTAP_ST_ENDING);
			if (atomic_read(&xtap_sess.errored))
				xtap_error_run();
			else
				xtap_end_run();
			xtap_timing_report();
		}
	}
	atomic_set(&xtap_sess.state, XTAP_ST_DONE);
	xtap_done();
out:
	mutex_unlock(&xtap_cmd_mutex);
}

/* Free groups [0, n), last first. */
static void xtap_free_groups(u16 n)
{
	const struct xtap_script *s = xtap_sess.script;

	while (n--)
		s->groups[n].ops->free();
}

static int xtap_alloc_groups(const struct xtap_script *s)
{
	u16 i;
	int err;

	for (i = 0; i < s->ngroups; i++) {
		const struct xtap_probe_group *g = &s->groups[i];

		err = g->ops->alloc(g->specs, g->nspecs);
		if (err) {
			g->ops->free();
			return err;
		}
		xtap_sess.allocated_groups = i + 1;
	}
	return 0;
}

static void xtap_session_free(void)
{
	xtap_free_groups(xtap_sess.allocated_groups);
	xtap_sess.allocated_groups = 0;
	xtap_regexes_destroy();
	xtap_maps_destroy();
	xtap_stats_destroy();
	xtap_timing_free();
	xtap_snapshot_exit();
	xtap_probe_acct_free();
	kfree(xtap_sess.locks);
	xtap_sess.locks = NULL;
	xtap_contexts_free();
}

/* xtap_<module>/formats: the script's printf format table, for the runner. */
static struct debugfs_blob_wrapper xtap_formats_blob;

/* The ctl file's commands, as the session carries them out. */
static const struct xtap_control_ops xtap_session_control = {
	.start = xtap_cmd_start,
	.stop = xtap_cmd_stop,
	.collector_opened = xtap_note_collector,
	.reattached = xtap_greet_attached,
};

int xtap_session_init(const struct xtap_script *s)
{
	char dirname[MODULE_NAME_LEN + sizeof(XTAP_DEBUGFS_PREFIX)];
	int i, err;

	if (!s || s->abi != XTAP_ABI_VERSION) {
		pr_err(XTAP_PFX "%s: script ABI %u, runtime ABI %u\n",
		       module_name(THIS_MODULE), s ? s->abi : 0,
		       XTAP_ABI_VERSION);
		return -EINVAL;
	}
	memset(&xtap_sess, 0, sizeof(xtap_sess));
	xtap_sess.script = s;
	atomic_set(&xtap_sess.state, XTAP_ST_INIT);
	err = xtap_limits_setup(&s->limits);
	if (err)
		return err;

	err = xtap_contexts_alloc();
	if (err)
		goto fail;
	if (s->nglobals) {
		xtap_sess.locks =
			kcalloc(s->nglobals, sizeof(rwlock_t), GFP_KERNEL);
		err = -ENOMEM;
		if (!xtap_sess.locks)
			goto fail;
		for (i = 0; i < s->nglobals; i++)
			rwlock_init(&xtap_sess.locks[i]);
	}
	err = xtap_stats_create(s);
	if (err)
		goto fail;
	err = xtap_timing_alloc(s);
	if (err)
		goto fail;
	err = xtap_probe_acct_alloc(s);
	if (err)
		goto fail;
	err = xtap_maps_create(s);
	if (err)
		goto fail;
	err = xtap_regexes_create(s);
	if (err)
		goto fail;
	err = xtap_alloc_groups(s);
	if (err)
		goto fail;
	if (s->init_globals)
		s->init_globals();

	snprintf(dirname, sizeof(dirname), XTAP_DEBUGFS_PREFIX "%s",
		 module_name(THIS_MODULE));
	xtap_sess.dir = debugfs_create_dir(dirname, NULL);
	if (IS_ERR_OR_NULL(xtap_sess.dir)) {
		err = xtap_sess.dir ? PTR_ERR(xtap_sess.dir) : -ENODEV;
		xtap_sess.dir = NULL;
		pr_err(XTAP_PFX "cannot create debugfs directory %s (%d)\n",
		       dirname, err);
		goto fail;
	}
	xtap_binary_output = false;
	if (s->formats_len) {
		xtap_formats_blob.data = (void *)s->formats;
		xtap_formats_blob.size = s->formats_len;
		debugfs_create_blob("formats", 0400, xtap_sess.dir,
				    &xtap_formats_blob);
	}
	err = xtap_snapshot_init(xtap_sess.dir);
	if (err)
		goto fail_dir;
	err = xtap_relay_init(xtap_sess.dir);
	if (err)
		goto fail_dir;
	err = xtap_report_init();
	if (err)
		goto fail_relay;
	err = xtap_control_init(xtap_sess.dir, &xtap_session_control);
	if (err)
		goto fail_report;
	xtap_hello();
	return 0;

fail_report:
	xtap_report_exit();
fail_relay:
	xtap_relay_exit();
fail_dir:
	debugfs_remove_recursive(xtap_sess.dir);
fail:
	xtap_session_free();
	return err;
}

void xtap_session_exit(void)
{
	/* The runner may be gone: stop without end probes if still live. */
	xtap_cmd_stop(false);
	xtap_control_exit();
	xtap_report_exit();
	xtap_relay_exit();
	debugfs_remove_recursive(xtap_sess.dir);
	xtap_session_free();
}

const char *xtap_errno_text(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such symbol";
	case EINVAL:
		return "invalid or blacklisted probe address";
	case EILSEQ:
		return "not an instruction boundary";
	case EBUSY:
		return "probe point busy";
	case EEXIST:
		return "already probed";
	case ENOMEM:
		return "out of memory";
	case EOPNOTSUPP:
		return "not supported on this kernel";
	case EACCES:
	case EPERM:
		return "not permitted";
	default:
		return "registration failed";
	}
}
