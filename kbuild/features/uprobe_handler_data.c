// SPDX-License-Identifier: GPL-2.0
/*
 * Feature test: uprobe consumers' handler and ret_handler take a trailing
 * __u64 *data (a per-call word shared by the entry and return handlers;
 * added after 6.12).
 */
#include <linux/uprobes.h>

static int xtap_ft_handler(struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data) {
  return 0;
}

static int xtap_ft_ret_handler(struct uprobe_consumer *self, unsigned long func,
                               struct pt_regs *regs, __u64 *data) {
  return 0;
}

struct uprobe_consumer xtap_feature_uprobe_handler_data = {
    .handler = xtap_ft_handler,
    .ret_handler = xtap_ft_ret_handler,
};
