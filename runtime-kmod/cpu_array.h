/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One buffer per possible CPU, indexed by CPU number: what the runtime
 * keeps per CPU and per probe, statistic or -t counter. Not per-CPU
 * memory: __alloc_percpu() refuses (with a WARN in pcpu_alloc) more than
 * 32 KiB, which a percentile sketch or 64 bytes a probe at 512 probes
 * (syscall.*) passes. Touched by its own CPU with interrupts off, so
 * indexed with raw_smp_processor_id().
 */
#ifndef XTAP_CPU_ARRAY_H
#define XTAP_CPU_ARRAY_H

#include <linux/types.h>

/* Zeroed buffers of `size` bytes on each CPU's node; NULL on failure. */
void **xtap_cpu_array_alloc(size_t size);
/* Frees what xtap_cpu_array_alloc returned; NULL is fine. */
void xtap_cpu_array_free(void **a);

#endif
