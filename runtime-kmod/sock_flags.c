// SPDX-License-Identifier: GPL-2.0
/*
 * Socket types, flag words and option names (stap's socket and tcp tapset
 * helpers): sock_type_num2str(), sock_flags_num2str(), msg_flags_num2str(),
 * tcp_sockopt_str(), tcp_ipv6_sockopt_str(). The numbers come from the
 * kernel's own headers.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kernel.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include "internal.h"

#define XTAP_NAME(x) [x] = #x

static const char *const xtap_sock_type_names[] = {
	[SOCK_STREAM] = "STREAM",
	[SOCK_DGRAM] = "DGRAM",
	[SOCK_RAW] = "RAW",
	[SOCK_RDM] = "RDM",
	[SOCK_SEQPACKET] = "SEQPACKET",
	[SOCK_DCCP] = "DCCP",
	[SOCK_PACKET] = "PACKET",
};

static const char *const xtap_tcp_sockopt_names[] = {
	XTAP_NAME(TCP_NODELAY),
	XTAP_NAME(TCP_MAXSEG),
	XTAP_NAME(TCP_CORK),
	XTAP_NAME(TCP_KEEPIDLE),
	XTAP_NAME(TCP_KEEPINTVL),
	XTAP_NAME(TCP_KEEPCNT),
	XTAP_NAME(TCP_SYNCNT),
	XTAP_NAME(TCP_LINGER2),
	XTAP_NAME(TCP_DEFER_ACCEPT),
	XTAP_NAME(TCP_WINDOW_CLAMP),
	XTAP_NAME(TCP_INFO),
	XTAP_NAME(TCP_QUICKACK),
	XTAP_NAME(TCP_CONGESTION),
	XTAP_NAME(TCP_MD5SIG),
	XTAP_NAME(TCP_THIN_LINEAR_TIMEOUTS),
	XTAP_NAME(TCP_THIN_DUPACK),
	XTAP_NAME(TCP_USER_TIMEOUT),
};

static const char *const xtap_ipv6_sockopt_names[] = {
	XTAP_NAME(IPV6_ADDRFORM),
	XTAP_NAME(IPV6_2292PKTINFO),
	XTAP_NAME(IPV6_2292HOPOPTS),
	XTAP_NAME(IPV6_2292DSTOPTS),
	XTAP_NAME(IPV6_2292RTHDR),
	XTAP_NAME(IPV6_2292PKTOPTIONS),
	XTAP_NAME(IPV6_CHECKSUM),
	XTAP_NAME(IPV6_2292HOPLIMIT),
	XTAP_NAME(IPV6_NEXTHOP),
	XTAP_NAME(IPV6_AUTHHDR),
	XTAP_NAME(IPV6_FLOWINFO),
	XTAP_NAME(IPV6_UNICAST_HOPS),
	XTAP_NAME(IPV6_MULTICAST_IF),
	XTAP_NAME(IPV6_MULTICAST_HOPS),
	XTAP_NAME(IPV6_MULTICAST_LOOP),
	XTAP_NAME(IPV6_ADD_MEMBERSHIP),
	XTAP_NAME(IPV6_DROP_MEMBERSHIP),
	XTAP_NAME(IPV6_ROUTER_ALERT),
	XTAP_NAME(IPV6_MTU_DISCOVER),
	XTAP_NAME(IPV6_MTU),
	XTAP_NAME(IPV6_RECVERR),
	XTAP_NAME(IPV6_V6ONLY),
	XTAP_NAME(IPV6_JOIN_ANYCAST),
	XTAP_NAME(IPV6_LEAVE_ANYCAST),
	XTAP_NAME(IPV6_FLOWLABEL_MGR),
	XTAP_NAME(IPV6_FLOWINFO_SEND),
	XTAP_NAME(IPV6_IPSEC_POLICY),
	XTAP_NAME(IPV6_XFRM_POLICY),
	XTAP_NAME(MCAST_JOIN_GROUP),
	XTAP_NAME(MCAST_BLOCK_SOURCE),
	XTAP_NAME(MCAST_UNBLOCK_SOURCE),
	XTAP_NAME(MCAST_LEAVE_GROUP),
	XTAP_NAME(MCAST_JOIN_SOURCE_GROUP),
	XTAP_NAME(MCAST_LEAVE_SOURCE_GROUP),
	XTAP_NAME(MCAST_MSFILTER),
	XTAP_NAME(IPV6_RECVPKTINFO),
	XTAP_NAME(IPV6_PKTINFO),
	XTAP_NAME(IPV6_RECVHOPLIMIT),
	XTAP_NAME(IPV6_HOPLIMIT),
	XTAP_NAME(IPV6_RECVHOPOPTS),
	XTAP_NAME(IPV6_HOPOPTS),
	XTAP_NAME(IPV6_RTHDRDSTOPTS),
	XTAP_NAME(IPV6_RECVRTHDR),
	XTAP_NAME(IPV6_RTHDR),
	XTAP_NAME(IPV6_RECVDSTOPTS),
	XTAP_NAME(IPV6_DSTOPTS),
	XTAP_NAME(IPV6_RECVPATHMTU),
	XTAP_NAME(IPV6_PATHMTU),
	XTAP_NAME(IPV6_DONTFRAG),
	XTAP_NAME(IPV6_RECVTCLASS),
	XTAP_NAME(IPV6_TCLASS),
	XTAP_NAME(IPV6_ADDR_PREFERENCES),
	XTAP_NAME(IPV6_MINHOPCOUNT),
	XTAP_NAME(IPV6_RECVORIGDSTADDR),
	XTAP_NAME(IPV6_TRANSPARENT),
};

/* The runtime's sources share translation units: the helper stays here. */
#undef XTAP_NAME

