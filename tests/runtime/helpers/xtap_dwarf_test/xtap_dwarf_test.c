// SPDX-License-Identifier: GPL-2.0
/*
 * A helper module for xtap's DWARF tests (tests/runtime/dwarf/module_*):
 * functions with known parameters, locals, lines and a label, built with
 * DWARF by Kbuild on the host and loaded in the VM before the test's
 * script. Writing N to /sys/kernel/debug/xtap_dwarf_test calls xdt_run(N).
 * The tests name lines of this file: keep the marked lines where they are.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>
struct xdt_point; long xdt_many(long, long, long, long, long, long, long, struct xdt_point); struct xdt_flags; static long xdt_flags_seen(struct xdt_flags *); extern struct xdt_flags xdt_flags;
struct xdt_point {
	long x;
	long y;
	const char *label;
};

long xdt_seen;

static noinline void xdt_sink(long v)
{
	WRITE_ONCE(xdt_seen, v);
}

static noinline long xdt_scale(struct xdt_point *p, long factor)
{
	long sum = p->x * factor;

	xdt_sink(sum);
	sum += p->y * factor;	/* line 34: sum is x * factor here */
	xdt_sink(sum);
	return sum;
}

static noinline long xdt_run(long n)
{
	struct xdt_point pt = { .x = n, .y = n + 1, .label = "xdt" };
	long total = 0;
	long i;

	if (n < 0)
		goto out;
	for (i = 0; i < n; i++)
		total += xdt_scale(&pt, i + 1);
out:
	xdt_sink(total);
	return total;
}

/*
 * Globals for @var and $global (module_var*.test): a file static, a
 * global struct, and a static whose name a local of xdt_bump shadows.
 */
static int xdt_calls;
struct xdt_point xdt_origin = { .x = 7, .y = 11, .label = "origin" };
static long xdt_shadowed = 1000;

/*
 * For guru-mode assignments (module_assign*.test): a probe at entry may
 * change $v (a register) or $p->x (memory); xdt_seen shows the result.
 */
static noinline long xdt_double(long v)
{
	static long xdt_doubled;	/* a function-scope static: module_static.test */

	WRITE_ONCE(xdt_doubled, xdt_doubled + v);
	return v * 2;
}

static noinline long xdt_bump(struct xdt_point *p, long xdt_shadowed)
{
	xdt_calls++;
	return p->x + xdt_shadowed + xdt_calls;
}

/*
 * For .inline probes (module_inline.test): a function forced inline into
 * two callers; xtap probes each copy's entry and reads its parameters
 * from the copy's own DWARF.
 */
static __always_inline long xdt_mix(long a, long b)
{
	/* Calls keep a and b live, so each copy has locations for them. */
	xdt_sink(a);
	xdt_sink(b);
	return a * 3 + b;
}

static noinline long xdt_mix_first(long n)
{
	return xdt_mix(n, 1);
}

static noinline long xdt_mix_second(long n)
{
	return xdt_mix(n + 10, 2);
}

static ssize_t xdt_write(struct file *f, const char __user *buf, size_t len, loff_t *pos)
{
	char tmp[16] = { 0 };
	long n;

	if (len >= sizeof(tmp))
		return -EINVAL;
	if (copy_from_user(tmp, buf, len))
		return -EFAULT;
	if (kstrtol(strim(tmp), 10, &n))
		return -EINVAL;
	xdt_run(n);
	xdt_origin.x += n;
	xdt_sink(xdt_double(n));
	xdt_sink(xdt_bump(&xdt_origin, n) + READ_ONCE(xdt_shadowed));
	xdt_sink(xdt_mix_first(n) + xdt_mix_second(n));
	xdt_sink(xdt_many(n, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6, xdt_origin)); xdt_sink(xdt_flags_seen(&xdt_flags));
	return len;
}

/*
 * Parameters passed on the stack (function_stack_params.test): the seventh
 * and a struct by value, which x86-64 passes in memory above the return
 * address, where DWARF says they are at the entry; not static, so that GCC
 * keeps its calling convention.
 */
noinline long xdt_many(long a1, long a2, long a3, long a4, long a5, long a6, long a7,
			      struct xdt_point byval)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + byval.x + byval.y;
}

static const struct file_operations xdt_fops = {
	.owner = THIS_MODULE,
	.write = xdt_write,
};

static struct dentry *xdt_file;

static int __init xdt_init(void)
{
	xdt_file = debugfs_create_file("xtap_dwarf_test", 0200, NULL, NULL, &xdt_fops);
	return 0;
}

static void __exit xdt_exit(void)
{
	debugfs_remove(xdt_file);
}

module_init(xdt_init);
module_exit(xdt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xtap DWARF test helper");

/*
 * Bitfields a guru-mode probe writes (dwarf/bitfield_write.test): the
 * neighbours of the written fields must keep their bits. At the end of the
 * file, declared on the first lines, so that the line numbers other tests
 * name do not move.
 */
struct xdt_flags {
	unsigned int mode : 3, ready : 1, count : 12;
	int level : 5;
	long tail;
};
struct xdt_flags xdt_flags = { .mode = 1, .ready = 0, .count = 7, .level = -3, .tail = 99 };

static noinline long xdt_flags_seen(struct xdt_flags *f)
{
	return f->mode + f->ready + f->count + f->level;
}
