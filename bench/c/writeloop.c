/*
 * writeloop: the system-call limit for buffered writes, to compare thruput
 * and dd against. One write() of BS bytes per block from one zeroed buffer,
 * then fsync(), timed together with CLOCK_MONOTONIC from just after open()
 * to just after fsync() returns, the same span thruput and dd (conv=fsync)
 * time.
 *
 *   writeloop FILE BS COUNT
 *
 * FILE is opened O_WRONLY|O_CREAT|O_TRUNC. Prints one line:
 *   <bytes> <elapsed ns> <MiB/s>        (MiB = 2^20 bytes)
 *
 * Build: cc -O2 -o writeloop writeloop.c
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long parse(const char *s, const char *what)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "writeloop: bad %s %s\n", what, s);
		exit(2);
	}
	return v;
}

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: writeloop FILE BS COUNT\n");
		return 2;
	}
	size_t bs = (size_t)parse(argv[2], "block size");
	long long count = parse(argv[3], "count");

	char *buf;
	if (posix_memalign((void **)&buf, 4096, bs)) {
		fprintf(stderr, "writeloop: cannot allocate %zu bytes\n", bs);
		return 1;
	}
	memset(buf, 0, bs); /* fault the pages in before the clock starts */

	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		fprintf(stderr, "writeloop: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}

	long long t0 = now_ns();
	for (long long i = 0; i < count; i++) {
		ssize_t r = write(fd, buf, bs);
		if (r == (ssize_t)bs)
			continue;
		if (r < 0 && errno == EINTR) {
			i--;
			continue;
		}
		fprintf(stderr, "writeloop: write: %s\n",
			r < 0 ? strerror(errno) : "short write");
		return 1;
	}
	if (fsync(fd) != 0) {
		fprintf(stderr, "writeloop: fsync: %s\n", strerror(errno));
		return 1;
	}
	long long t1 = now_ns();

	if (close(fd) != 0) {
		fprintf(stderr, "writeloop: close: %s\n", strerror(errno));
		return 1;
	}
	long long bytes = (long long)bs * count;
	double ns = (double)(t1 - t0);
	printf("%lld %lld %.3f\n", bytes, t1 - t0,
	       (double)bytes / 1048576.0 / (ns / 1e9));
	return 0;
}
