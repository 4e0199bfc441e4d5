/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Limits enforced on both sides of the user/kernel line. The translator
 * checks scripts and options against them (pass 2 diagnostics, -D errors),
 * so that the runtime's own checks at session start, which can only fail
 * the session, never fire for a module xtap built. Plain C constants: this
 * header is included by the kernel runtime and by the C++ translator.
 */
#ifndef XTAP_LIMITS_H
#define XTAP_LIMITS_H

/*
 * Regular expressions of =~ and !~: checked by translator/regex/, compiled
 * at session start by runtime-kmod/regex_compile.c.
 */
#define XTAP_RE_MAX_INST \
	2048 /* program size: a match costs at most len * 2048 steps */
#define XTAP_RE_MAX_GROUPS \
	32 /* groups after the 31st group parse but do not capture */
#define XTAP_RE_MAX_DEPTH 16 /* parenthesis nesting: the compiler recurses */
#define XTAP_RE_MAX_REPEAT 1000 /* largest bound of {m,n} */
#define XTAP_RE_MAX_STACKED_REPEATS \
	2 /* operators on one atom, as in a*? (the compiler recurses) */

/*
 * Relay output buffers, per CPU (-D STP_BUFFER_SUBBUF_SIZE, STP_BUFFER_SUBBUFS):
 * the translator's defaults and bounds, and the runtime's defaults for a
 * script that leaves them 0 and its bounds at session start.
 */
#define XTAP_RELAY_DEFAULT_SUBBUF_SIZE (256 * 1024)
#define XTAP_RELAY_DEFAULT_SUBBUFS \
	64 /* 16 MiB per CPU as stap; cut to fit free memory */
#define XTAP_RELAY_MIN_SUBBUF_SIZE 4096
#define XTAP_RELAY_MAX_SUBBUF_SIZE (64 << 20)
#define XTAP_RELAY_MIN_SUBBUFS 2
#define XTAP_RELAY_MAX_SUBBUFS 1024
#define XTAP_RELAY_MAX_BYTES_PER_CPU \
	(256ULL << 20) /* sub-buffer size x count */

/*
 * Linear histograms: at most this many buckets, the underflow and overflow
 * buckets included (stap's STP_MAX_BUCKETS). The one exception to the rule
 * above: as in stap, a @hist_linear the runtime refuses is only a warning
 * in pass 2 (XTP2220), and the session does not start.
 */
#define XTAP_HIST_MAX_BUCKETS 128

/*
 * -D PERCENTILE_BITS: sub-buckets per power of two (2^k) of the percentile
 * sketch; the relative error of @percentile is at most 2^-(k+1).
 */
#define XTAP_PCT_MIN_BITS 1
#define XTAP_PCT_MAX_BITS 6
#define XTAP_PCT_DEFAULT_BITS 4

#endif /* XTAP_LIMITS_H */
