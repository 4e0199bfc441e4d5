// SPDX-License-Identifier: GPL-2.0
/*
 * Entry values (DW_OP_entry_value) at statements: the argument registers
 * of each call in flight of a function, kept by a kretprobe on it
 * (kprobes.c) and read by the statement probes inside it.
 *
 * A call is found again by its task and its CFA, the stack address just
 * above its return address: the same at the entry and at every statement
 * of one call (the translator works it out from the call frame information
 * at the statement), and different for each live call, recursive ones
 * included. No lock: a slot is claimed with cmpxchg on its CFA, and only
 * the task that owns a stack can claim, fill or look up a slot with that
 * stack's address.
 */
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "internal.h"

int xtap_entry_frames_alloc(struct xtap_entry_frames *f, u32 nslots)
{
	f->slots = kcalloc(nslots, sizeof(*f->slots), GFP_KERNEL);
	if (!f->slots)
		return -ENOMEM;
	f->nslots = nslots;
	return 0;
}

void xtap_entry_frames_free(struct xtap_entry_frames *f)
{
	kfree(f->slots);
	f->slots = NULL;
	f->nslots = 0;
}

static u32 xtap_entry_frame_hash(const struct xtap_entry_frames *f,
				 unsigned long cfa)
{
	return hash_long(cfa, 32) % f->nslots;
}

/*
 * The slot of a call entered with `cfa`, or -1 when all are taken. A slot
 * that already has this CFA belongs to a call that ended without its
 * return handler (its task exited inside the function, and the kernel
 * dropped the instance): no live call can share a stack address, so it is
 * taken over.
 */
int xtap_entry_frame_claim(struct xtap_entry_frames *f, unsigned long cfa,
			   const u64 *args)
{
	u32 start, i;

	if (!f->nslots)
		return -1;
	start = xtap_entry_frame_hash(f, cfa);
	for (i = 0; i < f->nslots; i++) {
		struct xtap_entry_frame *s = &f->slots[(start + i) % f->nslots];

		if (READ_ONCE(s->cfa) == cfa)
			goto take;
	}
	for (i = 0; i < f->nslots; i++) {
		struct xtap_entry_frame *s = &f->slots[(start + i) % f->nslots];

		if (!READ_ONCE(s->cfa) && cmpxchg(&s->cfa, 0UL, cfa) == 0UL)
			goto take;
	}
	return -1;
take:
	i = (start + i) % f->nslots;
	f->slots[i].task = current;
	f->slots[i].args = args;
	return i;
}
NOKPROBE_SYMBOL(xtap_entry_frame_claim);

void xtap_entry_frame_release(struct xtap_entry_frames *f, int slot)
{
	if (slot >= 0 && slot < f->nslots)
		smp_store_release(&f->slots[slot].cfa, 0UL);
}
NOKPROBE_SYMBOL(xtap_entry_frame_release);

u64 xtap_entry_arg(struct xtap_context *c, struct xtap_entry_frames *f, int arg,
		   u64 cfa)
{
	u32 start, i;

	if (arg >= 0 && arg < XTAP_KFUNC_REG_ARGS && f->nslots && cfa) {
		start = xtap_entry_frame_hash(f, cfa);
		for (i = 0; i < f->nslots; i++) {
			struct xtap_entry_frame *s =
				&f->slots[(start + i) % f->nslots];

			if (READ_ONCE(s->cfa) == cfa && s->task == current)
				return s->args[arg];
		}
	}
	xtap_error(
		c,
		"the value at the entry of %s was not saved for this call "
		"(it began before the probes were armed, or more than %u calls were in flight)",
		f->function, f->nslots);
	return 0;
}
NOKPROBE_SYMBOL(xtap_entry_arg);
