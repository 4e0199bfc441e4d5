// plt_calls_dyn N: a dynamically linked program (the _dyn suffix) that
// calls libc through its own PLT a known number of times, for the .plt
// tests (tests/runtime/uprobe/plt_*.test): getpid() N times and getppid()
// 2N times, and no other function whose name starts with "getp".
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	long sum = 0;

	for (long i = 0; i < n; i++) {
		sum += getpid();
		sum += getppid();
		sum += getppid();
	}
	return sum == 0;
}
