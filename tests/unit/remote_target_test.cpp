// xtap --remote targets and ssh failure explanations (cli/xtap/remote_ssh.h).
#include "xtap/remote_ssh.h"

#include <gtest/gtest.h>

using xtap::cli::explain_ssh_failure;
using xtap::cli::parse_remote_target;
using xtap::cli::RemoteTarget;

namespace {

RemoteTarget parse_ok(const std::string& spec) {
  RemoteTarget t;
  std::string err;
  EXPECT_TRUE(parse_remote_target(spec, &t, &err)) << spec << ": " << err;
  return t;
}

std::string parse_error(const std::string& spec) {
  RemoteTarget t;
  std::string err;
  EXPECT_FALSE(parse_remote_target(spec, &t, &err)) << spec;
  return err;
}

}  // namespace

TEST(RemoteTarget, StapsSshUrlForm) {
  RemoteTarget t = parse_ok("ssh://root@web1:2222");
  EXPECT_EQ(t.user, "root");
  EXPECT_EQ(t.host, "web1");
  EXPECT_EQ(t.port, 2222);
  EXPECT_EQ(t.label, "root@web1:2222");
  t = parse_ok("ssh://web1/");
  EXPECT_EQ(t.user, "");
  EXPECT_EQ(t.host, "web1");
  EXPECT_EQ(t.port, 0);
  EXPECT_EQ(t.label, "web1");
}

TEST(RemoteTarget, PlainUserAtHostAndIpv6) {
  RemoteTarget t = parse_ok("admin@10.0.0.5");
  EXPECT_EQ(t.user, "admin");
  EXPECT_EQ(t.host, "10.0.0.5");
  EXPECT_EQ(t.port, 0);
  t = parse_ok("ssh://root@[fe80::1]:22");
  EXPECT_EQ(t.host, "fe80::1");
  EXPECT_EQ(t.port, 22);
  EXPECT_EQ(t.label, "root@[fe80::1]:22");
}

TEST(RemoteTarget, MalformedTargetsSayWhy) {
  EXPECT_NE(parse_error("libvirt://guest").find("ssh only"), std::string::npos);
  EXPECT_NE(parse_error("ssh://host:99999").find("not a port number"), std::string::npos);
  EXPECT_NE(parse_error("ssh://host:").find("empty port"), std::string::npos);
  EXPECT_NE(parse_error("root@host:22").find("ssh://HOST:PORT"), std::string::npos);
  EXPECT_NE(parse_error("[::1]:22").find("ssh://[HOST]:PORT"), std::string::npos);
  EXPECT_NE(parse_error("ssh://[::1]:").find("empty port"), std::string::npos);
  EXPECT_NE(parse_error("ssh://root@").find("no host"), std::string::npos);
  EXPECT_NE(parse_error("ssh://-oProxyCommand=x").find("not a host name"), std::string::npos);
  EXPECT_NE(parse_error("ssh://host/path").find("no path"), std::string::npos);
}

TEST(RemoteTarget, SshFailuresAreNamedWithAHint) {
  RemoteTarget t = parse_ok("ssh://root@web1:2222");
  std::string refused =
      explain_ssh_failure(t, "ssh: connect to host web1 port 2222: Connection refused\r\n");
  EXPECT_EQ(refused,
            "root@web1:2222: cannot reach the host (ssh: connect to host web1 port 2222: "
            "Connection refused)\n"
            "  hint: check the address and port and that an ssh server runs there; `ssh -p 2222 "
            "root@web1 true` "
            "should work without a prompt");
  EXPECT_NE(explain_ssh_failure(t, "root@web1: Permission denied (publickey).\n")
                .find("authentication failed"),
            std::string::npos);
  EXPECT_NE(explain_ssh_failure(t, "Host key verification failed.\n").find("ssh key is not known"),
            std::string::npos);
  EXPECT_NE(
      explain_ssh_failure(t, "ssh: Could not resolve hostname web1: Name or service not known\n")
          .find("unknown host name"),
      std::string::npos);
  EXPECT_NE(explain_ssh_failure(t, "").find("ssh failed without saying why"), std::string::npos);
}
