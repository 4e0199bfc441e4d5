// Asks the guest kernel's own public-key code whether a signature is
// valid: the certificate is parsed by the kernel's X.509 parser into an
// "asymmetric" key, and KEYCTL_PKEY_VERIFY checks the RSA PKCS#1 v1.5
// signature over a SHA-256 digest, as the module loader's signature check
// does (pkcs7_verify -> public_key_verify_signature). Used by
// tests/fleet/run_fleet_vm.py on a module signed by xtap --sign-key.
//
// Usage: pkey_verify CERT.der DIGEST.bin SIGNATURE.bin
// Prints "verified" (exit 0) or "rejected: REASON" (exit 1).
#include <errno.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long slurp(const char *path, char *buf, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(buf, 1, size, f);
  fclose(f);
  return (long)n;
}

int main(int argc, char **argv) {
  static char cert[16384], digest[64], sig[1024];
  if (argc != 4) {
    fprintf(stderr, "usage: pkey_verify CERT.der DIGEST.bin SIGNATURE.bin\n");
    return 2;
  }
  long cert_len = slurp(argv[1], cert, sizeof cert);
  long digest_len = slurp(argv[2], digest, sizeof digest);
  long sig_len = slurp(argv[3], sig, sizeof sig);
  if (cert_len <= 0 || digest_len <= 0 || sig_len <= 0) {
    fprintf(stderr, "pkey_verify: cannot read the inputs\n");
    return 2;
  }
  long key = syscall(SYS_add_key, "asymmetric", "xtap fleet test", cert, (size_t)cert_len,
                     KEY_SPEC_PROCESS_KEYRING);
  if (key < 0) {
    printf("rejected: the kernel did not accept the certificate: %s\n", strerror(errno));
    return 1;
  }
  struct keyctl_pkey_params params;
  memset(&params, 0, sizeof params);
  params.key_id = (int)key;
  params.in_len = (unsigned)digest_len;
  params.in2_len = (unsigned)sig_len;
  if (syscall(SYS_keyctl, KEYCTL_PKEY_VERIFY, &params, "enc=pkcs1 hash=sha256", digest, sig) != 0) {
    printf("rejected: %s\n", strerror(errno));
    return 1;
  }
  printf("verified\n");
  return 0;
}
