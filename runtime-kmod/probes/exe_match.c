// SPDX-License-Identifier: GPL-2.0
/*
 * Is the current task running the program at PATH? The process probes that
 * name a program (process("PATH").begin, .syscall) look PATH up once when
 * they arm and compare the inode and device of each task's executable
 * (mm->exe_file) with it, so that a copy, a hard link or a symlink to the
 * program counts as what it is, not by its name.
 */
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm_types.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include "internal.h"

int xtap_exe_lookup(const char *path, struct xtap_exe_id *id)
{
	struct path p;
	int err = kern_path(path, LOOKUP_FOLLOW, &p);

	if (err)
		return err;
	id->ino = d_inode(p.dentry)->i_ino;
	id->dev = d_inode(p.dentry)->i_sb->s_dev;
	path_put(&p);
	return 0;
}

bool xtap_current_exe_is(const struct xtap_exe_id *id)
{
	struct mm_struct *mm = current->mm;
	struct file *exe;
	bool same = false;

	if (!mm || !id->ino)
		return false;
	/*
	 * No reference is taken: only the inode is compared, and the file
	 * stays valid under RCU (it is freed, or on 6.12 reused as another
	 * file, only after a grace period).
	 */
	rcu_read_lock();
	exe = rcu_dereference(mm->exe_file);
	if (exe) {
		struct inode *inode = file_inode(exe);

		same = inode->i_ino == id->ino && inode->i_sb->s_dev == id->dev;
	}
	rcu_read_unlock();
	return same;
}
NOKPROBE_SYMBOL(xtap_current_exe_is);
