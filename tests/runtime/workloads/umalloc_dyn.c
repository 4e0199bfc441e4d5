// umalloc_dyn N: a dynamically linked program (the _dyn suffix: built
// without -static, run in the guest with the host's loader and libc) that
// calls malloc(4242000 + i) and free for i = 0..N-1, sizes no other caller
// uses, so a uprobe on libc's malloc can count exactly these calls.
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	long touched = 0;

	for (long i = 0; i < n; i++) {
		char *p = malloc(4242000 + i);

		if (p) {
			p[0] = 1;
			touched += p[0];
		}
		free(p);
	}
	return touched != n;
}
