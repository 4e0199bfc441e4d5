// GCC clones for unit/dwarf_clone_test.cpp, compiled with gcc -g -O2:
// cf_scale's `unused` is never read and every call passes 3 as cf_add's
// `step`, so GCC emits cf_scale.constprop.0 / .isra.0 and
// cf_add.constprop.0, whose DWARF names them after their source functions.
long cf_seen;

static __attribute__((noinline)) void cf_sink(long v) { __atomic_store_n(&cf_seen, v, 0); }

static __attribute__((noinline)) long cf_scale(long value, long unused, long factor) {
  cf_sink(value);
  return value * factor;
}

static __attribute__((noinline)) long cf_add(long base, long step) {
  cf_sink(base);
  return base + step;
}

long cf_run(long n, long m) { return cf_scale(n, m, n + 1) + cf_add(n * 10, 3) + cf_add(m, 3); }
