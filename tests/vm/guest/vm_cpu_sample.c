/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU samples of one process in the rig's guest, which has no Python for
 * `unic-plot sample-cpu` (docs/plots.md has the format):
 *
 *   vm-cpu-sample PID EVERY_MS
 *
 * prints, every EVERY_MS milliseconds until the process ends or a SIGTERM
 * or SIGINT, one line
 *
 *   {"time":UNIX_S,"command":"/proc/cpu","data":{"pid":P,"cpu_seconds":S,
 *    "source":"schedstat","threads":[{"tid":T,"name":"N","cpu_seconds":S},...]}}
 *
 * (on one line), flushed at once.  A thread's CPU is the first field of
 * /proc/PID/task/TID/schedstat (nanoseconds on a CPU, user and system), or,
 * where the kernel has no schedstat, utime + stime of its stat (clock
 * ticks); "source" says which.  The process's cpu_seconds is the sum over
 * the threads alive at the sample: the same measure for any forwarder, unic
 * or DPDK.  Exit status 0 when the process ended or a signal stopped the
 * samples, 1 on bad usage or when PID did not exist at the start.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t cpus_stop;

static void cpus_on_signal(int sig)
{
	(void)sig;
	cpus_stop = 1;
}

/* Seconds on a CPU of task @p tid of @p pid; -1 when it is gone. */
static double cpus_task(long pid, long tid, int *schedstat)
{
	char path[96], buf[1024], *p;
	unsigned long long ns, ut, st;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/schedstat", pid, tid);
	f = fopen(path, "r");
	if (f) {
		n = fscanf(f, "%llu", &ns);
		fclose(f);
		if (n == 1) {
			*schedstat = 1;
			return (double)ns / 1e9;
		}
	}
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/stat", pid, tid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* comm may hold spaces and parentheses: the fields follow the last ')' */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL)
		return -1;
	/* after ')': state(3) ... utime(14) stime(15), counted from pid(1) */
	if (sscanf(p + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu", &ut, &st) != 2)
		return -1;
	*schedstat = 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static void cpus_name(long pid, long tid, char *name, size_t len)
{
	char path[96];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/comm", pid, tid);
	name[0] = '\0';
	f = fopen(path, "r");
	if (f == NULL)
		return;
	n = fread(name, 1, len - 1, f);
	fclose(f);
	name[n] = '\0';
	for (size_t i = 0; i < n; i++)  /* a JSON string: no quotes, controls */
		if (name[i] == '"' || name[i] == '\\' || (unsigned char)name[i] < 0x20)
			name[i] = name[i] == '\n' ? '\0' : '_';
}

/* One sample line; 0, or -1 when the process is gone. */
static int cpus_sample(long pid)
{
	char dir[64], line[16384], name[32];
	struct timespec ts;
	struct dirent *d;
	double sum = 0;
	size_t off = 0;
	int ss = 0, first = 1;
	DIR *dp;

	snprintf(dir, sizeof(dir), "/proc/%ld/task", pid);
	clock_gettime(CLOCK_REALTIME, &ts);
	dp = opendir(dir);
	if (dp == NULL)
		return -1;
	while ((d = readdir(dp)) != NULL && off < sizeof(line) - 256) {
		long tid = strtol(d->d_name, NULL, 10);
		double s;

		if (tid <= 0)
			continue;
		s = cpus_task(pid, tid, &ss);
		if (s < 0)
			continue;       /* the thread ended meanwhile */
		cpus_name(pid, tid, name, sizeof(name));
		sum += s;
		off += (size_t)snprintf(line + off, sizeof(line) - off,
					"%s{\"tid\":%ld,\"name\":\"%s\",\"cpu_seconds\":%.6f}",
					first ? "" : ",", tid, name, s);
		first = 0;
	}
	closedir(dp);
	if (first)
		return -1;
	printf("{\"time\":%ld.%06ld,\"command\":\"/proc/cpu\",\"data\":{\"pid\":%ld,\"cpu_seconds\":%.6f,"
	       "\"source\":\"%s\",\"threads\":[%s]}}\n",
	       (long)ts.tv_sec, ts.tv_nsec / 1000, pid, sum, ss ? "schedstat" : "stat", line);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = cpus_on_signal };
	struct timespec every;
	long pid, ms;
	int n = 0;

	if (argc != 3 || (pid = strtol(argv[1], NULL, 10)) <= 0 ||
	    (ms = strtol(argv[2], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: vm-cpu-sample PID EVERY_MS (a process id and a period above 0)\n");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	every.tv_sec = ms / 1000;
	every.tv_nsec = (ms % 1000) * 1000000L;
	while (!cpus_stop) {
		if (cpus_sample(pid) < 0)
			break;
		n++;
		nanosleep(&every, NULL);    /* a signal ends it early: then stop */
	}
	fprintf(stderr, "vm-cpu-sample: %d samples of pid %ld\n", n, pid);
	return n > 0 ? 0 : 1;
}
