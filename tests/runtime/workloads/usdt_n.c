// usdt_n N: USDT probes (sys/sdt.h, from systemtap-sdt-dev) with known
// arguments: xtap:tick(i, 10 * i, (short)-i) for i = 1..N; xtap:guarded(i)
// for i = 1..N, but only while its semaphore is raised (a tracer armed on
// it); then xtap:hello("usdt") once. For the .mark tests
// (tests/runtime/uprobe/).
#include <stdlib.h>

#if __has_include(<sys/sdt.h>)
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#else /* without systemtap-sdt-dev: no probe sites (the .mark tests fail) */
#define STAP_PROBE1(p, n, a)
#define STAP_PROBE3(p, n, a, b, c)
#endif

/* The semaphores sys/sdt.h names provider_name_semaphore. */
#define XTAP_SEMAPHORE(name) \
	__extension__ unsigned short xtap_##name##_semaphore __attribute__((unused, section(".probes")))
XTAP_SEMAPHORE(tick);
XTAP_SEMAPHORE(guarded);
XTAP_SEMAPHORE(hello);

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	volatile short neg;

	for (long i = 1; i <= n; i++) {
		neg = (short)-i;
		STAP_PROBE3(xtap, tick, i, 10 * i, neg);
		if (xtap_guarded_semaphore)
			STAP_PROBE1(xtap, guarded, i);
	}
	STAP_PROBE1(xtap, hello, "usdt");
	return 0;
}
