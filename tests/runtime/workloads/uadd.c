// uadd N [WHO]: user-space functions with known arguments and results for
// the uprobe tests (tests/runtime/uprobe/). Calls xt_add(i, 10 * i) for i = 1..N
// (returns 11 * i), then xt_greet(WHO) once (returns strlen(WHO); WHO is
// "xtap" by default) and xt_add_twice(N) once. noipa keeps each function a
// real call with its own symbol: no inlining, cloning or constant folding.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noipa)) long xt_add(long a, long b)
{
	return a + b;
}

__attribute__((noipa)) long xt_add_twice(long n)
{
	return xt_add(n, n) + xt_add(n, n);
}

__attribute__((noipa)) int xt_greet(const char *who)
{
	return (int)strlen(who);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	const char *who = argc > 2 ? argv[2] : "xtap";
	long sum = 0;

	for (long i = 1; i <= n; i++)
		sum += xt_add(i, 10 * i);
	sum += xt_greet(who);
	sum += xt_add_twice(n);
	return sum == 0;
}
