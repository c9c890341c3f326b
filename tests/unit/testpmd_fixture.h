/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the unic-testpmd tests share (test_testpmd_*.c, one binary
 * test_testpmd):
 *  - the engines in this process: testpmd's own port ring40 started in an
 *    app of its own, and ring41, its peer, driven by the test (eng_setup,
 *    eng_teardown as a test's .init/.fini);
 *  - the binary (UNIC_TESTPMD) run with a batch script, its output in out.
 */
#ifndef TEST_TESTPMD_FIXTURE_H
#define TEST_TESTPMD_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <unic/env.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "testpmd.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))
#define HASNT(s, sub) cr_assert(strstr((s), (sub)) == NULL, "'%s' unexpectedly in:\n%s", (sub), (s))

/* ---- the engines, in this process ---- */

extern struct unic_env *env;
extern struct tp_app *app;        /* what testpmd prints goes to outbuf */
extern struct unic_port *far;     /* ring41: the test's side of the pair */
extern uint16_t near_id;          /* ring40: testpmd's port */
extern struct unic_pool *far_pool;
extern char *outbuf;
extern size_t outlen;

/* The app with ring40 started (io, burst 32, hybrid) and ring41 started. */
void eng_setup(void);
void eng_teardown(void);
/* Parse @p line (which must parse) and run it in the app. @return tp_exec's. */
int exec(const char *line);
/* exec() of a printf-formatted line. */
int execf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What testpmd printed since the last call (the buffer is reused). */
const char *printed(void);
/* Send @p n frames from the far side: dst 0a:.., src 0b:.., byte 12 = index. */
void far_send(unsigned n);
/* Receive at least @p n frames on the far side within 5 s. @return how many. */
unsigned far_recv(struct unic_pkt **p, unsigned n);

/* A big-endian 16-bit value at @p p. */
uint16_t be16(const uint8_t *p);
/* The ones' complement sum of @p n bytes at @p p added to @p s, folded. */
uint16_t sum16(uint32_t s, const uint8_t *p, size_t n);

/* ---- the binary ---- */

#define RING_PAIR "--vdev ring0 --vdev ring1,peer=ring0"

/* The binary's path (UNIC_TESTPMD). */
const char *binary(void);
/*
 * Run the binary with @p args and the script @p script (as -f FILE, or on
 * stdin with @p on_stdin); stdout and stderr into buf. @return exit status.
 */
int run_ex(const char *args, const char *script, bool on_stdin, char *buf, size_t len);
/* run_ex() with the script as -f FILE. */
int run(const char *args, const char *script, char *buf, size_t len);
/* The number after @p key, in the text after @p anchor (which must be there). */
uint64_t num_after(const char *s, const char *anchor, const char *key);
/* The last run's output. */
extern char out[1 << 18];

#endif /* TEST_TESTPMD_FIXTURE_H */
