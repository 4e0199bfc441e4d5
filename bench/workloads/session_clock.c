// session_clock: how long a tracer's runner takes to arm its probes and to
// take them down again, measured from inside the guest.
//
//   session_clock run FILE RUNNER [ARGS...]
//       notes the time, runs RUNNER (which is given `session_clock stamp
//       FILE` as its -c command), waits for it, and prints start_ms (runner
//       started -> command started, that is probes armed) and stop_ms
//       (command ended -> runner gone, that is probes removed and the module
//       unloaded), and the traced module's size from /proc/modules as the
//       command saw it.
//   session_clock stamp FILE
//       writes the time and the lines of /proc/modules that are not the
//       kernel's own into FILE: what the runner runs as its command.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int stamp(const char *file)
{
	double t = now_ms();
	FILE *out = fopen(file, "w"), *mods = fopen("/proc/modules", "r");
	char line[512];

	if (!out)
		return 1;
	fprintf(out, "%.3f\n", t);
	while (mods && fgets(line, sizeof(line), mods))
		fputs(line, out);
	if (mods)
		fclose(mods);
	return fclose(out) != 0;
}

static int run(const char *file, char **argv)
{
	double t0 = now_ms(), t1, ts = 0;
	int status;
	pid_t pid;
	FILE *in;
	char line[512];
	unsigned long size, most = 0;
	char name[128];

	unlink(file);
	pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	t1 = now_ms();
	in = fopen(file, "r");
	if (!in || !fgets(line, sizeof(line), in)) {
		printf("no stamp: the command did not run (exit status %d)\n", WEXITSTATUS(status));
		return 1;
	}
	ts = atof(line);
	/* The traced module is the biggest one loaded while the command ran. */
	while (fgets(line, sizeof(line), in))
		if (sscanf(line, "%127s %lu", name, &size) == 2 && size > most)
			most = size;
	fclose(in);
	printf("start_ms=%.1f stop_ms=%.1f module_bytes=%lu exit=%d\n", ts - t0, t1 - ts, most,
	       WEXITSTATUS(status));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "stamp") == 0)
		return stamp(argv[2]);
	if (argc >= 4 && strcmp(argv[1], "run") == 0)
		return run(argv[2], argv + 3);
	fprintf(stderr, "usage: session_clock run FILE RUNNER [ARGS...] | session_clock stamp FILE\n");
	return 2;
}
