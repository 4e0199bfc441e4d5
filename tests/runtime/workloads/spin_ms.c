// spin_ms N: keep the CPU busy in user space for N milliseconds of wall
// time, for tests of sampling probes (timer.profile, perf.sw.cpu_clock).
#include <stdlib.h>
#include <time.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
	long long end = now_ms() + n;
	volatile unsigned long x = 0;

	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			x += i;
	return 0;
}
