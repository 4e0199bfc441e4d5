// SPDX-License-Identifier: GPL-2.0
/*
 * User-space symbols: usymname(), usymdata(), umodname(), usymfileline().
 *
 * The translator embeds the symbol (and, when asked, line) tables of the
 * programs and libraries the script names, keyed by path; module init ties
 * each to its inode. A user address is mapped to its vma in current->mm,
 * and through the vma's file and page offset to a file offset, which the
 * tables are sorted by. Probes may run in interrupt context, so the mm
 * lock is only ever tried, never waited for, and not taken at all where
 * releasing it could deadlock (see xtap_vmas_readable()); then addresses
 * print as hex, as stap prints addresses it has no symbols for.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/irq_regs.h>
#include "compat/mm.h"
#include "internal.h"
#include "user_symbols.h"

struct xtap_ubin_state {
	const struct xtap_ubinary *bin;
	struct path path; /* held: keeps the inode the vmas are compared with */
	struct inode *inode; /* NULL: the file is missing or not the one read */
};

static struct xtap_ubin_state *xtap_ubins;
static u32 xtap_nubins;
static bool xtap_ucfi_any; /* a table with CFI is tied to its file */

int xtap_usyms_init(const struct xtap_ubinary *bins, u32 n)
{
	u32 i;

	xtap_ubins = kcalloc(n, sizeof(*xtap_ubins), GFP_KERNEL);
	if (!xtap_ubins)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct xtap_ubin_state *st = &xtap_ubins[i];
		struct inode *inode;

		st->bin = &bins[i];
		if (kern_path(bins[i].path, LOOKUP_FOLLOW, &st->path))
			continue;
		inode = d_real_inode(st->path.dentry);
		if (i_size_read(inode) != bins[i].file_size) {
			/* another build of the file: its symbols would lie */
			pr_warn("xtap: %s is not the file its symbols were read from; its addresses print as hex\n",
				bins[i].path);
			path_put(&st->path);
			continue;
		}
		st->inode = inode;
		if (bins[i].ncfi)
			xtap_ucfi_any = true;
	}
	xtap_nubins = n;
	return 0;
}

void xtap_usyms_exit(void)
{
	u32 i;

	for (i = 0; i < xtap_nubins; i++)
		if (xtap_ubins[i].inode)
			path_put(&xtap_ubins[i].path);
	kfree(xtap_ubins);
	xtap_ubins = NULL;
	xtap_nubins = 0;
	xtap_ucfi_any = false;
}

bool xtap_ucfi_loaded(void)
{
	return xtap_ucfi_any;
}

const struct xtap_ubinary *xtap_ubin_of_vma(struct vm_area_struct *vma)
{
	struct inode *inode = file_inode(vma->vm_file);
	u32 i;

	for (i = 0; i < xtap_nubins; i++)
		if (xtap_ubins[i].inode == inode)
			return xtap_ubins[i].bin;
	return NULL;
}

/*
 * May this probe run read current's vmas? The trylock itself never waits,
 * but the unlock may wake a waiting writer, which takes scheduler locks:
 * safe when the probed code ran with interrupts on (it held no such lock)
 * or when an interrupt came straight from user space; never in NMI.
 */
bool xtap_vmas_readable(struct xtap_context *c)
{
	struct pt_regs *regs = c->regs;

	if (in_nmi() || !current->mm || (current->flags & PF_KTHREAD))
		return false;
	if (!irqs_disabled_flags(c->irqflags) && !in_hardirq())
		return true;
	if (!regs && in_hardirq())
		regs = get_irq_regs();
	return regs && user_mode(regs);
}

/*
 * The path of a dentry within its file system, built from the names up to
 * its root under RCU (dentries are freed after a grace period) with nofault
 * copies, so that a concurrent rename yields a stale name, not a fault or
 * a wait: d_path() may spin on rename_lock, which the interrupted code may
 * hold. Files on other mounts lose the mount point's prefix.
 */
