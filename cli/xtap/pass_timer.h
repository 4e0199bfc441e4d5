// -v's pass lines, as stap prints them: memory, user/system/real time.
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

namespace xtap::cli {

// -v: stap-style pass lines with memory and user/system/real time, e.g.
// "Pass 1: parsed user script and 3 library scripts using 11236virt/9800res kb, in
// 10usr/0sys/12real ms."
class PassTimer {
 public:
  explicit PassTimer(bool on) : on_(on) { mark(); }
  void done(const std::string &what) {
    if (on_) {
      struct rusage ru;
      getrusage(RUSAGE_SELF, &ru);
      auto ms = [](const timeval &t) { return t.tv_sec * 1000L + t.tv_usec / 1000; };
      long real = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start_)
                      .count();
      long virt_kb = 0, res_kb = 0;
      if (FILE *f = fopen("/proc/self/statm", "r")) {
        long pages_virt = 0, pages_res = 0;
        if (fscanf(f, "%ld %ld", &pages_virt, &pages_res) == 2) {
          virt_kb = pages_virt * (getpagesize() / 1024);
          res_kb = pages_res * (getpagesize() / 1024);
        }
        fclose(f);
      }
      std::cerr << "Pass " << what << " using " << virt_kb << "virt/" << res_kb << "res kb, in "
                << ms(ru.ru_utime) - usr_ << "usr/" << ms(ru.ru_stime) - sys_ << "sys/" << real
                << "real ms.\n";
    }
    mark();
  }

 private:
  void mark() {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    usr_ = ru.ru_utime.tv_sec * 1000L + ru.ru_utime.tv_usec / 1000;
    sys_ = ru.ru_stime.tv_sec * 1000L + ru.ru_stime.tv_usec / 1000;
    start_ = std::chrono::steady_clock::now();
  }
  bool on_;
  long usr_ = 0, sys_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace xtap::cli
