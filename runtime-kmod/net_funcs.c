// SPDX-License-Identifier: GPL-2.0
/* The inet_sock tapset: a socket's local port and peer address, read nofault. */
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/ctype.h>
#include <linux/jiffies.h>
#include <linux/skbuff.h>
#include <net/inet_connection_sock.h>
#include <net/sock.h>
#include <xtap/memory.h>
#include "internal.h"

#define XTAP_SOCK_FIELD(c, sk, field, dst)                                     \
	({                                                                     \
		BUILD_BUG_ON(sizeof(*(dst)) !=                                 \
			     sizeof_field(struct sock, field));                \
		xtap_kread((c),                                                \
			   (unsigned long)(sk) + offsetof(struct sock, field), \
			   (dst), sizeof(*(dst)));                             \
	})

s64 xtap_inet_local_port(struct xtap_context *c, s64 sock)
{
	u16 num;

	if (XTAP_SOCK_FIELD(c, sock, __sk_common.skc_num, &num))
		return 0;
	return num;
}

char *xtap_inet_peer(struct xtap_context *c, char *dst, s64 sock)
{
	unsigned short family;
	u32 len = xtap_sess.limits.maxstringlen;

	strscpy(dst, "Unknown", len);
	if (XTAP_SOCK_FIELD(c, sock, __sk_common.skc_family, &family))
		return dst;
	if (family == AF_INET) {
		__be32 addr;

		if (!XTAP_SOCK_FIELD(c, sock, __sk_common.skc_daddr, &addr))
			snprintf(dst, len, "%pI4", &addr);
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6) {
		struct in6_addr addr;

		if (!XTAP_SOCK_FIELD(c, sock, __sk_common.skc_v6_daddr, &addr))
			snprintf(dst, len, "%pI6", &addr);
	}
#endif
	return dst;
}

char *xtap_format_ipaddr(struct xtap_context *c, char *dst, s64 addr,
			 s64 family)
{
	u32 len = xtap_sess.limits.maxstringlen;

	strscpy(dst, "Unknown", len);
	if (family == AF_INET) {
		__be32 ip = (__be32)(u32)addr;

		snprintf(dst, len, "%pI4", &ip);
	} else if (family == AF_INET6) {
		struct in6_addr ip6;

		if (!xtap_kread(c, (unsigned long)addr, &ip6, sizeof(ip6)))
			snprintf(dst, len, "%pI6", &ip6);
	}
	return dst;
}

s64 xtap_tcp_rto_usecs(struct xtap_context *c, s64 sock)
{
	u32 rto;

	if (xtap_kread(c,
		       (unsigned long)sock +
			       offsetof(struct inet_connection_sock, icsk_rto),
		       &rto, sizeof(rto)))
		return 0;
	return jiffies_to_usecs(rto);
}

char *xtap_skb_data(struct xtap_context *c, char *dst, s64 skb, s64 hex)
{
	u32 cap = xtap_sess.limits.maxstringlen - 1, out = 0;
	unsigned int len, data_len, i;
	unsigned long data;
	u8 chunk[32];

	dst[0] = '\0';
	if (xtap_kread(c, (unsigned long)skb + offsetof(struct sk_buff, len),
		       &len, sizeof(len)) ||
	    xtap_kread(c,
		       (unsigned long)skb + offsetof(struct sk_buff, data_len),
		       &data_len, sizeof(data_len)) ||
	    xtap_kread(c, (unsigned long)skb + offsetof(struct sk_buff, data),
		       &data, sizeof(data)))
		return dst;
	len = data_len < len ? len - data_len : 0; /* skb_headlen() */
	for (i = 0; i < len && out + (hex ? 2 : 1) <= cap; i += sizeof(chunk)) {
		unsigned int n = min_t(unsigned int, sizeof(chunk), len - i), j;

		if (xtap_kread(c, data + i, chunk, n))
			break;
		for (j = 0; j < n && out + (hex ? 2 : 1) <= cap; j++) {
			if (hex) {
				dst[out++] = hex_asc_hi(chunk[j]);
				dst[out++] = hex_asc_lo(chunk[j]);
			} else {
				dst[out++] = isprint(chunk[j]) ? chunk[j] : '.';
			}
		}
	}
	dst[out] = '\0';
	return dst;
}
