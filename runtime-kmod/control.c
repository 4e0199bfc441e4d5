// SPDX-License-Identifier: GPL-2.0
/* The ctl file: commands from the runner, a message queue fed from any context. */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kfifo.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include "internal.h"
#include "compat/fs.h"

#define XTAP_MSGQ_SIZE (64 * 1024) /* power of two (kfifo) */
/* Room kept for STARTED/EXIT/DONE so that a flood of errors cannot block them. */
#define XTAP_MSGQ_RESERVE 1024
#define XTAP_MSG_TEXT_MAX 1024

static DEFINE_SPINLOCK(xtap_msgq_lock);
static struct kfifo xtap_msgq;
static DECLARE_WAIT_QUEUE_HEAD(xtap_msgq_wait);
static struct irq_work xtap_wake_work;
static struct dentry *xtap_ctl;
static atomic_t xtap_msgs_lost;
/* One collector at a time: its close is how the module learns it is gone. */
static atomic_t xtap_ctl_open;
static bool xtap_done_read; /* under xtap_msgq_lock */
/* DETACH was asked: the collector's close leaves the session running. */
static atomic_t xtap_detached;

static void xtap_wake_reader(struct irq_work *w)
{
	wake_up_interruptible(&xtap_msgq_wait);
}

static bool xtap_msg_vital(u16 type)
{
	return type != XTAP_MSG_ERROR && type != XTAP_MSG_WARNING;
}

/*
 * Queue one message made of two payload parts. Safe with interrupts off and
 * from NMI: never sleeps or allocates, and wakes the reader through irq_work
 * rather than directly.
 */
static void xtap_msg_queue2(u16 type, const void *a, u32 alen, const void *b,
			    u32 blen)
{
	struct xtap_msg_hdr h = {
		.size = sizeof(h) + alen + blen,
		.type = type,
		.abi = XTAP_ABI_VERSION,
	};
	u32 need = h.size + (xtap_msg_vital(type) ? 0 : XTAP_MSGQ_RESERVE);
	unsigned long flags = 0;
	bool nmi = in_nmi();
	bool queued = false;

	if (nmi) {
		if (!spin_trylock(&xtap_msgq_lock))
			goto lost;
	} else {
		spin_lock_irqsave(&xtap_msgq_lock, flags);
	}
	if (kfifo_avail(&xtap_msgq) >= need) {
		kfifo_in(&xtap_msgq, (const u8 *)&h, sizeof(h));
		if (alen)
			kfifo_in(&xtap_msgq, (const u8 *)a, alen);
		if (blen)
			kfifo_in(&xtap_msgq, (const u8 *)b, blen);
		queued = true;
	}
	if (nmi)
		spin_unlock(&xtap_msgq_lock);
	else
		spin_unlock_irqrestore(&xtap_msgq_lock, flags);
	if (queued) {
		irq_work_queue(&xtap_wake_work);
		return;
	}
lost:
	atomic_inc(&xtap_msgs_lost);
	atomic64_inc(&xtap_sess.warnings);
}

void xtap_msg_queue(u16 type, const void *payload, u32 len)
{
	xtap_msg_queue2(type, payload, len, NULL, 0);
}

/* Text messages carry a NUL-terminated string, cut at XTAP_MSG_TEXT_MAX. */
void xtap_msg_text(u16 type, const char *text)
{
	static const char nul;

	xtap_msg_queue2(type, text, strnlen(text, XTAP_MSG_TEXT_MAX - 1), &nul,
			1);
}

/* system(cmd): the runner runs it in user space, as stap's stapio does. */
void xtap_system(const char *cmd)
{
	xtap_msg_text(XTAP_MSG_SYSTEM, cmd);
}

static bool xtap_msgq_readable(void)
{
	bool ready;
	unsigned long flags;

	spin_lock_irqsave(&xtap_msgq_lock, flags);
	ready = !kfifo_is_empty(&xtap_msgq) || xtap_done_read;
	spin_unlock_irqrestore(&xtap_msgq_lock, flags);
	return ready;
}

/* Pop whole messages into buf (up to len bytes). */
static size_t xtap_msgq_pop(u8 *buf, size_t len)
{
	struct xtap_msg_hdr h;
	unsigned long flags;
	size_t used = 0;

	spin_lock_irqsave(&xtap_msgq_lock, flags);
	while (kfifo_out_peek(&xtap_msgq, (u8 *)&h, sizeof(h)) == sizeof(h) &&
	       used + h.size <= len) {
		if (kfifo_out(&xtap_msgq, buf + used, h.size) != h.size)
			break;
		used += h.size;
		if (h.type == XTAP_MSG_DONE)
			xtap_done_read = true;
	}
	spin_unlock_irqrestore(&xtap_msgq_lock, flags);
	return used;
}

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
		if (!kfifo_is_empty(&xtap_msgq)) {
			ret = -EINVAL; /* the next message does not fit */
			goto out;
		}
		if (READ_ONCE(xtap_done_read)) {
			ret = 0; /* DONE was read and nothing follows: EOF */
			goto out;
		}
		if (f->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(xtap_msgq_wait,
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
		err = xtap_cmd_start(cmd.arg);
		break;
	case XTAP_CMD_STOP:
		xtap_cmd_stop(true);
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
	xtap_note_collector(); /* stp_pid(), is_myproc() */
	/*
	 * A collector attaching to a detached session (-A): greet it as at
	 * load, and stop overwriting, so that it reads everything from now on.
	 */
	if (atomic_xchg(&xtap_detached, 0)) {
		xtap_relay_set_flight(false);
		xtap_greet_attached();
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
		xtap_cmd_stop(false);
	}
	atomic_set(&xtap_ctl_open, 0);
	return 0;
}

static __poll_t xtap_ctl_poll(struct file *f, struct poll_table_struct *pt)
{
	poll_wait(f, &xtap_msgq_wait, pt);
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

int xtap_control_init(struct dentry *dir)
{
	int err;

	err = kfifo_alloc(&xtap_msgq, XTAP_MSGQ_SIZE, GFP_KERNEL);
	if (err)
		return err;
	init_irq_work(&xtap_wake_work, xtap_wake_reader);
	atomic_set(&xtap_msgs_lost, 0);
	atomic_set(&xtap_ctl_open, 0);
	atomic_set(&xtap_detached, 0);
	xtap_done_read = false;
	xtap_ctl = debugfs_create_file("ctl", 0600, dir, NULL, &xtap_ctl_fops);
	if (IS_ERR(xtap_ctl)) {
		err = PTR_ERR(xtap_ctl);
		xtap_ctl = NULL;
		kfifo_free(&xtap_msgq);
		return err;
	}
	return 0;
}

void xtap_control_exit(void)
{
	debugfs_remove(xtap_ctl);
	xtap_ctl = NULL;
	irq_work_sync(&xtap_wake_work);
	kfifo_free(&xtap_msgq);
}
