// udp_lo N: bring the loopback device up (SIOCSIFFLAGS), then send N UDP
// datagrams of 100 bytes to 127.0.0.1:9999 and receive them, for the
// netdev tapset's tests. `udp_lo N lossy`: a datagram not received within
// a second counts as lost (a netfilter test drops some), and the last line
// says "udp_lo: received R of N".
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int lossy = argc > 2 && strcmp(argv[2], "lossy") == 0;
	int received = 0;
	int rx = socket(AF_INET, SOCK_DGRAM, 0);
	int tx = socket(AF_INET, SOCK_DGRAM, 0);
	struct ifreq ifr;
	struct sockaddr_in sa;
	char buf[100];

	if (rx < 0 || tx < 0)
		return 1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(tx, SIOCGIFFLAGS, &ifr) < 0)
		return 2;
	/* Down first if an earlier test brought it up: the device must open now. */
	if (ifr.ifr_flags & IFF_UP) {
		ifr.ifr_flags &= ~IFF_UP;
		if (ioctl(tx, SIOCSIFFLAGS, &ifr) < 0)
			return 3;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(tx, SIOCSIFFLAGS, &ifr) < 0)
		return 3;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(9999);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(rx, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return 4;
	if (lossy) {
		struct timeval tv = { .tv_sec = 1 };

		if (setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
			return 7;
	}
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < n; i++) {
		if (sendto(tx, buf, sizeof(buf), 0, (struct sockaddr *)&sa, sizeof(sa)) != sizeof(buf))
			return 5;
		if (recv(rx, buf, sizeof(buf), 0) == sizeof(buf))
			received++;
		else if (!lossy)
			return 6;
	}
	if (lossy)
		printf("udp_lo: received %d of %d\n", received, n);
	return 0;
}
