/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xtap module <-> runner ABI: the control file and relay record formats.
 *
 * Included by the kernel runtime and by the user-space runner (xtap-run),
 * so it uses only fixed-width __u types. Every structure starts with its own
 * size so that a newer runner can step over fields it does not know and an
 * older one can ignore trailing ones. Bump XTAP_ABI_VERSION on any change
 * that an older peer cannot ignore.
 *
 * Files, under debugfs (normally /sys/kernel/debug):
 *   xtap_<module>/ctl        control channel (read: messages, write: commands)
 *   xtap_<module>/trace<N>   relay channel of CPU N (read: records)
 *   xtap_<module>/snapshot   the globals and counters now (see below)
 */
#ifndef XTAP_ABI_H
#define XTAP_ABI_H

#include <linux/types.h>

#define XTAP_ABI_VERSION 1
#define XTAP_DEBUGFS_PREFIX "xtap_"

/* Commands, written by the runner to ctl, one struct per write(). */
enum xtap_cmd_type {
	XTAP_CMD_START =
		1, /* arg = target pid (0 if none): run begin, arm probes */
	XTAP_CMD_STOP = 2, /* disarm probes, run end probes, report DONE */
	/*
	 * Flight-recorder mode (xtap-run -F): the collector is about to close
	 * ctl without stopping the session. The probes keep running, the relay
	 * buffers keep the newest output (the oldest sub-buffers are
	 * overwritten), and the next collector to open ctl (xtap-run -A) gets
	 * HELLO and STARTED again, then the retained output.
	 */
	XTAP_CMD_DETACH = 3,
	/*
	 * Sent before START by a runner that read the module's format table
	 * (xtap_<module>/formats): printf with a constant format may then
	 * write XTAP_REC_FORMATTED records, which the runner formats. Without
	 * it (an older runner) every printf is formatted in the kernel.
	 */
	XTAP_CMD_BINARY = 4,
};

struct xtap_cmd {
	__u32 size; /* sizeof(struct xtap_cmd) as the runner knows it */
	__u16 type; /* enum xtap_cmd_type */
	__u16 abi; /* XTAP_ABI_VERSION of the runner */
	__s64 arg;
};

/*
 * Messages, read by the runner from ctl. One read() returns one or more
 * whole messages; a message never straddles two reads. Reads block until a
 * message is queued (poll() is supported).
 */
enum xtap_msg_type {
	XTAP_MSG_HELLO =
		1, /* payload: struct xtap_hello; first message queued */
	XTAP_MSG_STARTED = 2, /* begin probes ran, probes armed; no payload */
	XTAP_MSG_ERROR =
		3, /* payload: NUL-terminated text ("division by 0 near ...") */
	XTAP_MSG_WARNING = 4, /* payload: NUL-terminated text */
	XTAP_MSG_EXIT =
		5, /* the script asked to end (exit() or an error limit) */
	XTAP_MSG_DONE = 6, /* payload: struct xtap_done; last message */
	XTAP_MSG_SYSTEM =
		7, /* payload: NUL-terminated command for the runner to run
			       * with /bin/sh -c (system()); older runners skip it */
	/*
	 * Payload: struct xtap_probe_stats. Sent before DONE, one per probe
	 * that skipped runs or lost output; older runners skip it.
	 */
	XTAP_MSG_PROBE_STATS = 8,
};

struct xtap_msg_hdr {
	__u32 size; /* header + payload, in bytes */
	__u16 type; /* enum xtap_msg_type */
	__u16 abi; /* XTAP_ABI_VERSION of the module */
};

struct xtap_hello {
	__u32 size;
	__u32 ncpus; /* number of trace<N> files (possible CPUs) */
	__u64 subbuf_size; /* relay sub-buffer size */
	__u64 n_subbufs; /* relay sub-buffers per CPU */
	char script[64]; /* script name, NUL-terminated */
};

