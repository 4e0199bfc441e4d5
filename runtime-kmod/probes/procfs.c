// SPDX-License-Identifier: GPL-2.0
/*
 * procfs("name").read / .write probes: files under /proc/xtap/MODULE/.
 * Opening a file for reading runs its read probe once, which builds the
 * file's contents in a buffer of its own (concurrent readers each get
 * theirs); a write() runs the file's write probes, in script order, with
 * the bytes written as $value (a file may have several: input.char and
 * input.line both write-probe __stdin).
 */
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "internal.h"

/* A file: the read probe and the first write probe that name it. */
struct xtap_procfs_file {
	const char *name;
	const struct xtap_procfs_spec *read, *write;
	struct proc_dir_entry *pde;
	umode_t mode;
};

static struct xtap_procfs_file *xtap_procfs_files;
static u32 xtap_procfs_nfiles;
static const struct xtap_procfs_spec *xtap_procfs_specs;
static u32 xtap_procfs_nspecs;
static struct proc_dir_entry *xtap_procfs_dir;

static struct xtap_procfs_buf *xtap_procfs_buf_new(u32 cap)
{
	struct xtap_procfs_buf *b = kvzalloc(sizeof(*b) + cap + 1, GFP_KERNEL);

	if (b)
		b->cap = cap;
	return b;
}

/* .maxsize(N), by default MAXSTRINGLEN (a string's room, with its NUL). */
static u32 xtap_procfs_size(const struct xtap_procfs_spec *spec)
{
	return spec->maxsize ? spec->maxsize :
			       xtap_sess.limits.maxstringlen - 1;
}

/* Runs `p` with `b` as its $value; false if the session would not run it. */
static bool xtap_procfs_run(const struct xtap_probe *p,
			    struct xtap_procfs_buf *b)
{
	struct xtap_context *c = xtap_enter(p, NULL);

	if (!c)
		return false;
	container_of(c, struct xtap_cpu_ctx, c)->procfs_buf = b;
	p->handler(c);
	xtap_leave(c);
	return true;
}

static int xtap_procfs_open(struct inode *inode, struct file *file)
{
	struct xtap_procfs_file *f = pde_data(inode);
	struct xtap_procfs_buf *b;

	if ((file->f_mode & FMODE_READ) && !f->read)
		return -EACCES;
	if ((file->f_mode & FMODE_WRITE) && !f->write)
		return -EACCES;
	if (!(file->f_mode & FMODE_READ)) {
		file->private_data = NULL;
		return 0;
	}
	b = xtap_procfs_buf_new(xtap_procfs_size(f->read));
	if (!b)
		return -ENOMEM;
	if (!xtap_procfs_run(f->read->probe, b)) {
		kvfree(b);
		return -EAGAIN;
	}
	file->private_data = b;
	return 0;
}

static ssize_t xtap_procfs_read(struct file *file, char __user *ubuf, size_t n,
				loff_t *pos)
{
	struct xtap_procfs_buf *b = file->private_data;

	if (!b)
		return -EBADF;
	return simple_read_from_buffer(ubuf, n, pos, b->data, b->len);
}

/*
 * One write() is one run of the write probe. More than .maxsize(N) bytes
 * (MAXSTRINGLEN by default) in one write is refused with EFBIG, whole.
 */
static ssize_t xtap_procfs_write(struct file *file, const char __user *ubuf,
				 size_t n, loff_t *pos)
{
	struct xtap_procfs_file *f = pde_data(file_inode(file));
	struct xtap_procfs_buf *b;
	ssize_t ret = n;

	if (!f->write)
		return -EBADF;
	if (n > xtap_procfs_size(f->write))
		return -EFBIG;
	b = xtap_procfs_buf_new(n);
	if (!b)
		return -ENOMEM;
	if (copy_from_user(b->data, ubuf, n)) {
		ret = -EFAULT;
	} else {
		const struct xtap_procfs_spec *w;

		for (w = f->write; w < xtap_procfs_specs + xtap_procfs_nspecs;
		     w++) {
			if (!w->is_write || strcmp(w->name, f->name))
				continue;
			b->len = n; /* each probe sees what was written */
			b->data[n] = '\0';
			if (!xtap_procfs_run(w->probe, b))
				ret = -EAGAIN;
		}
	}
	kvfree(b);
	return ret;
}

static int xtap_procfs_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct proc_ops xtap_procfs_ops = {
	.proc_open = xtap_procfs_open,
	.proc_read = xtap_procfs_read,
	.proc_write = xtap_procfs_write,
	.proc_lseek = default_llseek,
	.proc_release = xtap_procfs_release,
};

