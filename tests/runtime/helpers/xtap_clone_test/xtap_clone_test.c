// SPDX-License-Identifier: GPL-2.0
/*
 * A helper module for xtap's clone tests (tests/runtime/dwarf/clone_*):
 * static functions GCC clones at -O2 (IPA-SRA drops an unused parameter:
 * xct_scale.isra.0; IPA-CP fixes a constant one: xct_add.constprop.0),
 * built with DWARF by Kbuild on the host and loaded in the VM before the
 * test's script. Writing N to /sys/kernel/debug/xtap_clone_test calls
 * them with N.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

long xct_seen;

static noinline void xct_sink(long v) { WRITE_ONCE(xct_seen, v); }

/* `unused` is never read: IPA-SRA removes it from the clone. */
static noinline long xct_scale(long value, long unused, long factor) {
  xct_sink(value);
  return value * factor;
}

/* Every call passes 7 as `step`: IPA-CP folds it into the clone. */
static noinline long xct_add(long base, long step) {
  xct_sink(base);
  return base + step;
}

static ssize_t xct_write(struct file *f, const char __user *buf, size_t len, loff_t *pos) {
  char tmp[16] = {0};
  long n;

  if (len >= sizeof(tmp)) return -EINVAL;
  if (copy_from_user(tmp, buf, len)) return -EFAULT;
  if (kstrtol(strim(tmp), 10, &n)) return -EINVAL;
  xct_sink(xct_scale(n, len, n + 1));
  xct_sink(xct_add(n * 10, 7));
  xct_sink(xct_add(n * 100, 7));
  return len;
}

static const struct file_operations xct_fops = {
    .owner = THIS_MODULE,
    .write = xct_write,
};

static struct dentry *xct_file;

static int __init xct_init(void) {
  xct_file = debugfs_create_file("xtap_clone_test", 0200, NULL, NULL, &xct_fops);
  return 0;
}

static void __exit xct_exit(void) { debugfs_remove(xct_file); }

module_init(xct_init);
module_exit(xct_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xtap clone test helper");
