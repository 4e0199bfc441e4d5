// Module signature check with libcrypto (module_verify.h). The layout is
// the kernel's: module bytes, PKCS#7 DER, struct module_signature (12 bytes,
// the signature's length big-endian at the end), then the marker.
#include "runner/module_verify.h"

#include <dirent.h>
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "common/module_signature.h"

namespace xtap::runner {

namespace {

constexpr size_t kSigInfoSize = 12;  // struct module_signature
constexpr unsigned char kIdPkcs7 = 2;

X509* parse_cert(const std::string& bytes) {
  BIO* bio = BIO_new_mem_buf(bytes.data(), int(bytes.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (cert) return cert;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(bytes.data());
  return d2i_X509(nullptr, &p, long(bytes.size()));
}

}  // namespace

std::string read_trusted_certs(int dir_fd, std::vector<std::string>* certs) {
  int dup_fd = dup(dir_fd);
  DIR* dir = dup_fd >= 0 ? fdopendir(dup_fd) : nullptr;
  if (!dir) return std::string("cannot list the certificates: ") + std::strerror(errno);
  std::string why;
  while (struct dirent* d = readdir(dir)) {
    if (d->d_name[0] == '.') continue;
    int fd = openat(dir_fd, d->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
        (st.st_mode & (S_IWGRP | S_IWOTH))) {
      if (fd >= 0) close(fd);
      continue;  // not the administrator's: ignored, as if absent
    }
    std::string bytes;
    char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0 && bytes.size() < (1u << 20)) bytes.append(buf, n);
    close(fd);
    certs->push_back(bytes);
  }
  closedir(dir);
  if (certs->empty())
    return "no trusted certificate: none there is root's and not writable by group or others";
  return why;
}

std::string verify_module_signature(const std::string& module,
                                    const std::vector<std::string>& certs) {
  if (!has_module_signature(module)) return "it is not signed";
  size_t end = module.size() - kModuleSignatureMarker.size();
  if (end < kSigInfoSize) return "its signature is damaged";
  const unsigned char* info =
      reinterpret_cast<const unsigned char*>(module.data()) + end - kSigInfoSize;
  size_t sig_len = (size_t(info[8]) << 24) | (info[9] << 16) | (info[10] << 8) | info[11];
  if (info[2] != kIdPkcs7 || sig_len == 0 || sig_len > end - kSigInfoSize)
    return "its signature is damaged";
  size_t content_len = end - kSigInfoSize - sig_len;
  const unsigned char* sig = info - sig_len;

  std::unique_ptr<STACK_OF(X509), void (*)(STACK_OF(X509)*)> stack(
      sk_X509_new_null(), [](STACK_OF(X509) * s) { sk_X509_pop_free(s, X509_free); });
  for (const auto& c : certs)
    if (X509* x = parse_cert(c)) sk_X509_push(stack.get(), x);
  if (sk_X509_num(stack.get()) == 0) return "none of the trusted certificates could be parsed";

  const unsigned char* p = sig;
  CMS_ContentInfo* cms = d2i_CMS_ContentInfo(nullptr, &p, long(sig_len));
  if (!cms) return "its signature is damaged (not PKCS#7)";
  BIO* content = BIO_new_mem_buf(module.data(), int(content_len));
  // The signer must be one of the administrator's certificates (NOINTERN:
  // none the signature brings along); trust is that list, not a chain.
  int ok = CMS_verify(cms, stack.get(), nullptr, content, nullptr,
                      CMS_BINARY | CMS_NOINTERN | CMS_NO_SIGNER_CERT_VERIFY | CMS_DETACHED);
  BIO_free(content);
  CMS_ContentInfo_free(cms);
  if (ok != 1) return "its signature does not verify against a trusted certificate";
  return "";
}

}  // namespace xtap::runner