static void xtap_dentry_path_rcu(struct dentry *d, char *buf, size_t size)
{
	char *p = buf + size - 1;
	int depth;

	*p = '\0';
	rcu_read_lock();
	for (depth = 0; depth < 64; depth++) {
		struct dentry *parent = READ_ONCE(d->d_parent);
		u32 len = READ_ONCE(d->d_name.len);

		if (parent == d || !len || len > NAME_MAX || len >= p - buf - 1)
			break;
		/*
		 * The name lands at buf's start, then moves before the tail; a
		 * rename racing with us may leave len and the name out of step:
		 * a garbled name, never a fault.
		 */
		if (copy_from_kernel_nofault(buf, READ_ONCE(d->d_name.name),
					     len))
			break;
		len = strnlen(buf, len);
		if (!len)
			break;
		p -= len;
		memmove(p, buf, len);
		*--p = '/';
		d = parent;
	}
	rcu_read_unlock();
	if (!*p)
		*--p = '/';
	memmove(buf, p, strlen(p) + 1);
}

/* The module name of a mapped file no table covers. */
static void xtap_vma_file_name(struct vm_area_struct *vma, char *buf,
			       size_t size)
{
	if (in_task()) {
		char *p = d_path(&vma->vm_file->f_path, buf, size);

		if (!IS_ERR(p)) {
			memmove(buf, p, strlen(p) + 1);
			return;
		}
	}
	xtap_dentry_path_rcu(vma->vm_file->f_path.dentry, buf, size);
}

bool xtap_uresolve(struct xtap_context *c, unsigned long addr,
		   struct xtap_uloc *loc)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	loc->bin = NULL;
	loc->mod[0] = '\0';
	loc->mapped = false;
	if (!addr || addr >= TASK_SIZE || !xtap_vmas_readable(c))
		return false;
	if (!xtap_mm_read_trylock(mm))
		return false;
	vma = xtap_vma_lookup(mm, addr);
	if (vma && vma->vm_file) {
		loc->mapped = true;
		loc->offset =
			addr - vma->vm_start + (vma->vm_pgoff << PAGE_SHIFT);
		loc->map_size = vma->vm_end - vma->vm_start;
		loc->bin = xtap_ubin_of_vma(vma);
		if (!loc->bin)
			xtap_vma_file_name(vma, loc->mod, sizeof(loc->mod));
	}
	xtap_mm_read_unlock(mm);
	return loc->mapped;
}

