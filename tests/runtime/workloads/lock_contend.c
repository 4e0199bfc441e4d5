// lock_contend THREADS ROUNDS: THREADS threads each take one shared
// pthread mutex ROUNDS times and hold it for 2 ms, so the others block
// in futex(FUTEX_WAIT) meanwhile. For the examples' lock contention script.
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int rounds;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < rounds; i++) {
		pthread_mutex_lock(&lock);
		usleep(2000);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	rounds = argc > 2 ? atoi(argv[2]) : 10;
	if (threads < 1 || threads > 64)
		return 1;
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
