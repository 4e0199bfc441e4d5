// mmap_storm THREADS ROUNDS: THREADS threads each map 64 KiB, touch every
// page and unmap it again, ROUNDS times: mmap and munmap take the
// process's mmap_lock for writing while the other threads' page faults
// take it for reading, so they contend on it. For the examples' kernel
// lock contention script.
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

static int rounds;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			exit(2);
		for (int off = 0; off < 65536; off += 4096)
			p[off] = 1;
		munmap(p, 65536);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	rounds = argc > 2 ? atoi(argv[2]) : 100;
	if (threads < 1 || threads > 64)
		return 1;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