static const struct {
	const char *const *names;
	int count;
} xtap_name_tables[] = {
	[XTAP_NAMES_SOCK_TYPE] = { xtap_sock_type_names,
				   ARRAY_SIZE(xtap_sock_type_names) },
	[XTAP_NAMES_TCP_SOCKOPT] = { xtap_tcp_sockopt_names,
				     ARRAY_SIZE(xtap_tcp_sockopt_names) },
	[XTAP_NAMES_IPV6_SOCKOPT] = { xtap_ipv6_sockopt_names,
				      ARRAY_SIZE(xtap_ipv6_sockopt_names) },
};

/* The name of n in a table, or "" */
char *xtap_net_num2str(char *dst, int table, s64 n)
{
	const char *name = NULL;

	if (table >= 0 && table < ARRAY_SIZE(xtap_name_tables) && n >= 0 &&
	    n < xtap_name_tables[table].count)
		name = xtap_name_tables[table].names[n];
	strscpy(dst, name ? name : "", xtap_strsize());
	return dst;
}

s64 xtap_net_str2num(int table, const char *name)
{
	int i;

	if (table < 0 || table >= ARRAY_SIZE(xtap_name_tables))
		return -1;
	for (i = 0; i < xtap_name_tables[table].count; i++)
		if (xtap_name_tables[table].names[i] &&
		    !strcmp(xtap_name_tables[table].names[i], name))
			return i;
	return -1;
}

struct xtap_flag_name {
	unsigned long mask;
	const char *name;
};

static char *xtap_flags_str(char *dst, unsigned long flags,
			    const struct xtap_flag_name *names, int count)
{
	size_t size = xtap_strsize();
	int i;

	dst[0] = '\0';
	for (i = 0; i < count; i++) {
		if (!(flags & names[i].mask))
			continue;
		if (dst[0])
			strlcat(dst, "|", size);
		strlcat(dst, names[i].name, size);
	}
	return dst;
}

/* struct socket's flags: bit numbers */
char *xtap_sock_flags_str(char *dst, s64 flags)
{
	static const struct xtap_flag_name names[] = {
		{ BIT(SOCKWQ_ASYNC_NOSPACE), "ASYNC_NOSPACE" },
		{ BIT(SOCKWQ_ASYNC_WAITDATA), "ASYNC_WAITDATA" },
		{ BIT(SOCK_NOSPACE), "NOSPACE" },
		{ BIT(SOCK_PASSCRED), "PASSCRED" },
		{ BIT(SOCK_PASSSEC), "PASSSEC" },
	};

	return xtap_flags_str(dst, flags, names, ARRAY_SIZE(names));
}

/* sendmsg/recvmsg flags: masks */
char *xtap_msg_flags_str(char *dst, s64 flags)
{
	static const struct xtap_flag_name names[] = {
		{ MSG_OOB, "OOB" },
		{ MSG_PEEK, "PEEK" },
		{ MSG_DONTROUTE, "DONTROUTE" },
		{ MSG_TRYHARD,
		  "TRYHARD" }, /* the same bit, as stap prints it */
		{ MSG_CTRUNC, "CTRUNC" },
		{ MSG_PROBE, "PROBE" },
		{ MSG_TRUNC, "TRUNC" },
		{ MSG_DONTWAIT, "DONTWAIT" },
		{ MSG_EOR, "EOR" },
		{ MSG_WAITALL, "WAITALL" },
		{ MSG_FIN, "FIN" },
		{ MSG_SYN, "SYN" },
		{ MSG_CONFIRM, "CONFIRM" },
		{ MSG_RST, "RST" },
		{ MSG_ERRQUEUE, "ERRQUEUE" },
		{ MSG_NOSIGNAL, "NOSIGNAL" },
		{ MSG_MORE, "MORE" },
	};

	return xtap_flags_str(dst, flags, names, ARRAY_SIZE(names));
}
