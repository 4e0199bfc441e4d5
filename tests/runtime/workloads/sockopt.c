// sockopt: setsockopt(2) on a TCP IPv4 socket (TCP_NODELAY, level
// IPPROTO_TCP) and on a TCP IPv6 socket (IPV6_V6ONLY, level IPPROTO_IPV6),
// once each, for the tcp.*setsockopt tapset's tests. Needs no interface.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

int main(void) {
  int on = 1;
  int s4 = socket(AF_INET, SOCK_STREAM, 0);
  int s6 = socket(AF_INET6, SOCK_STREAM, 0);

  if (s4 < 0 || s6 < 0) return 1;
  if (setsockopt(s4, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)) < 0) return 2;
  if (setsockopt(s6, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) < 0) return 3;
  close(s4);
  close(s6);
  return 0;
}