/* $value in a procfs probe: the contents so far (read) or the bytes written. */
char *xtap_procfs_value(struct xtap_context *c, char *dst)
{
	struct xtap_procfs_buf *b =
		container_of(c, struct xtap_cpu_ctx, c)->procfs_buf;

	strscpy(dst, b ? b->data : "", xtap_sess.limits.maxstringlen);
	return dst;
}

/*
 * $value = s / $value .= s in a read probe: the file's contents, up to its
 * .maxsize(N); what does not fit is cut off and counted as a warning.
 */
void xtap_procfs_set(struct xtap_context *c, const char *s, int append)
{
	struct xtap_procfs_buf *b =
		container_of(c, struct xtap_cpu_ctx, c)->procfs_buf;
	size_t n;

	if (!b)
		return;
	if (!append)
		b->len = 0;
	n = strlen(s);
	if (n > b->cap - b->len) {
		n = b->cap - b->len;
		if (!b->truncated)
			xtap_warn(
				c,
				"procfs file contents cut at .maxsize(N) bytes");
		b->truncated = true;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static int xtap_procfs_alloc(const void *specs, u32 n)
{
	const struct xtap_procfs_spec *ps = specs;
	u32 i, j;

	if (!n)
		return 0;
	xtap_procfs_specs = ps;
	xtap_procfs_nspecs = n;
	xtap_procfs_files = kcalloc(n, sizeof(*xtap_procfs_files), GFP_KERNEL);
	if (!xtap_procfs_files)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct xtap_procfs_file *f = NULL;

		for (j = 0; j < xtap_procfs_nfiles; j++)
			if (!strcmp(xtap_procfs_files[j].name, ps[i].name))
				f = &xtap_procfs_files[j];
		if (!f) {
			f = &xtap_procfs_files[xtap_procfs_nfiles++];
			f->name = ps[i].name;
		}
		if (!ps[i].is_write && f->read) {
			xtap_init_error("two procfs(\"%s\").read probes",
					f->name);
			return -EINVAL;
		}
		if (ps[i].is_write) {
			if (!f->write)
				f->write = &ps[i];
		} else {
			f->read = &ps[i];
		}
		f->mode |= ps[i].is_write ? 0222 : 0444;
		if (ps[i].umask)
			f->mode &= ~(umode_t)(ps[i].umask & 0777);
	}
	for (j = 0; j < xtap_procfs_nfiles; j++)
		if (!xtap_procfs_files[j].write)
			xtap_procfs_files[j].mode &= ~0222;
	return 0;
}

static void xtap_procfs_disarm(void);

/*
 * proc_mkdir() warns (a kernel WARNING) both for an existing name and for a
 * missing parent, and /proc offers no lookup: ask the VFS instead.
 */
static bool xtap_proc_dir_exists(const char *path)
{
	struct path p;

	if (kern_path(path, LOOKUP_DIRECTORY, &p))
		return false;
	path_put(&p);
	return true;
}

/*
 * /proc/xtap is shared by every xtap module and stays when they go; each
 * module has its own directory in it.
 */
static int xtap_procfs_arm(void)
{
	char path[64 + MODULE_NAME_LEN];
	u32 i;

	if (!xtap_procfs_nfiles)
		return 0;
	snprintf(path, sizeof(path), "xtap/%s", module_name(THIS_MODULE));
	if (!xtap_proc_dir_exists("/proc/xtap"))
		proc_mkdir("xtap", NULL);
	xtap_procfs_dir = proc_mkdir(path, NULL);
	if (!xtap_procfs_dir) {
		xtap_fatal("cannot create /proc/%s", path);
		return -ENOMEM;
	}
	for (i = 0; i < xtap_procfs_nfiles; i++) {
		struct xtap_procfs_file *f = &xtap_procfs_files[i];

		f->pde = proc_create_data(f->name, f->mode, xtap_procfs_dir,
					  &xtap_procfs_ops, f);
		if (!f->pde) {
			xtap_fatal("cannot create /proc/%s/%s", path, f->name);
			xtap_procfs_disarm();
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * proc_remove() waits for the file operations in progress and closes the
 * files still open (their release frees the buffers), so nothing runs a
 * probe or touches a buffer afterwards.
 */
static void xtap_procfs_disarm(void)
{
	if (xtap_procfs_dir)
		proc_remove(xtap_procfs_dir);
	xtap_procfs_dir = NULL;
}

static void xtap_procfs_free(void)
{
	kfree(xtap_procfs_files);
	xtap_procfs_files = NULL;
	xtap_procfs_nfiles = 0;
	xtap_procfs_specs = NULL;
	xtap_procfs_nspecs = 0;
}

const struct xtap_family_ops xtap_procfs_ops_family = {
	.name = "procfs",
	.alloc = xtap_procfs_alloc,
	.arm = xtap_procfs_arm,
	.disarm = xtap_procfs_disarm,
	.free = xtap_procfs_free,
};
