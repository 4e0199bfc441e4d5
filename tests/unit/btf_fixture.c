// Test data for the BTF reader (btf_test.cpp) and the language suites'
// kernel.function cases: compiled with DWARF at test-build time and turned
// into BTF by pahole -J, as the kernel's own build does (tests/CMakeLists.txt).
// The names mimic the kernel's so that test scripts read like real ones.
typedef unsigned long size_t;
typedef long long loff_t;
typedef unsigned short umode_t;
typedef unsigned int u32;
typedef unsigned long long u64;

struct qstr {
  union {
    struct {
      u32 hash;
      u32 len;
    };
    u64 hash_len;
  };
  const unsigned char *name;
};

struct dentry {
  unsigned int d_flags;
  struct dentry *d_parent;
  struct qstr d_name;
  unsigned char d_iname[32];
};

struct vfsmount;

struct path {
  struct vfsmount *mnt;
  struct dentry *dentry;
};

struct file {
  struct path f_path;
  unsigned int f_flags;
  unsigned int f_mode_bits : 3, f_ready : 1, f_count : 12;
  loff_t f_pos;
};

struct open_how {
  u64 flags;
  u64 mode;
  u64 resolve;
};

struct pt_regs {
  unsigned long di, si, dx, cx, r8, r9, ax;
};

struct pair {
  long x, y;
};

enum fx_state { FX_IDLE, FX_BUSY = -1 };

long vfs_read(struct file *file, char *buf, size_t count, loff_t *pos) {
  return file->f_pos + buf[0] + (long)count + *pos;
}

long vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos) {
  return file->f_pos + buf[0] + (long)count + *pos;
}

long do_sys_openat2(int dfd, const char *filename, struct open_how *how) {
  return dfd + filename[0] + (long)how->flags;
}

long __x64_sys_getppid(const struct pt_regs *regs) { return (long)regs->di; }

void fx_void(void) {}

int fx_by_value(int before, struct pair p, int after) { return before + (int)p.x + after; }

int fx_seven(int a, short b, unsigned char c, long d, int e, int f, int g) {
  return a + b + c + (int)d + e + f + g;
}

enum fx_state fx_state_of(struct file *file) { return file->f_flags ? FX_BUSY : FX_IDLE; }

static int fx_static(unsigned int n) { return (int)n; }

int fx_call_static(void) { return fx_static(1); }