const struct xtap_usym *xtap_usym_find(const struct xtap_ubinary *bin,
				       u64 offset)
{
	u32 lo = 0, hi = bin->nsyms;

	/* the last symbol starting at or before offset */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (bin->syms[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (offset - bin->syms[lo - 1].offset >=
	    max_t(u32, bin->syms[lo - 1].size, 1))
		return NULL;
	return &bin->syms[lo - 1];
}

static const struct xtap_uline *xtap_uline_find(const struct xtap_ubinary *bin,
						u64 offset)
{
	u32 lo = 0, hi = bin->nlines;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (bin->lines[mid].offset <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !bin->lines[lo - 1].line)
		return NULL;
	return &bin->lines[lo - 1];
}

static const char *xtap_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int xtap_usym_format(struct xtap_context *c, char *buf, size_t size,
		     unsigned long addr, enum xtap_usym_form form)
{
	const struct xtap_usym *sym = NULL;
	const char *mod = NULL, *name = NULL;
	unsigned long off = 0, len = 0;
	struct xtap_uloc loc;

	if (xtap_uresolve(c, addr, &loc)) {
		mod = loc.bin ? loc.bin->path : loc.mod[0] ? loc.mod : NULL;
		sym = loc.bin ? xtap_usym_find(loc.bin, loc.offset) : NULL;
		if (sym) {
			name = loc.bin->names + sym->name;
			off = loc.offset - sym->offset;
			len = sym->size;
		} else {
			off = loc.offset;
			len = loc.map_size;
		}
	}
	if (mod && form == XTAP_USYM_SIMPLE)
		mod = xtap_basename(mod);
	switch (form) {
	case XTAP_USYM_NAME:
		if (name)
			return scnprintf(buf, size, "%s", name);
		return scnprintf(buf, size, "0x%lx", addr);
	case XTAP_USYM_DATA:
		if (name)
			return scnprintf(buf, size, "%s+%#lx/%#lx [%s]", name,
					 off, len, mod);
		if (mod)
			return scnprintf(buf, size, "0x%lx [%s+%#lx/%#lx]",
					 addr, mod, off, len);
		return scnprintf(buf, size, "0x%lx", addr);
	case XTAP_USYM_SIMPLE:
		if (name)
			return scnprintf(buf, size, "%s+%#lx [%s]\n", name, off,
					 mod);
		if (mod)
			return scnprintf(buf, size, "0x%lx [%s+%#lx]\n", addr,
					 mod, off);
		return scnprintf(buf, size, "0x%lx\n", addr);
	case XTAP_USYM_FULL:
		if (name)
			return scnprintf(buf, size,
					 " 0x%lx : %s+%#lx/%#lx [%s]\n", addr,
					 name, off, len, mod);
		if (mod)
			return scnprintf(buf, size, " 0x%lx [%s+%#lx/%#lx]\n",
					 addr, mod, off, len);
		return scnprintf(buf, size, " 0x%lx\n", addr);
	}
	return 0;
}

bool xtap_uaddr_at_function_start(struct xtap_context *c, unsigned long addr)
{
	const struct xtap_usym *sym;
	struct xtap_uloc loc;

	if (!xtap_uresolve(c, addr, &loc) || !loc.bin)
		return false;
	sym = xtap_usym_find(loc.bin, loc.offset);
	return sym && sym->offset == loc.offset;
}

char *xtap_usymname(struct xtap_context *c, char *dst, s64 addr)
{
	xtap_usym_format(c, dst, xtap_sess.limits.maxstringlen, addr,
			 XTAP_USYM_NAME);
	return dst;
}

char *xtap_usymdata(struct xtap_context *c, char *dst, s64 addr)
{
	xtap_usym_format(c, dst, xtap_sess.limits.maxstringlen, addr,
			 XTAP_USYM_DATA);
	return dst;
}

/* The full path of the file mapped at addr; an error where there is none. */
char *xtap_umodname(struct xtap_context *c, char *dst, s64 addr)
{
	u32 size = xtap_sess.limits.maxstringlen;
	struct xtap_uloc loc;

	if (xtap_uresolve(c, addr, &loc) && (loc.bin || loc.mod[0])) {
		strscpy(dst, loc.bin ? loc.bin->path : loc.mod, size);
		return dst;
	}
	strscpy(dst, "<unknown>", size);
	xtap_error(c, "umodname: no module found at user address 0x%llx",
		   (unsigned long long)addr);
	return dst;
}

char *xtap_usymfileline(struct xtap_context *c, char *dst, s64 addr, int which)
{
	u32 size = xtap_sess.limits.maxstringlen;
	const struct xtap_uline *row = NULL;
	struct xtap_uloc loc;

	if (xtap_uresolve(c, addr, &loc) && loc.bin)
		row = xtap_uline_find(loc.bin, loc.offset);
	if (!row)
		snprintf(dst, size, "0x%llx", (unsigned long long)addr);
	else if (which == 1)
		snprintf(dst, size, "%s", loc.bin->files[row->file]);
	else if (which == 2)
		snprintf(dst, size, "%u", row->line);
	else
		snprintf(dst, size, "%s:%u", loc.bin->files[row->file],
			 row->line);
	return dst;
}

/* The kernel's line tables are not embedded: the address, as stap prints it without them. */
char *xtap_symfileline(char *dst, s64 addr)
{
	snprintf(dst, xtap_sess.limits.maxstringlen, "0x%llx",
		 (unsigned long long)addr);
	return dst;
}