struct xtap_done {
	__u32 size;
	__u32 reserved;
	__u64 dropped_records; /* output records that did not fit a relay buffer */
	__u64 dropped_bytes;
	__u64 errors; /* run-time errors raised by handlers */
	__u64 skipped; /* handler runs skipped (reentrancy, lock contention) */
	__u64 hits; /* handler runs completed */
	__u64 warnings;
	/* Appended: of skipped, the runs stap reports on their own lines. */
	__u64 skipped_reentrant; /* "Skipped due to reentrancy: N" */
	__u64 skipped_lock; /* "Skipped due to global lock timeout: N" */
	/*
	 * Appended: runs the overload guard skipped instead of ending the
	 * session (not in skipped, and not counted against MAXSKIPPED).
	 */
	__u64 skipped_budget; /* a probe over its own budget */
	__u64 skipped_overload; /* the CPU over STP_OVERLOAD_THRESHOLD */
	__u64 probe_stats_lost; /* PROBE_STATS messages that did not fit the queue */
};

/*
 * One probe's losses, at the end of the session: what the guard skipped
 * and why, what the other skips were, and the output records it wrote
 * that found its CPU's buffer full. The probe point and its location in
 * the script follow, each NUL-terminated.
 */
struct xtap_probe_stats {
	__u32 size; /* of this structure, as the module knows it */
	__u32 index; /* the probe's place in the script's table, from 0 */
	__u64 budget_ns; /* its budget: handler ns per second per CPU; 0: none */
	__u64 skipped_budget;
	__u64 skipped_overload;
	__u64 skipped_reentrant;
	__u64 skipped_lock;
	__u64 dropped_records;
	__u64 dropped_bytes;
};

/* Relay records: per CPU, each record whole within one sub-buffer. */
enum xtap_rec_type {
	XTAP_REC_TEXT = 1, /* payload: formatted output bytes (no NUL) */
	XTAP_REC_SWITCH_FILE =
		2, /* no payload: switch_file(); with -o FILE -S, the
				   * runner goes on in the next output file here.
				   * Older runners skip it. */
	/*
	 * Payload: items, each a __u32 format id and its data. Id 0 is text
	 * (a __u32 length and the bytes); id N is format N of the table (1 is
	 * the first) followed by its arguments in order: a __u64 per number
	 * ('*' widths and precisions too) and a __u32 length and the bytes per
	 * string, unaligned, in the machine's byte order. Written only after
	 * XTAP_CMD_BINARY.
	 */
	XTAP_REC_FORMATTED = 3,
};

/*
 * xtap_<module>/formats: the printf formats of XTAP_REC_FORMATTED, as the
 * script wrote them (escapes resolved): XTAP_FORMATS_MAGIC, then per
 * format a __u32 length and the bytes. Absent in modules without it.
 */
#define XTAP_FORMATS_MAGIC "XTF1"

struct xtap_rec_hdr {
	__u32 size; /* header + payload, not padded */
	__u16 type; /* enum xtap_rec_type */
	__u16 flags;
	__u64 seq; /* session-wide sequence number: the runner prints in seq order */
};

/*
 * Snapshots: the running script's counters and globals, read by the runner
 * at any time (xtap-run --prometheus; later --monitor and fleet merges).
 *
 *   xtap_<module>/snapshot_names  written once at load: what the globals
 *       and timed probes are (struct xtap_snap_names, then per global a
 *       struct xtap_snap_global_desc and its name, per probe a struct
 *       xtap_snap_probe_desc and its point).
 *   xtap_<module>/snapshot  made afresh at each open: struct xtap_snap_hdr,
 *       then records (struct xtap_snap_rec and a payload, unaligned: read
 *       them with memcpy). Read it whole from offset 0 after one open.
 *
 * Strings are a __u32 length and the bytes (no NUL). Every structure
 * starts with its size: a reader steps over fields it does not know and
 * over records of types it does not know (rec.size). XTAP_SNAP_VERSION
 * changes only when an older reader would misread a dump.
 */
#define XTAP_SNAP_MAGIC 0x50534e58 /* "XNSP" in little-endian order */
/*
 * 2: a statistic carries its percentile sketch after its histogram
 * (xtap_snap_stat.npct), so that dumps of several hosts merge exactly.
 */
#define XTAP_SNAP_VERSION 2
/* Entries of one array per read; the record's flags say when it was hit. */
#define XTAP_SNAP_MAX_ENTRIES 1000

struct xtap_snap_names {
	__u32 size;
	__u32 magic; /* XTAP_SNAP_MAGIC */
	__u16 version; /* XTAP_SNAP_VERSION */
	__u16 reserved;
	__u32 nglobals; /* global i is index i of XTAP_SNAP_GLOBAL records */
	__u32 nprobes; /* probe i is index i of XTAP_SNAP_PROBE records */
	__u32 max_entries; /* XTAP_SNAP_MAX_ENTRIES of the module */
};

