// ucfi_cxx_dyn N | ucfi_cxx_dyn spin MS: a C++ program built -O2 without
// frame pointers whose probed comparator runs under std::sort, inside a
// std::call_once (reached through libc's pthread_once), on a std::thread
// (started by libstdc++'s execute_native_thread_routine and libc's
// start_thread): a user stack through both libraries, for the CFI
// unwinding tests (tests/runtime/ustack/).
#pragma GCC optimize("omit-frame-pointer", "no-optimize-sibling-calls")
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

extern "C" __attribute__((noipa)) int ucfi_cxx_less(long a, long b) {
  volatile long spin = 0;

  for (long i = 0; i < 200; i++) spin += i;
  return a < b;
}

__attribute__((noipa)) static void sort_some(std::vector<long> &v) {
  std::sort(v.begin(), v.end(), [](long a, long b) { return ucfi_cxx_less(a, b) != 0; });
}

__attribute__((noipa)) static void sort_once(std::vector<long> &v) {
  std::once_flag flag;

  std::call_once(flag, [&v] { sort_some(v); });
}

static double now_ms() {
  timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noipa)) static long sort_loop(int argc, char **argv) {
  bool spin = argc > 2 && !strcmp(argv[1], "spin");
  long n = spin ? 1L << 40 : argc > 1 ? atol(argv[1]) : 1;
  double end = spin ? now_ms() + atol(argv[2]) : 0;
  unsigned long seed = 1;
  long sum = 0;

  for (long i = 0; i < n && (!spin || now_ms() < end); i++) {
    std::vector<long> v(64);
    for (auto &x : v) x = (long)((seed = seed * 6364136223846793005UL + 1) >> 33);
    sort_once(v);
    sum += v[0];
  }
  return sum;
}

int main(int argc, char **argv) {
  long sum = 0;
  std::thread worker([&] { sum = sort_loop(argc, argv); });

  worker.join();
  return sum == 42;
}
