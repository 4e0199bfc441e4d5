// sleep_n N: sleep 1 ms N times, so that the scheduler switches away from
// and back to this task at least N times.
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	struct timespec ms = { 0, 1000000 };

	for (long i = 0; i < n; i++)
		nanosleep(&ms, NULL);
	return 0;
}
