// SPDX-License-Identifier: GPL-2.0
/*
 * Feature test: uprobe_register() returns the struct uprobe (6.12+), undone
 * with uprobe_unregister_nosync() and uprobe_unregister_sync(); before, it
 * returned an int and uprobe_unregister() took the inode and offset.
 */
#include <linux/uprobes.h>

struct uprobe *xtap_feature_uprobe_register(struct inode *inode, struct uprobe_consumer *uc);
struct uprobe *xtap_feature_uprobe_register(struct inode *inode, struct uprobe_consumer *uc) {
  struct uprobe *u = uprobe_register(inode, 0, 0, uc);

  if (!IS_ERR(u)) uprobe_unregister_nosync(u, uc);
  uprobe_unregister_sync();
  return u;
}
