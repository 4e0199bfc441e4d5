// openat_n N PATH: open PATH read-only N times through openat(2), closing
// each, so that a probe on the syscall can count exactly N opens of PATH.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	const char *path = argc > 2 ? argv[2] : "/";

	for (long i = 0; i < n; i++) {
		long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);

		if (fd >= 0)
			close((int)fd);
	}
	return 0;
}
