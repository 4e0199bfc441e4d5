// SPDX-License-Identifier: GPL-2.0
/*
 * nfsderror(err): an nfsd status (a __be32, as nfsd's functions return
 * it) as "nfsderr 2(NFSERR_NOENT)", or "nfsderr N" for a number the table
 * does not know. The numbers are the NFS protocols' (RFC 1813, 7530,
 * 5661), which the kernel's headers spell in several enums that moved
 * between releases; the names are the ones stap prints.
 */
#include <linux/kernel.h>
#include <linux/types.h>
#include <asm/byteorder.h>
#include "internal.h"

static const struct {
	u32 nr;
	const char *name;
} xtap_nfsd_errors[] = {
	{ 0, "NFS_OK" },
	{ 1, "NFSERR_PERM" },
	{ 2, "NFSERR_NOENT" },
	{ 5, "NFSERR_IO" },
	{ 6, "NFSERR_NXIO" },
	{ 11, "NFSERR_EAGAIN" },
	{ 13, "NFSERR_ACCES" },
	{ 17, "NFSERR_EXIST" },
	{ 18, "NFSERR_XDEV" },
	{ 19, "NFSERR_NODEV" },
	{ 20, "NFSERR_NOTDIR" },
	{ 21, "NFSERR_ISDIR" },
	{ 22, "NFSERR_INVAL" },
	{ 27, "NFSERR_FBIG" },
	{ 28, "NFSERR_NOSPC" },
	{ 30, "NFSERR_ROFS" },
	{ 31, "NFSERR_MLINK" },
	{ 45, "NFSERR_OPNOTSUPP" },
	{ 63, "NFSERR_NAMETOOLONG" },
	{ 66, "NFSERR_NOTEMPTY" },
	{ 69, "NFSERR_DQUOT" },
	{ 70, "NFSERR_STALE" },
	{ 71, "NFSERR_REMOTE" },
	{ 99, "NFSERR_WFLUSH" },
	{ 10001, "NFSERR_BADHANDLE" },
	{ 10002, "NFSERR_NOT_SYNC" },
	{ 10003, "NFSERR_BAD_COOKIE" },
	{ 10004, "NFSERR_NOTSUPP" },
	{ 10005, "NFSERR_TOOSMALL" },
	{ 10006, "NFSERR_SERVERFAULT" },
	{ 10007, "NFSERR_BADTYPE" },
	{ 10008, "NFSERR_JUKEBOX" },
	{ 10009, "NFSERR_SAME" },
	{ 10010, "NFSERR_DENIED" },
	{ 10011, "NFSERR_EXPIRED" },
	{ 10012, "NFSERR_LOCKED" },
	{ 10013, "NFSERR_GRACE" },
	{ 10015, "NFSERR_SHARE_DENIED" },
	{ 10016, "NFSERR_WRONGSEC" },
	{ 10017, "NFSERR_CLID_INUSE" },
	{ 10018, "NFSERR_RESOURCE" },
	{ 10019, "NFSERR_MOVED" },
	{ 10020, "NFSERR_NOFILEHANDLE" },
	{ 10021, "NFSERR_MINOR_VERS_MISMATCH" },
	{ 10022, "NFSERR_STALE_CLIENTID" },
	{ 10023, "NFSERR_STALE_STATEID" },
	{ 10024, "NFSERR_OLD_STATEID" },
	{ 10025, "NFSERR_BAD_STATEID" },
	{ 10026, "NFSERR_BAD_SEQID" },
	{ 10032, "NFSERR_ATTRNOTSUPP" },
	{ 10033, "NFSERR_NO_GRACE" },
	{ 10034, "NFSERR_RECLAIM_BAD" },
	{ 10036, "NFSERR_BAD_XDR" },
	{ 10037, "NFSERR_LOCKS_HELD" },
	{ 10038, "NFSERR_OPENMODE" },
	{ 10041, "NFSERR_BADNAME" },
	{ 10044, "NFSERR_OP_ILLEGAL" },
	{ 10045, "NFSERR_DEADLOCK" },
	{ 10048, "NFSERR_CB_PATH_DOWN" },
	{ 10049, "NFS4ERR_BADIOMODE" },
	{ 10050, "NFS4ERR_BADLAYOUT" },
	{ 10051, "NFS4ERR_BAD_SESSION_DIGEST" },
	{ 10052, "NFS4ERR_BADSESSION" },
	{ 10053, "NFS4ERR_BADSLOT" },
	{ 10054, "NFS4ERR_COMPLETE_ALREADY" },
	{ 10055, "NFS4ERR_CONN_NOT_BOUND_TO_SESSION" },
	{ 10056, "NFS4ERR_DELEG_ALREADY_WANTED" },
	{ 10057, "NFS4ERR_BACK_CHAN_BUSY" },
	{ 10058, "NFS4ERR_LAYOUTTRYLATER" },
	{ 10059, "NFS4ERR_LAYOUTUNAVAILABLE" },
	{ 10060, "NFS4ERR_NOMATCHING_LAYOUT" },
	{ 10061, "NFS4ERR_RECALLCONFLICT" },
	{ 10062, "NFS4ERR_UNKNOWN_LAYOUTTYPE" },
	{ 10063, "NFS4ERR_SEQ_MISORDERED" },
	{ 10064, "NFS4ERR_SEQUENCE_POS" },
	{ 10065, "NFS4ERR_REQ_TOO_BIG" },
	{ 10066, "NFS4ERR_REP_TOO_BIG" },
	{ 10067, "NFS4ERR_REP_TOO_BIG_TO_CACHE" },
	{ 10068, "NFS4ERR_RETRY_UNCACHED_REP" },
	{ 10069, "NFS4ERR_UNSAFE_COMPOUND" },
	{ 10070, "NFS4ERR_TOO_MANY_OPS" },
	{ 10071, "NFS4ERR_OP_NOT_IN_SESSION" },
	{ 10072, "NFS4ERR_HASH_ALG_UNSUPP" },
	{ 10074, "NFS4ERR_CLIENTID_BUSY" },
	{ 10075, "NFS4ERR_PNFS_IO_HOLE" },
	{ 10076, "NFS4ERR_SEQ_FALSE_RETRY" },
	{ 10077, "NFS4ERR_BAD_HIGH_SLOT" },
	{ 10078, "NFS4ERR_DEADSESSION" },
	{ 10079, "NFS4ERR_ENCR_ALG_UNSUPP" },
	{ 10080, "NFS4ERR_PNFS_NO_LAYOUT" },
	{ 10081, "NFS4ERR_NOT_ONLY_OP" },
	{ 10082, "NFS4ERR_WRONG_CRED" },
	{ 10083, "NFS4ERR_WRONG_TYPE" },
	{ 10084, "NFS4ERR_DIRDELEG_UNAVAIL" },
	{ 10085, "NFS4ERR_REJECT_DELEG" },
	{ 10086, "NFS4ERR_RETURNCONFLICT" },
	{ 10087, "NFS4ERR_DELEG_REVOKED" },
};

char *xtap_nfsderror(char *dst, s64 err)
{
	u32 nr = be32_to_cpu((__force __be32)(u32)err);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(xtap_nfsd_errors); i++) {
		if (xtap_nfsd_errors[i].nr == nr) {
			snprintf(dst, xtap_sess.limits.maxstringlen,
				 "nfsderr %d(%s)", (int)nr,
				 xtap_nfsd_errors[i].name);
			return dst;
		}
	}
	snprintf(dst, xtap_sess.limits.maxstringlen, "nfsderr %d", (int)nr);
	return dst;
}