enum xtap_snap_kind {
	XTAP_SNAP_SCALAR = 1, /* a number or a string */
	XTAP_SNAP_ARRAY = 2, /* keys -> number, string or statistic */
	XTAP_SNAP_STAT = 3, /* a scalar statistic */
};

struct xtap_snap_global_desc {
	__u32 size; /* this structure and the name after it */
	__u8 kind; /* enum xtap_snap_kind */
	__u8 value_type; /* 1 number, 2 string, 3 statistic (runtime.h's xtap_type) */
	__u8 nkeys; /* arrays */
	__u8 hist; /* 0 none, 1 @hist_linear, 2 @hist_log */
	__u8 key_types[9]; /* 1 number, 2 string */
	__u8 pct_bits; /* the percentile sketch's k, 0: none (stat.h) */
	__u8 reserved[2];
	__s64 lo, hi, step; /* @hist_linear(v, lo, hi, step) */
	__u32 nbuckets; /* histogram buckets of each statistic */
	__u32 name_len; /* then the name's bytes */
	__u32 npct; /* percentile sketch buckets of each statistic (v2) */
	__u32 reserved2;
};

struct xtap_snap_probe_desc {
	__u32 size; /* this structure and the point after it */
	__u32 point_len; /* then the probe point's bytes */
};

struct xtap_snap_hdr {
	__u32 size;
	__u32 magic; /* XTAP_SNAP_MAGIC */
	__u16 version; /* XTAP_SNAP_VERSION */
	__u16 abi; /* XTAP_ABI_VERSION */
	__u32 nrecords;
	__u64 total; /* bytes of the dump, this header included */
	__u64 time_ns; /* CLOCK_REALTIME when the dump was made */
	__u32 state; /* the session's state: 0 loaded ... 5 done */
	__u32 reserved;
};

enum xtap_snap_rec_type {
	XTAP_SNAP_REC_SESSION = 1, /* struct xtap_snap_session */
	XTAP_SNAP_REC_PROBE = 2, /* struct xtap_snap_probe (index: the probe) */
	/*
	 * index: the global. A number: __s64. A string: length and bytes. A
	 * statistic: struct xtap_snap_stat, its histogram's buckets, then its
	 * percentile sketch's buckets in value order (__s64 each). An
	 * array: struct xtap_snap_array, then per entry its keys (__s64 or a
	 * string each) and its value (as for a scalar of that type).
	 */
	XTAP_SNAP_REC_GLOBAL = 3,
};

/*
 * Record flags. TRUNCATED: an array had more entries than the record
 * carries. LOCK_TIMEOUT: the global's lock was not had within maxtrylock
 * (probes held it); the record has no payload.
 */
#define XTAP_SNAP_F_TRUNCATED 1
#define XTAP_SNAP_F_LOCK_TIMEOUT 2

struct xtap_snap_rec {
	__u32 size; /* this header and the payload */
	__u16 type; /* enum xtap_snap_rec_type */
	__u16 flags; /* XTAP_SNAP_F_* */
	__u32 index;
};

struct xtap_snap_session {
	__u32 size;
	__u32 reserved;
	__u64 hits; /* handler runs completed */
	__u64 skipped; /* handler runs skipped, of which: */
	__u64 skipped_reentrant;
	__u64 skipped_lock;
	__u64 errors;
	__u64 warnings;
	__u64 dropped_records; /* output that did not fit a relay buffer */
	__u64 dropped_bytes;
};

/*
 * One timed probe (-t): its handler runs and their cycles. Counters added
 * later (per-probe skips, lost records) are appended after these.
 */
struct xtap_snap_probe {
	__u32 size;
	__u32 reserved;
	__u64 hits;
	__u64 cycles_sum;
	__u64 cycles_min;
	__u64 cycles_max;
};

struct xtap_snap_stat {
	__u32 size;
	__u32 nbuckets; /* __s64 counts after this structure */
	__s64 count, sum, min, max; /* min and max are 0 when count is 0 */
	__u32 npct; /* sketch counts after the histogram's (v2) */
	__u32 reserved;
};

struct xtap_snap_array {
	__u32 size;
	__u32 nentries; /* entries in this record */
	__u32 total; /* entries the array held */
	__u32 reserved;
};

#endif /* XTAP_ABI_H */
