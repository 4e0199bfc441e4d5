// SPDX-License-Identifier: GPL-2.0
/*
 * The user-stack unwinder: each frame's caller from the file's call-frame
 * information (DWARF CFI reduced by the translator to rows of "CFA = rsp
 * or rbp + offset, return address at CFA-8, rbp unchanged or at CFA+off",
 * see struct xtap_ucfi), so that code built without frame pointers (-O2,
 * most of Debian's libraries) unwinds as far as with them. A frame whose
 * file has no table, or whose row does not fit that form, is stepped by
 * its frame pointer instead.
 *
 * The walk reads the task's vmas (which file, at which offset), so it runs
 * only where user_symbols.c may try the mm lock, and takes it once for the
 * whole walk; elsewhere (NMI, the lock taken) the caller follows frame
 * pointers alone. Stack words are read with copy_from_user_nofault(): no
 * fault, no sleep. Work is bounded: at most max frames, each one vma
 * lookup (cached while frames stay in one mapping), a binary search and
 * two reads.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include "compat/maccess.h"
#include "compat/mm.h"
#include "internal.h"
#include "user_symbols.h"

static bool xtap_uword(unsigned long addr, unsigned long *val)
{
	if (addr & (sizeof(long) - 1) || addr >= TASK_SIZE - sizeof(long))
		return false;
	return !copy_from_user_nofault(val, (const void __user *)addr,
				       sizeof(*val));
}

/* The row covering offset: the last one starting at or before it. */
static const struct xtap_ucfi *xtap_ucfi_find(const struct xtap_ubinary *bin,
					      unsigned long offset)
{
	u32 lo = 0, hi = bin->ncfi;

	if (offset > U32_MAX)
		return NULL;
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (bin->cfi[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &bin->cfi[lo - 1] : NULL;
}

/* The caller's registers by a CFI row; false when they cannot be right. */
static bool xtap_ustep_cfi(struct xtap_uframe *f, const struct xtap_ucfi *row)
{
	unsigned long base = row->kind == XTAP_UCFI_RSP ? f->sp : f->bp;
	unsigned long cfa = base + (long)row->cfa_off, ra, bp = f->bp;

	/* the caller's frame lies above the callee's */
	if (cfa <= f->sp || !xtap_uword(cfa - sizeof(long), &ra))
		return false;
	if (row->rbp_off && !xtap_uword(cfa + row->rbp_off, &bp))
		return false;
	f->ip = ra;
	f->sp = cfa;
	f->bp = bp;
	return ra != 0;
}

/*
 * The interrupted registers of a signal frame: at the signal trampoline
 * (__restore_rt) rsp points to the kernel's ucontext, after uc_flags,
 * uc_link and uc_stack (40 bytes) comes struct sigcontext_64, where bp,
 * sp and ip are words 10, 15 and 16.
 */
#define XTAP_UC_SIGCONTEXT 40
static bool xtap_ustep_signal(struct xtap_uframe *f)
{
	unsigned long mc = f->sp + XTAP_UC_SIGCONTEXT, ip, sp, bp;

	if (!xtap_uword(mc + 16 * sizeof(long), &ip) ||
	    !xtap_uword(mc + 15 * sizeof(long), &sp) ||
	    !xtap_uword(mc + 10 * sizeof(long), &bp) || !ip)
		return false;
	f->ip = ip;
	f->sp = sp;
	f->bp = bp;
	f->exact = true;
	return true;
}

/*
 * The caller's registers by the frame pointer: the saved rbp at rbp, the
 * return address above it. At a function's first instruction (a uprobe on
 * it) the frame is not pushed yet: the return address is on top.
 */
static bool xtap_ustep_fp(struct xtap_uframe *f, bool at_entry)
{
	unsigned long frame[2]; /* saved rbp, return address */

	if (at_entry) {
		if (!xtap_uword(f->sp, &frame[1]))
			return false;
		f->ip = frame[1];
		f->sp += sizeof(long);
		return frame[1] != 0;
	}
	if (f->bp < f->sp || f->bp & (sizeof(long) - 1) ||
	    f->bp >= TASK_SIZE - sizeof(frame) ||
	    copy_from_user_nofault(frame, (const void __user *)f->bp,
				   sizeof(frame)))
		return false;
	f->sp = f->bp + sizeof(frame);
	f->bp = frame[0];
	f->ip = frame[1];
	return frame[1] != 0;
}

/* Where the walk is: the mapping of the last frame and its table. */
struct xtap_uwalk {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	const struct xtap_ubinary *bin;
};

/* addr's file offset and table; false when no file maps it. */
static bool xtap_uwalk_locate(struct xtap_uwalk *w, unsigned long addr,
			      unsigned long *offset)
{
	if (!w->vma || addr < w->vma->vm_start || addr >= w->vma->vm_end) {
		w->vma = xtap_vma_lookup(w->mm, addr);
		w->bin = w->vma && w->vma->vm_file ? xtap_ubin_of_vma(w->vma) :
						     NULL;
	}
	if (!w->vma || !w->vma->vm_file)
		return false;
	*offset = addr - w->vma->vm_start + (w->vma->vm_pgoff << PAGE_SHIFT);
	return true;
}

/* One step from frame f to its caller; false at the stack's end. */
static bool xtap_ustep(struct xtap_uwalk *w, struct xtap_uframe *f, bool first,
		       bool entry_check)
{
	/* a return address: the call instruction is just before it */
	unsigned long pc = first || f->exact ? f->ip : f->ip - 1, offset;
	const struct xtap_ucfi *row = NULL;
	const struct xtap_usym *sym;

	if (xtap_uwalk_locate(w, pc, &offset) && w->bin && w->bin->ncfi)
		row = xtap_ucfi_find(w->bin, offset);
	if (row && row->kind == XTAP_UCFI_END)
		return false;
	f->exact = false;
	if (row && row->kind == XTAP_UCFI_SIGNAL)
		return xtap_ustep_signal(f);
	if (row && row->kind != XTAP_UCFI_NONE)
		return xtap_ustep_cfi(f, row);
	sym = first && entry_check && w->bin && w->bin->nsyms ?
		      xtap_usym_find(w->bin, offset) :
		      NULL;
	return xtap_ustep_fp(f, sym && sym->offset == offset);
}

int xtap_user_unwind(struct xtap_context *c, struct xtap_uframe f,
		     bool entry_check, unsigned long *addrs, int max)
{
	struct xtap_uwalk w = { .mm = current->mm };
	int n = 0;

	if (max <= 0 || !xtap_ucfi_loaded() || !xtap_vmas_readable(c) ||
	    !xtap_mm_read_trylock(w.mm))
		return -1;
	addrs[n++] = f.ip;
	while (n < max && xtap_ustep(&w, &f, n == 1, entry_check)) {
		if (f.ip >= TASK_SIZE)
			break;
		addrs[n++] = f.ip;
	}
	xtap_mm_read_unlock(w.mm);
	return n;
}
