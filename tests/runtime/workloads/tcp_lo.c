// tcp_lo N: bring the loopback device up, make N TCP connections to a
// listener on 127.0.0.1:8080 that each send 1000 bytes, then try two more
// connections to a listener on 127.0.0.1:8081 whose accept queue is full
// (backlog 0, never accepted): their SYNs are dropped and retransmitted
// after the kernel's initial 1 s timeout. Exits after 1.5 s. For the
// examples' TCP scripts (connections, retransmits).
#include <arpa/inet.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int listener(int port, int backlog)
{
	struct sockaddr_in sa;
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		exit(3);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, backlog) < 0)
		exit(4);
	return fd;
}

static int connect_to(int port, int nonblocking)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		exit(5);
	if (nonblocking)
		fcntl(fd, F_SETFL, O_NONBLOCK);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && !nonblocking)
		exit(6);
	return fd;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	char buf[1000];
	struct ifreq ifr;
	int ctl = socket(AF_INET, SOCK_DGRAM, 0);

	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ctl < 0 || ioctl(ctl, SIOCGIFFLAGS, &ifr) < 0)
		return 2;
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(ctl, SIOCSIFFLAGS, &ifr) < 0)
			return 2;
	}
	memset(buf, 'x', sizeof(buf));
	int srv = listener(8080, 8);
	for (int i = 0; i < n; i++) {
		int c = connect_to(8080, 0);
		int a = accept(srv, NULL, NULL);

		if (a < 0 || write(c, buf, sizeof(buf)) != sizeof(buf))
			return 7;
		for (int got = 0, r; got < (int)sizeof(buf); got += r)
			if ((r = read(a, buf, sizeof(buf) - got)) <= 0)
				return 8;
		close(c);
		close(a);
	}
	int full = listener(8081, 0);
	int first = connect_to(8081, 0);
	int second = connect_to(8081, 1);
	int third = connect_to(8081, 1);
	usleep(1500 * 1000);
	close(first);
	close(second);
	close(third);
	close(full);
	close(srv);
	return 0;
}
