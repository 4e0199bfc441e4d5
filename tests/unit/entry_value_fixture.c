/*
 * DWARF test data for entry values (unit/dwarf_entry_value_test.cpp),
 * compiled with gcc -g -O2 at build time: after the first call, `a` is
 * dead and its register clobbered, so GCC describes it for the rest of
 * ev_outer as DW_OP_entry_value(DW_OP_reg5), DW_OP_stack_value. ev_inner
 * is inlined into ev_caller, where the same happens to its copy.
 */
extern void ev_sink(long v);
extern long ev_other(long v);

__attribute__((noinline)) long ev_outer(long a, long b) {
  long r;

  ev_sink(a);
  r = ev_other(b);
  ev_sink(r);
  ev_sink(r + 1);
  return r;
}

static inline __attribute__((always_inline)) long ev_inner(long a, long b) {
  long r;

  ev_sink(a);
  r = ev_other(b);
  ev_sink(r);
  ev_sink(r + 1);
  return r;
}

long ev_caller(long x, long y) { return ev_inner(x * 3, y) + ev_inner(y, x); }
