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

#endif /* XTAP_ABI_H */
