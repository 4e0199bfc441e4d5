// read_n N PATH: open PATH and read it through read(2) N times, so that a
// probe on the read path (vfs_read) sees exactly N reads of PATH from this
// process (busybox cat would use sendfile, which bypasses vfs_read).
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	const char *path = argc > 2 ? argv[2] : "/proc/version";
	char buf[256];

	for (long i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		if (fd < 0)
			return 1;
		if (read(fd, buf, sizeof(buf)) < 0)
			return 1;
		close(fd);
	}
	return 0;
}
