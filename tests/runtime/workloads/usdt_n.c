// usdt_n N: USDT probes (sys/sdt.h, from systemtap-sdt-dev) with known
// arguments: xtap:tick(i, 10 * i, (short)-i) for i = 1..N, then
// xtap:hello("usdt") once, for the .mark tests (tests/runtime/uprobe/).
#include <stdlib.h>
#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#else /* without systemtap-sdt-dev: no probe sites (the .mark tests fail) */
#define STAP_PROBE1(p, n, a)
#define STAP_PROBE3(p, n, a, b, c)
#endif

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	volatile short neg;

	for (long i = 1; i <= n; i++) {
		neg = (short)-i;
		STAP_PROBE3(xtap, tick, i, 10 * i, neg);
	}
	STAP_PROBE1(xtap, hello, "usdt");
	return 0;
}
