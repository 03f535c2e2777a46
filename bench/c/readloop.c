/*
 * readloop: the system-call limit for buffered reads. read() of BS bytes
 * into one buffer until end of file, timed with CLOCK_MONOTONIC from just
 * after open() to the read() that returns 0. Evicting the file from the
 * page cache beforehand is the caller's job.
 *
 *   readloop FILE BS
 *
 * Prints one line:
 *   <bytes> <elapsed ns> <MiB/s>        (MiB = 2^20 bytes)
 *
 * Build: cc -O2 -o readloop readloop.c
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: readloop FILE BS\n");
		return 2;
	}
	char *end;
	errno = 0;
	long long v = strtoll(argv[2], &end, 10);
	if (errno || *end || v <= 0) {
		fprintf(stderr, "readloop: bad block size %s\n", argv[2]);
		return 2;
	}
	size_t bs = (size_t)v;

	char *buf;
	if (posix_memalign((void **)&buf, 4096, bs)) {
		fprintf(stderr, "readloop: cannot allocate %zu bytes\n", bs);
		return 1;
	}
	memset(buf, 0, bs); /* fault the pages in before the clock starts */

	int fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "readloop: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}

	long long bytes = 0;
	long long t0 = now_ns();
	for (;;) {
		ssize_t r = read(fd, buf, bs);
		if (r > 0) {
			bytes += r;
			continue;
		}
		if (r == 0)
			break;
		if (errno == EINTR)
			continue;
		fprintf(stderr, "readloop: read: %s\n", strerror(errno));
		return 1;
	}
	long long t1 = now_ns();

	close(fd);
	double ns = (double)(t1 - t0);
	printf("%lld %lld %.3f\n", bytes, t1 - t0,
	       (double)bytes / 1048576.0 / (ns / 1e9));
	return 0;
}
