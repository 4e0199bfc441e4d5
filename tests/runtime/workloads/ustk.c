// ustk N | ustk spin MS: a known user-space call chain for the user-stack
// tests (tests/runtime/ustack/). Calls main -> ustk_top -> ustk_mid ->
// ustk_leaf N times; "spin" burns MS milliseconds of CPU in ustk_spin for
// the sampling tests. Frame pointers kept and no tail calls (the pragma;
// the engine builds every workload with the same flags), noipa keeps each
// function a real call with its own symbol.
#pragma GCC optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noipa)) long ustk_leaf(long x)
{
	return x * 3;
}

__attribute__((noipa)) long ustk_mid(long x)
{
	return ustk_leaf(x + 1) + 1;
}

__attribute__((noipa)) long ustk_top(long x)
{
	return ustk_mid(x + 2) + 2;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noipa)) unsigned long ustk_spin(long ms)
{
	volatile unsigned long sum = 0;
	double end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			sum += i;
	return sum;
}

int main(int argc, char **argv)
{
	long sum = 0;

	if (argc > 2 && !strcmp(argv[1], "spin"))
		return ustk_spin(strtol(argv[2], NULL, 10)) == 1;
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	for (long i = 1; i <= n; i++)
		sum += ustk_top(i);
	return sum == 0;
}
