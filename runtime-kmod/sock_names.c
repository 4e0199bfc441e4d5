// SPDX-License-Identifier: GPL-2.0
/*
 * Names of socket protocols, address families and socket states:
 * sock_prot_num2str() and friends. Protocol names are IANA's (as in
 * /etc/protocols), families the kernel's AF_ names without the prefix.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "internal.h"

static const char *const xtap_prot_names[] = {
	[0] = "IP",
	[1] = "ICMP",
	[2] = "IGMP",
	[3] = "GGP",
	[4] = "IPENCAP",
	[5] = "ST",
	[6] = "TCP",
	[8] = "EGP",
	[9] = "IGP",
	[12] = "PUP",
	[17] = "UDP",
	[20] = "HMP",
	[22] = "XNS-IDP",
	[27] = "RDP",
	[29] = "ISO-TP4",
	[33] = "DCCP",
	[36] = "XTP",
	[37] = "DDP",
	[38] = "IDPR-CMTP",
	[41] = "IPV6",
	[43] = "IPV6-ROUTE",
	[44] = "IPV6-FRAG",
	[45] = "IDRP",
	[46] = "RSVP",
	[47] = "GRE",
	[50] = "ESP",
	[51] = "AH",
	[57] = "SKIP",
	[58] = "IPV6-ICMP",
	[59] = "IPV6-NONXT",
	[60] = "IPV6-OPTS",
	[73] = "RSPF",
	[81] = "VMTP",
	[88] = "EIGRP",
	[89] = "OSPF",
	[93] = "AX.25",
	[94] = "IPIP",
	[97] = "ETHERIP",
	[98] = "ENCAP",
	[103] = "PIM",
	[108] = "IPCOMP",
	[112] = "VRRP",
	[115] = "L2TP",
	[124] = "ISIS",
	[132] = "SCTP",
	[133] = "FC",
	[135] = "MOBILITY-HEADER",
	[136] = "UDPLITE",
	[137] = "MPLS-IN-IP",
	[138] = "MANET",
	[139] = "HIP",
	[140] = "SHIM6",
	[141] = "WESP",
	[142] = "ROHC",
	[143] = "ETHERNET",
};

static const char *const xtap_fam_names[] = {
	[0] = "UNSPEC",	     [1] = "LOCAL",	 [2] = "INET",
	[3] = "AX25",	     [4] = "IPX",	 [5] = "APPLETALK",
	[6] = "NETROM",	     [7] = "BRIDGE",	 [8] = "ATMPVC",
	[9] = "X25",	     [10] = "INET6",	 [11] = "ROSE",
	[12] = "DECnet",     [13] = "NETBEUI",	 [14] = "SECURITY",
	[15] = "KEY",	     [16] = "NETLINK",	 [17] = "PACKET",
	[18] = "ASH",	     [19] = "ECONET",	 [20] = "ATMSVC",
	[21] = "RDS",	     [22] = "SNA",	 [23] = "IRDA",
	[24] = "PPPOX",	     [25] = "WANPIPE",	 [26] = "LLC",
	[27] = "IB",	     [28] = "MPLS",	 [29] = "CAN",
	[30] = "TIPC",	     [31] = "BLUETOOTH", [32] = "IUCV",
	[33] = "RXRPC",	     [34] = "ISDN",	 [35] = "PHONET",
	[36] = "IEEE802154", [37] = "CAIF",	 [38] = "ALG",
	[39] = "NFC",	     [40] = "VSOCK",	 [41] = "KCM",
	[42] = "QIPCRTR",    [43] = "SMC",	 [44] = "XDP",
	[45] = "MCTP",
};

static const char *const xtap_sock_state_names[] = {
	[0] = "FREE",	   [1] = "UNCONNECTED",	  [2] = "CONNECTING",
	[3] = "CONNECTED", [4] = "DISCONNECTING",
};

static const struct {
	const char *const *names;
	int count;
} xtap_sock_tables[] = {
	{ xtap_prot_names, ARRAY_SIZE(xtap_prot_names) },
	{ xtap_fam_names, ARRAY_SIZE(xtap_fam_names) },
	{ xtap_sock_state_names, ARRAY_SIZE(xtap_sock_state_names) },
};

/* table 0 protocols, 1 families, 2 states: the name of n, or "UNDEF" */
char *xtap_sock_num2str(char *dst, int table, s64 n)
{
	const char *name = NULL;

	if (table >= 0 && table < ARRAY_SIZE(xtap_sock_tables) && n >= 0 &&
	    n < xtap_sock_tables[table].count)
		name = xtap_sock_tables[table].names[n];
	strscpy(dst, name ? name : "UNDEF", xtap_strsize());
	return dst;
}

/* the number of name, or -1 */
s64 xtap_sock_str2num(int table, const char *name)
{
	int i;

	if (table < 0 || table >= ARRAY_SIZE(xtap_sock_tables))
		return -1;
	for (i = 0; i < xtap_sock_tables[table].count; i++)
		if (xtap_sock_tables[table].names[i] &&
		    !strcmp(xtap_sock_tables[table].names[i], name))
			return i;
	return -1;
}
