// SPDX-License-Identifier: GPL-2.0
/* One buffer per possible CPU (cpu_array.h). */
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include "cpu_array.h"

void xtap_cpu_array_free(void **a)
{
	int cpu;

	if (!a)
		return;
	for_each_possible_cpu(cpu)
		kvfree(a[cpu]);
	kfree(a);
}

void **xtap_cpu_array_alloc(size_t size)
{
	void **a = kcalloc(nr_cpu_ids, sizeof(*a), GFP_KERNEL);
	int cpu;

	if (!a)
		return NULL;
	for_each_possible_cpu(cpu) {
		a[cpu] = kvzalloc_node(size, GFP_KERNEL, cpu_to_node(cpu));
		if (!a[cpu]) {
			xtap_cpu_array_free(a);
			return NULL;
		}
	}
	return a;
}
