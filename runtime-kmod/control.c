// SPDX-License-Identifier: GPL-2.0
/*
 * The ctl file: the runner's commands, passed on to the session through
 * struct xtap_control_ops, and the messages of report.c's queue, read out.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include "internal.h"
#include "compat/fs.h"

static struct dentry *xtap_ctl;
/* One collector at a time: its close is how the module learns it is gone. */
static atomic_t xtap_ctl_open;
/* DETACH was asked: the collector's close leaves the session running. */
static atomic_t xtap_detached;
static const struct xtap_control_ops *xtap_ctl_ops;

static ssize_t xtap_ctl_read(struct file *f, char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	size_t len = min_t(size_t, count, XTAP_MSGQ_SIZE);
	ssize_t ret;
	size_t n;
	u8 *buf;

	if (len < sizeof(struct xtap_msg_hdr))
		return -EINVAL;
	buf = kmalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = xtap_msgq_pop(buf, len);
		if (n)
			break;
		if (xtap_msgq_pending()) {
			ret = -EINVAL; /* the next message does not fit */
			goto out;
		}
		if (xtap_msgq_done()) {
			ret = 0; /* DONE was read and nothing follows: EOF */
			goto out;
		}
		if (f->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(*xtap_msgq_waitq(),
					       xtap_msgq_readable());
		if (ret)
			goto out;
	}
	ret = copy_to_user(ubuf, buf, n) ? -EFAULT : n;
out:
	kfree(buf);
	return ret;
}

static ssize_t xtap_ctl_write(struct file *f, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct xtap_cmd cmd;
	int err;

	if (count < sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(&cmd, ubuf, sizeof(cmd)))
		return -EFAULT;
	if (cmd.size < sizeof(cmd) || cmd.size > count || cmd.abi < 1)
		return -EINVAL;

	switch (cmd.type) {
	case XTAP_CMD_START:
		err = xtap_ctl_ops->start(cmd.arg);
		break;
	case XTAP_CMD_STOP:
		xtap_ctl_ops->stop(true);
		err = 0;
		break;
	case XTAP_CMD_BINARY:
		/*
		 * Before START only, so that no handler sees the mode change;
		 * a collector attaching again (-A) finds it on already.
		 */
		err = READ_ONCE(xtap_binary_output) ||
				      xtap_state() == XTAP_ST_INIT ?
			      0 :
			      -EINVAL;
		if (!err)
			WRITE_ONCE(xtap_binary_output, true);
		break;
	case XTAP_CMD_DETACH:
		if (xtap_state() != XTAP_ST_RUNNING) {
			err = -EINVAL;
			break;
		}
		xtap_relay_set_flight(true);
		atomic_set(&xtap_detached, 1);
		err = 0;
		break;
	default:
		err = -EINVAL;
	}
	return err ? err : count;
}

static int xtap_ctl_open_file(struct inode *inode, struct file *f)
{
	if (atomic_cmpxchg(&xtap_ctl_open, 0, 1) != 0)
		return -EBUSY; /* a collector is attached */
	xtap_ctl_ops->collector_opened();
	/*
	 * A collector attaching to a detached session (-A): greet it as at
	 * load, and stop overwriting, so that it reads everything from now on.
	 */
	if (atomic_xchg(&xtap_detached, 0)) {
		xtap_relay_set_flight(false);
		xtap_ctl_ops->reattached();
	}
	return nonseekable_open(inode, f);
}

/*
 * The collector closed the control file. After DONE this is the normal end;
 * before it, the collector died (kill -9) or gave up: nobody reads the
 * output any more, so stop every probe now, without end probes, and leave
 * a module that can be removed (xtap-run --cleanup does).
 */
static int xtap_ctl_release(struct inode *inode, struct file *f)
{
	if (atomic_read(&xtap_detached) && xtap_state() == XTAP_ST_RUNNING) {
		pr_info("xtap: %s: detached in flight-recorder mode; xtap-run -A %s attaches\n",
			THIS_MODULE->name, THIS_MODULE->name);
	} else if (xtap_state() != XTAP_ST_DONE) {
		pr_warn("xtap: %s: the collector went away; stopping the probes\n",
			THIS_MODULE->name);
		xtap_ctl_ops->stop(false);
	}
	atomic_set(&xtap_ctl_open, 0);
	return 0;
}

static __poll_t xtap_ctl_poll(struct file *f, struct poll_table_struct *pt)
{
	poll_wait(f, xtap_msgq_waitq(), pt);
	return xtap_msgq_readable() ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct file_operations xtap_ctl_fops = {
	.owner = THIS_MODULE,
	.open = xtap_ctl_open_file,
	.release = xtap_ctl_release,
	.read = xtap_ctl_read,
	.write = xtap_ctl_write,
	.poll = xtap_ctl_poll,
	.llseek = xtap_no_llseek,
};

int xtap_control_init(struct dentry *dir, const struct xtap_control_ops *ops)
{
	int err;

	xtap_ctl_ops = ops;
	atomic_set(&xtap_ctl_open, 0);
	atomic_set(&xtap_detached, 0);
	xtap_ctl = debugfs_create_file("ctl", 0600, dir, NULL, &xtap_ctl_fops);
	if (IS_ERR(xtap_ctl)) {
		err = PTR_ERR(xtap_ctl);
		xtap_ctl = NULL;
		return err;
	}
	return 0;
}

void xtap_control_exit(void)
{
	debugfs_remove(xtap_ctl);
	xtap_ctl = NULL;
}
