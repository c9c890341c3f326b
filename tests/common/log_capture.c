/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "log_capture.h"

char logcap_buf[LOGCAP_SIZE];
char logcap_last[LOGCAP_LAST_SIZE];
int logcap_last_level;
int logcap_nb[UNIC_LOG_DEBUG + 1];
int logcap_total;
char logtail[LOGTAIL_SIZE];

static pthread_mutex_t logcap_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t logcap_len;
static int logcap_keep;
static unsigned logcap_flags;
static bool logtail_echo;

void logcap_sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg)
{
	int n;

	(void)ctx;
	if ((int)level > logcap_keep)
		return;
	pthread_mutex_lock(&logcap_lock);
	/* A test may empty the buffer by writing its first byte. */
	if (logcap_buf[0] == '\0')
		logcap_len = 0;
	if (logcap_flags & LOGCAP_COMP)
		n = snprintf(logcap_buf + logcap_len, sizeof(logcap_buf) - logcap_len, "%s: %s\n",
			     unic_log_comp_name(comp), msg);
	else
		n = snprintf(logcap_buf + logcap_len, sizeof(logcap_buf) - logcap_len, "%s\n", msg);
	if (n > 0)
		logcap_len = UNIC_MIN(logcap_len + (size_t)n, sizeof(logcap_buf) - 1);
	snprintf(logcap_last, sizeof(logcap_last), "%s", msg);
	logcap_last_level = (int)level;
	if ((int)level >= 0 && (int)level <= UNIC_LOG_DEBUG)
		logcap_nb[level]++;
	logcap_total++;
	pthread_mutex_unlock(&logcap_lock);
}

void logcap_clear(void)
{
	pthread_mutex_lock(&logcap_lock);
	logcap_buf[0] = '\0';
	logcap_len = 0;
	logcap_last[0] = '\0';
	logcap_last_level = 0;
	memset(logcap_nb, 0, sizeof(logcap_nb));
	logcap_total = 0;
	pthread_mutex_unlock(&logcap_lock);
}

void logcap_start(int keep, unsigned flags)
{
	logcap_clear();
	logcap_keep = keep;
	logcap_flags = flags;
	unic_log_set_sink(logcap_sink, NULL);
}

void logcap_stop(void)
{
	unic_log_set_sink(NULL, NULL);
}

bool logcap_has(const char *needle)
{
	bool found;

	pthread_mutex_lock(&logcap_lock);
	found = strstr(logcap_buf, needle) != NULL;
	pthread_mutex_unlock(&logcap_lock);
	return found;
}

int logcap_count(const char *needle)
{
	const char *p = logcap_buf;
	int n = 0;

	pthread_mutex_lock(&logcap_lock);
	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p++;
	}
	pthread_mutex_unlock(&logcap_lock);
	return n;
}

void logtail_sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg)
{
	size_t n = strlen(logtail), m = strlen(msg) + 3;

	(void)ctx;
	(void)level;
	(void)comp;
	if (logtail_echo)
		fprintf(stderr, "%s\n", msg);
	if (m >= sizeof(logtail))
		return;
	/* Drop the oldest bytes to make room. */
	if (n + m >= sizeof(logtail)) {
		memmove(logtail, logtail + (n + m - sizeof(logtail) + 1), sizeof(logtail) - m);
		n = strlen(logtail);
	}
	snprintf(logtail + n, sizeof(logtail) - n, "%s | ", msg);
}

void logtail_start(bool echo)
{
	logtail_echo = echo;
	logtail[0] = '\0';
	unic_log_set_sink(logtail_sink, NULL);
}
