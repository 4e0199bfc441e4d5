// ucfi_dyn N | ucfi_dyn spin MS | ucfi_dyn signal: a five-deep call chain built without
// frame pointers, for the CFI unwinding tests (tests/runtime/ustack/):
// main -> ucfi_one -> ucfi_two -> ucfi_three -> ucfi_four -> ucfi_leaf,
// each function with its own stack frame and rbp free for other values,
// so that only the call-frame information finds the callers. Linked
// dynamically: libc's frames (__libc_start_call_main) are below main.
// "signal" runs the chain once in a SIGUSR1 handler that main raises:
// the stack passes libc's signal trampoline (__restore_rt) and raise().
#pragma GCC optimize("omit-frame-pointer", "no-optimize-sibling-calls")
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* rbp holds a data value here, as -O2 code does with a free register */
#define CLOBBER_RBP(x) __asm__ volatile("mov %0, %%rbp" ::"r"(x) : "rbp")

__attribute__((noipa)) long ucfi_leaf(long x) {
  volatile long spin = 0;
  long i;

  for (i = 0; i < x; i++) spin += i;
  return spin;
}

__attribute__((noipa)) long ucfi_four(long x) {
  volatile long pad[3] = {x, x + 1, x + 2};

  CLOBBER_RBP(x * 7);
  return ucfi_leaf(pad[0]) + pad[2];
}

__attribute__((noipa)) long ucfi_three(long x) {
  volatile long pad[5] = {x};

  CLOBBER_RBP(x * 5);
  return ucfi_four(pad[0] + 1) + pad[4];
}

__attribute__((noipa)) long ucfi_two(long x) {
  volatile char pad[40];

  memset((char *)pad, (int)x, sizeof(pad));
  CLOBBER_RBP(x * 3);
  return ucfi_three(x + pad[7]) + pad[1];
}

__attribute__((noipa)) long ucfi_one(long x) {
  volatile long pad[2] = {x, 1};

  return ucfi_two(pad[0]) + pad[1];
}

static volatile long from_handler;

__attribute__((noipa)) static void ucfi_on_signal(int sig) { from_handler = ucfi_one(sig); }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1, sum = 0, i;

  if (argc > 1 && !strcmp(argv[1], "signal")) {
    sigset_t usr1;

    // the launcher may have left it blocked
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
    signal(SIGUSR1, ucfi_on_signal);
    raise(SIGUSR1);
    return from_handler == 42;
  }

  if (argc > 2 && !strcmp(argv[1], "spin")) {
    double end = now_ms() + atol(argv[2]);

    while (now_ms() < end) sum += ucfi_one(20000);
    return sum == 42;
  }
  for (i = 0; i < n; i++) sum += ucfi_one(i);
  return sum == 42;
}
