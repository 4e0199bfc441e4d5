// umem N [MS]: known strings and integers at fixed user addresses, for the
// user-memory tests, then getppid() N times through syscall(2) so that a
// probe on the syscall runs in this process and can read them; then it
// sleeps MS milliseconds, to keep a session running a little longer. It
// starts a session of its own first: sid() and pgrp() are then its pid.
//
//   0x10000000          "hello, user"
//   0x10000040          "tab\there \"q\" \001 \303\251" (an e acute in UTF-8)
//   0x10000080          s32 -2, at +8 u16 0xfffe, at +16 s64 0x1122334455667788,
//                       at +24 the byte 0xff, at +25 'h'
//   0x10000100          "abcdefghi\n\n\nxyz"
//   0x10000200          600 'a's and a NUL
//   0x10000ffc          "end" and its NUL, the last bytes before an unmapped page
//   0x10002ffc          "abcd" without a NUL, up to the next unmapped page
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BASE 0x10000000UL
#define PAGE 4096UL

static void *map_page(unsigned long addr)
{
	void *p = mmap((void *)addr, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != (void *)addr) {
		/* Say so: a test that sees no probe hit must know the workload died. */
		fprintf(stderr, "umem: cannot map a page at %#lx\n", addr);
		exit(2);
	}
	return p;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	long ms = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	char *a = map_page(BASE);
	char *b = map_page(BASE + 2 * PAGE);
	int32_t s32 = -2;
	uint16_t u16 = 0xfffe;
	int64_t s64 = 0x1122334455667788LL;

	setsid();
	strcpy(a, "hello, user");
	strcpy(a + 0x40, "tab\there \"q\" \001 \303\251");
	memcpy(a + 0x80, &s32, sizeof(s32));
	memcpy(a + 0x88, &u16, sizeof(u16));
	memcpy(a + 0x90, &s64, sizeof(s64));
	a[0x98] = (char)0xff;
	a[0x99] = 'h';
	strcpy(a + 0x100, "abcdefghi\n\n\nxyz");
	memset(a + 0x200, 'a', 600);
	a[0x200 + 600] = '\0';
	strcpy(a + PAGE - 4, "end");
	memcpy(b + PAGE - 4, "abcd", 4);

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	usleep(ms * 1000);
	return 0;
}
