/*
 * rutime: GNU time -f '%e %U %S %M' to the microsecond. GNU time prints
 * CPU seconds to 10 ms, and a client paced at 1 Mbit/s takes a few tens of
 * milliseconds in a run. Small and in C, like GNU time, so that the child
 * it forks starts with next to nothing resident: Linux carries the peak RSS
 * of the image before exec into the child's (a Python wrapper's 10 MiB
 * would be every tool's floor).
 *
 *   rutime -o FILE COMMAND [ARG...]
 *
 * Runs COMMAND, waits for it and writes one line to FILE:
 *   <elapsed s> <user s> <system s> <peak RSS KiB>
 * with the rusage of COMMAND and the children it waited for. Exits with
 * COMMAND's status (128 + the signal that ended it).
 *
 * Build: cc -O2 -o rutime rutime.c
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[1], "-o") != 0) {
		fprintf(stderr, "usage: rutime -o FILE COMMAND [ARG...]\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("rutime: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		perror("rutime: exec");
		_exit(127);
	}
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("rutime: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	FILE *f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	fprintf(f, "%.6f %ld.%06ld %ld.%06ld %ld\n",
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		(long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
		(long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss);
	if (fclose(f) != 0) {
		perror(argv[2]);
		return 2;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
