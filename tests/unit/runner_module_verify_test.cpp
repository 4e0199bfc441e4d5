// The setuid xtap-run's check of a module's appended signature against the
// administrator's certificates (runner/module_verify.h), on bytes signed
// here the way the kernel's sign-file does it (detached CMS, no
// certificates, no attributes).
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/module_signature.h"
#include "runner/module_verify.h"

namespace xtap::runner {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kDir = std::string(XTAP_SOURCE_DIR) + "/tests/runtime/privilege/";

// content + PKCS#7 + struct module_signature + marker.
std::string sign(const std::string& content) {
  std::string key_pem = slurp(kDir + "test_sign_key.pem");
  std::string cert_pem = slurp(kDir + "test_sign_cert.pem");
  BIO* kb = BIO_new_mem_buf(key_pem.data(), int(key_pem.size()));
  BIO* cb = BIO_new_mem_buf(cert_pem.data(), int(cert_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(kb, nullptr, nullptr, nullptr);
  X509* cert = PEM_read_bio_X509(cb, nullptr, nullptr, nullptr);
  BIO* data = BIO_new_mem_buf(content.data(), int(content.size()));
  unsigned flags = CMS_NOCERTS | CMS_PARTIAL | CMS_BINARY | CMS_DETACHED;
  CMS_ContentInfo* cms = CMS_sign(nullptr, nullptr, nullptr, nullptr, flags);
  CMS_add1_signer(cms, cert, key, EVP_sha256(), CMS_NOCERTS | CMS_BINARY | CMS_NOATTR);
  CMS_final(cms, data, nullptr, CMS_NOCERTS | CMS_BINARY);
  unsigned char* der = nullptr;
  int len = i2d_CMS_ContentInfo(cms, &der);
  std::string out = content + std::string(reinterpret_cast<char*>(der), size_t(len));
  unsigned char info[12] = {0, 0, 2, 0, 0, 0, 0, 0};
  info[8] = (len >> 24) & 0xff, info[9] = (len >> 16) & 0xff, info[10] = (len >> 8) & 0xff;
  info[11] = len & 0xff;
  out += std::string(reinterpret_cast<char*>(info), sizeof info);
  out += kModuleSignatureMarker;
  OPENSSL_free(der);
  CMS_ContentInfo_free(cms);
  BIO_free(data), BIO_free(kb), BIO_free(cb);
  EVP_PKEY_free(key), X509_free(cert);
  return out;
}

const std::string kContent(4096, 'm');

TEST(ModuleVerify, TrustedSignerVerifies) {
  EXPECT_EQ(verify_module_signature(sign(kContent), {slurp(kDir + "test_sign_cert.pem")}), "");
}

TEST(ModuleVerify, ChangedByteFails) {
  std::string m = sign(kContent);
  m[100] = 'X';
  EXPECT_EQ(verify_module_signature(m, {slurp(kDir + "test_sign_cert.pem")}),
            "its signature does not verify against a trusted certificate");
}

TEST(ModuleVerify, UnsignedAndDamaged) {
  std::vector<std::string> certs = {slurp(kDir + "test_sign_cert.pem")};
  EXPECT_EQ(verify_module_signature(kContent, certs), "it is not signed");
  std::string m = sign(kContent);
  // A signature length larger than the file.
  m[m.size() - kModuleSignatureMarker.size() - 4] = '\x7f';
  EXPECT_EQ(verify_module_signature(m, certs), "its signature is damaged");
  EXPECT_EQ(verify_module_signature(std::string(kModuleSignatureMarker), certs),
            "its signature is damaged");
}

// Some other self-signed certificate, as PEM.
std::string other_cert() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* x = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(x), 7);
  X509_gmtime_adj(X509_getm_notBefore(x), 0);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, key);
  X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("other"), -1, -1, 0);
  X509_set_issuer_name(x, X509_get_subject_name(x));
  X509_sign(x, key, EVP_sha256());
  BIO* b = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(b, x);
  char* p = nullptr;
  long n = BIO_get_mem_data(b, &p);
  std::string pem(p, size_t(n));
  BIO_free(b), X509_free(x), EVP_PKEY_free(key);
  return pem;
}

TEST(ModuleVerify, UntrustedCertificateFails) {
  EXPECT_EQ(verify_module_signature(sign(kContent), {other_cert()}),
            "its signature does not verify against a trusted certificate");
  // Trusting both: the right one is found.
  EXPECT_EQ(
      verify_module_signature(sign(kContent), {other_cert(), slurp(kDir + "test_sign_cert.pem")}),
      "");
  // No certificate parses: nothing is trusted.
  EXPECT_EQ(verify_module_signature(sign(kContent), {"not a certificate"}),
            "none of the trusted certificates could be parsed");
}

}  // namespace
}  // namespace xtap::runner
