// proc_life: one of each process event, for the tapsets tests. It forks a
// child that waits in sigsuspend() (SIGUSR1 stays blocked outside it, so a
// signal that comes before the wait is not lost), sends it SIGUSR1 (caught: the handler runs) and then SIGTERM (fatal),
// reaps it, touches one page at 0x20000000 (a write fault there), and
// exec()s getppid_n 1 (a workload of the same directory).
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	got_usr1 = 1;
}

int main(void)
{
	int fds[2];
	char c;

	if (pipe(fds))
		return 1;
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		sigset_t usr1, none;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigemptyset(&none);
		signal(SIGUSR1, on_usr1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		write(fds[1], "r", 1);
		while (!got_usr1)
			sigsuspend(&none);
		write(fds[1], "u", 1);
		for (;;)
			pause();
	}
	read(fds[0], &c, 1);
	kill(child, SIGUSR1);
	read(fds[0], &c, 1);
	kill(child, SIGTERM);
	waitpid(child, NULL, 0);

	char *p = mmap((void *)0x20000000UL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	p[123] = 1;

	execl("/usr/bin/getppid_n", "getppid_n", "1", (char *)NULL);
	return 1;
}
