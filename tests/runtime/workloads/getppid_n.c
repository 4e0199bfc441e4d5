// getppid_n N: call getppid() N times through syscall(2), so that no libc
// caching hides a call from a probe on the syscall.
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
