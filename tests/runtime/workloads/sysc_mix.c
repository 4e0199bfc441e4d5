// sysc_mix: a fixed sequence of system calls with known arguments, for the
// syscall tapset's argstr and retstr: creates /tmp/xtap_sysc (fd 3, as
// xtap-run leaves 0-2 open), writes "hello\n", seeks back, reads it, closes
// it, fails to open /nonexistent (ENOENT), checks access, sends itself
// signal 0, removes the file, and opens an AF_INET socket (fd 3) and one
// of an unknown family (EAFNOSUPPORT).
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	char buf[8];
	long fd = syscall(SYS_openat, AT_FDCWD, "/tmp/xtap_sysc",
			  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return 1;
	syscall(SYS_write, fd, "hello\n", 6);
	syscall(SYS_lseek, fd, 0, SEEK_SET);
	syscall(SYS_close, fd);
	fd = syscall(SYS_openat, AT_FDCWD, "/tmp/xtap_sysc", O_RDONLY);
	syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(SYS_close, fd);
	syscall(SYS_openat, AT_FDCWD, "/nonexistent", O_RDONLY);
	syscall(SYS_access, "/tmp/xtap_sysc", R_OK | W_OK);
	syscall(SYS_kill, getpid(), 0);
	syscall(SYS_unlink, "/tmp/xtap_sysc");
	syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	syscall(SYS_socket, 12345, SOCK_DGRAM, 0);
	return 0;
}
