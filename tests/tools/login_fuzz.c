// SPDX-License-Identifier: GPL-2.0
/*
 * login_fuzz: a login fuzz campaign against a live SRP target, over RDMA/CM
 * or IB/CM (the back ends of initiator.h). Many logins in one process, each
 * a mutation of a valid SRP_LOGIN_REQ or random bytes, deterministic for a
 * given --seed: login i's bytes depend only on the seed and i, never on
 * what the target answered, so any login can be replayed alone
 * (--only I, or --dump I for its bytes; with --parallel N give the same N).
 *
 * usage: login_fuzz --cm rdma|ib --addr IP --i-port-id HEX32 --t-port-id HEX32
 *          [--port N] [--service-id HEX] [--dev NAME] [--count N]
 *          [--seconds S] [--seed N] [--timeout-ms N] [--max-req-size N]
 *          [--only I] [--dump I] [--verbose] [--parallel N]
 *        login_fuzz --backends     (prints the CMs it was built for: rdma [ib])
 *
 * The valid login is the one of I_PORT_ID to T_PORT_ID (both ids as the
 * target's ACL and service GUID expect), requesting it_iu_len 8260,
 * direct and indirect descriptors, SINGLE. Mutations, one per login:
 *   valid    the valid login itself (one in 16)
 *   bits     1..8 bit flips
 *   length   truncated or extended with random bytes (up to the CM's
 *            private data size: 56 bytes over RDMA/CM, 92 over IB/CM)
 *   field    1..3 field edits: opcode, req_it_iu_len (boundaries and
 *            random), req_buf_fmt, req_flags (SINGLE/MULTI/immediate),
 *            imm_data_offset, tag, either port id (one byte, one half, or
 *            random)
 *   mixed    a field edit, then bit flips
 *   random   random bytes of random length
 * Established logins are disconnected at once (RTU, DREQ, DREP).
 *
 * --parallel N runs N logins at a time, one thread each; thread t sends
 * logins t, t + N, t + 2N... as initiator I_PORT_ID + t (t added to the
 * first 64 bits, the identifier extension), so that threads never share
 * an I_T nexus and one thread's SINGLE login never terminates another's
 * channel. An ACL must admit each of those ids (over RDMA/CM the ACL names
 * the address, which all share).
 *
 * Every answer is checked against the login check table at the top of
 * src/core/login.cpp, computed here from the bytes as the target receives
 * them (the CMs pad the private data with zeros to their fixed size): the
 * predicted SRP_LOGIN_REJ reason, or
 * establishment with an SRP_LOGIN_RSP that echoes the tag and grants the
 * requested IU length. Over IB/CM a changed initiator port id may or may not
 * still be admitted by the ACL (it names the initiator by its port id), so
 * there both establishment and 0x00010006 are accepted. A timeout, a local
 * error or an unexpected answer is a failure; the first ones are printed
 * with the login's bytes.
 *
 * Output: progress lines, then
 *   login_fuzz: cm=rdma seed=1 logins=N wall_s=S rate_per_s=R
 *   outcome established=N rej_10000=N ... cm_reject=N timeout=N unreachable=N error=N
 *   strategy valid=N bits=N length=N field=N mixed=N random=N
 *   login_fuzz: N logins, N failures
 * Exit 0 when every login got the answer the table gives, 1 otherwise, 2 on
 * a usage error.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "initiator.h"

#define SRP_LOGIN_RSP 0xc0
#define SRP_LOGIN_REJ 0xc2
#define MAX_PRIV 92
#define MAX_SHOWN 20


/* ------------------------------------------------------------ wire forms */

/* Field offsets of SRP_LOGIN_REQ in each CM's form (see srp_initiator.c). */
struct layout {
	size_t size;	 /* the request */
	size_t wire;	 /* private data size on the wire (the CM pads) */
	size_t opcode, tag, it_iu_len, buf_fmt, flags, imm_off, i_port, t_port;
};

static const struct layout ib_layout = {
	.size = 64, .wire = 92, .opcode = 0, .tag = 8, .it_iu_len = 16,
	.buf_fmt = 24, .flags = 26, .imm_off = 28, .i_port = 32, .t_port = 48,
};
static const struct layout rdma_layout = {
	.size = 56, .wire = 56, .opcode = 11, .tag = 0, .it_iu_len = 12,
	.buf_fmt = 8, .flags = 10, .imm_off = 48, .i_port = 16, .t_port = 32,
};

static void put_be(uint8_t *p, uint64_t v, int n)
{
	while (n--) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int parse_hex(const char *s, uint8_t *out, size_t want)
{
	size_t i;

	if (strlen(s) != 2 * want)
		return -1;
	for (i = 0; i < want; i++)
		if (sscanf(s + 2 * i, "%2hhx", &out[i]) != 1)
			return -1;
	return 0;
}

/* ------------------------------------------------------------ the PRNG */

/* splitmix64: login i's generator is seeded from (seed, i) alone. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t s;
};

static uint64_t next(struct rng *r)
{
	r->s += 0x9e3779b97f4a7c15ull;
	return mix(r->s);
}

static uint32_t below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(next(r) % n) : 0;
}

/* ------------------------------------------------------------ mutations */

enum strategy { S_VALID, S_BITS, S_LENGTH, S_FIELD, S_MIXED, S_RANDOM, S_COUNT };
static const char *const strategy_name[S_COUNT] = {
	"valid", "bits", "length", "field", "mixed", "random",
};

struct campaign {
	enum ti_cm cm;
	const struct layout *l;
	uint8_t i_port[16], t_port[16];	/* this thread's valid login */
	uint64_t seed;
	uint32_t max_req_size;
};

static void valid_login(const struct campaign *c, uint64_t index, uint8_t *req)
{
	const struct layout *l = c->l;

	memset(req, 0, MAX_PRIV);
	req[l->opcode] = 0x00;
	put_be(req + l->tag, 0x66757a7a00000000ull | (index & 0xffffffff), 8);
	put_be(req + l->it_iu_len, 8260, 4);
	put_be(req + l->buf_fmt, 0x0006, 2);
	req[l->flags] = 0;
	memcpy(req + l->i_port, c->i_port, 16);
	memcpy(req + l->t_port, c->t_port, 16);
}

static void flip_bits(struct rng *r, uint8_t *req, size_t len)
{
	uint32_t n = 1 + below(r, 8), i;

	if (!len)
		return;
	for (i = 0; i < n; i++) {
		uint32_t bit = below(r, (uint32_t)len * 8);

		req[bit / 8] ^= 1u << (bit % 8);
	}
}

static void edit_field(const struct campaign *c, struct rng *r, uint8_t *req)
{
	/* The table's boundaries: 64 and srp_max_req_size, each +-1. */
	const uint32_t iu_lens[] = {
		0, 1, 63, 64, 65, 256, 4096, 8260, c->max_req_size - 1,
		c->max_req_size, c->max_req_size + 1, 65536, 0x7fffffff,
		0x80000000, 0xffffffff,
	};
	static const uint16_t fmts[] = { 0, 1, 2, 4, 6, 8, 0xfff9, 0xffff };
	static const uint8_t flags[] = { 0, 1, 2, 3, 0x80, 0x81, 0x83, 0xff };
	const struct layout *l = c->l;
	uint8_t *id;

	switch (below(r, 8)) {
	case 0:
		req[l->opcode] = below(r, 4) ? (uint8_t)below(r, 256) : 0xc0 + below(r, 3);
		break;
	case 1:
		put_be(req + l->it_iu_len, below(r, 4) ?
		       iu_lens[below(r, sizeof(iu_lens) / sizeof(iu_lens[0]))] :
		       (uint32_t)next(r), 4);
		break;
	case 2:
		put_be(req + l->buf_fmt, below(r, 2) ?
		       fmts[below(r, sizeof(fmts) / sizeof(fmts[0]))] :
		       (uint16_t)next(r), 2);
		break;
	case 3:
		req[l->flags] = below(r, 2) ?
				flags[below(r, sizeof(flags) / sizeof(flags[0]))] :
				(uint8_t)next(r);
		break;
	case 4:
		put_be(req + l->imm_off, below(r, 2) ? below(r, 128) : (uint16_t)next(r), 2);
		req[l->flags] |= 0x80;
		break;
	case 5:
		put_be(req + l->tag, next(r), 8);
		break;
	default:
		id = req + (below(r, 2) ? l->i_port : l->t_port);
		switch (below(r, 3)) {
		case 0:
			id[below(r, 16)] = (uint8_t)next(r);
			break;
		case 1:
			put_be(id + 8 * below(r, 2), next(r), 8);
			break;
		default:
			put_be(id, next(r), 8);
			put_be(id + 8, next(r), 8);
			break;
		}
		break;
	}
}

/* Login `index` of the campaign: its bytes, length and strategy. */
static size_t make_login(const struct campaign *c, uint64_t index, uint8_t *req,
			 enum strategy *how)
{
	struct rng r = { mix(c->seed ^ mix(index)) };
	const size_t max = c->l->wire;
	size_t len = c->l->size, i, n;

	valid_login(c, index, req);
	if (below(&r, 16) == 0) {
		*how = S_VALID;
		return len;
	}
	*how = (enum strategy)(S_BITS + below(&r, S_COUNT - S_BITS));
	switch (*how) {
	case S_BITS:
		flip_bits(&r, req, len);
		break;
	case S_LENGTH:
		n = below(&r, (uint32_t)max + 1);
		for (i = len; i < n; i++)
			req[i] = (uint8_t)next(&r);
		len = n;
		break;
	case S_FIELD:
		n = 1 + below(&r, 3);
		for (i = 0; i < n; i++)
			edit_field(c, &r, req);
		break;
	case S_MIXED:
		edit_field(c, &r, req);
		flip_bits(&r, req, len);
		break;
	default:
		len = below(&r, (uint32_t)max + 1);
		for (i = 0; i < len; i++)
			req[i] = (uint8_t)next(&r);
		break;
	}
	return len;
}

/* ------------------------------------------------------------ the oracle */

/*
 * What login.cpp's check table answers for `req` as the target receives
 * it: 0 for established, else the SRP_LOGIN_REJ reason. *either is set when
 * 0x00010006 is as right as establishment (IB/CM, initiator port id changed).
 */
static uint32_t expected(const struct campaign *c, const uint8_t *req, size_t len,
			 int *either)
{
	const struct layout *l = c->l;
	uint8_t wire[MAX_PRIV] = { 0 };
	uint32_t it_iu_len;

	memcpy(wire, req, len);
	*either = 0;
	if (wire[l->opcode] != 0x00)
		return 0x00010000;
	it_iu_len = (uint32_t)get_be(wire + l->it_iu_len, 4);
	if (it_iu_len < 64 || it_iu_len > c->max_req_size)
		return 0x00010002;
	if ((get_be(wire + l->buf_fmt, 2) & 0x0006) == 0)
		return 0x00010004;
	/* Both halves must be the service GUID (the valid id is GUID || GUID). */
	if (memcmp(wire + l->t_port, c->t_port, 16))
		return 0x00010003;
	if (c->cm == TI_CM_IB && memcmp(wire + l->i_port, c->i_port, 16))
		*either = 1;
	return 0;
}

/* ------------------------------------------------------------ the run */

enum kind {
	K_ESTABLISHED, K_REJ_10000, K_REJ_10001, K_REJ_10002, K_REJ_10003,
	K_REJ_10004, K_REJ_10005, K_REJ_10006, K_REJ_OTHER, K_CM_REJECT,
	K_TIMEOUT, K_UNREACHABLE, K_ERROR, K_COUNT
};
static const char *const kind_name[K_COUNT] = {
	"established", "rej_10000", "rej_10001", "rej_10002", "rej_10003",
	"rej_10004", "rej_10005", "rej_10006", "rej_other", "cm_reject",
	"timeout", "unreachable", "error",
};

static enum kind classify(const struct ti_outcome *o, uint32_t *reason)
{
	*reason = 0;
	switch (o->result) {
	case TI_ESTABLISHED:
		return K_ESTABLISHED;
	case TI_REJECTED:
		if (o->priv_len < 32 || o->priv[0] != SRP_LOGIN_REJ)
			return K_CM_REJECT;
		*reason = (uint32_t)get_be(o->priv + 4, 4);
		if (*reason >= 0x00010000 && *reason <= 0x00010006 && *reason != 0x00010005)
			return (enum kind)(K_REJ_10000 + (*reason - 0x00010000));
		return *reason == 0x00010005 ? K_REJ_10005 : K_REJ_OTHER;
	case TI_TIMEOUT:
		return K_TIMEOUT;
	case TI_UNREACHABLE:
		return K_UNREACHABLE;
	default:
		return K_ERROR;
	}
}

static void print_hex(const char *label, const uint8_t *p, size_t n)
{
	size_t i;

	printf("%s", label);
	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

/* Empty when the answer is the table's; else why not. */
static const char *judge(const struct campaign *c, const uint8_t *req, size_t len,
			 const struct ti_outcome *o, enum kind k, uint32_t reason,
			 char *why, size_t whylen)
{
	int either;
	const uint32_t want = expected(c, req, len, &either);
	uint8_t wire[MAX_PRIV] = { 0 };

	memcpy(wire, req, len);
	if (k == K_ESTABLISHED) {
		if (want != 0) {
			snprintf(why, whylen, "established, the table says 0x%08x", want);
			return why;
		}
		if (o->priv_len < 52 || o->priv[0] != SRP_LOGIN_RSP) {
			snprintf(why, whylen, "established without an SRP_LOGIN_RSP");
			return why;
		}
		if (memcmp(o->priv + 8, wire + c->l->tag, 8)) {
			snprintf(why, whylen, "SRP_LOGIN_RSP does not echo the tag");
			return why;
		}
		if (get_be(o->priv + 16, 4) != get_be(wire + c->l->it_iu_len, 4)) {
			snprintf(why, whylen, "max_it_iu_len %u, requested %u",
				 (unsigned int)get_be(o->priv + 16, 4),
				 (unsigned int)get_be(wire + c->l->it_iu_len, 4));
			return why;
		}
		return NULL;
	}
	if (k >= K_REJ_10000 && k <= K_REJ_OTHER) {
		if (reason == want || (want == 0 && either && reason == 0x00010006))
			return NULL;
		snprintf(why, whylen, "rejected 0x%08x, the table says %s0x%08x", reason,
			 want ? "" : "established: ", want);
		return why;
	}
	snprintf(why, whylen, "%s (cm_status %d%s%s), the table says 0x%08x",
		 kind_name[k], o->cm_status, o->what[0] ? ", " : "", o->what, want);
	return why;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the threads share; counters and output under `lock`. */
struct run {
	pthread_mutex_t lock;
	struct ti_login in;
	unsigned long count, seconds, threads, done, failures, shown;
	unsigned long by_kind[K_COUNT], by_strategy[S_COUNT];
	long only;
	int verbose, stop;
	double t0;
};

struct worker {
	pthread_t thread;
	struct run *run;
	struct campaign c;
	unsigned long first;
};

static void one_login(struct worker *w, unsigned long i)
{
	struct run *run = w->run;
	struct ti_login in = run->in;
	uint8_t req[MAX_PRIV];
	struct ti_outcome out;
	struct ti_conn *conn;
	enum strategy how;
	uint32_t reason;
	enum kind k;
	char buf[200];
	const char *why;
	size_t len;

	len = make_login(&w->c, i, req, &how);
	in.req = req;
	in.req_len = len;
	conn = ti_login(&in, &out);
	if (!conn && out.result != TI_ERROR) {
		out.result = TI_ERROR;
		snprintf(out.what, sizeof(out.what), "out of memory");
	}
	ti_finish(conn);
	k = classify(&out, &reason);
	why = judge(&w->c, req, len, &out, k, reason, buf, sizeof(buf));

	pthread_mutex_lock(&run->lock);
	run->done++;
	run->by_strategy[how]++;
	run->by_kind[k]++;
	if (why)
		run->failures++;
	if (run->verbose || (why && run->shown < MAX_SHOWN)) {
		printf("login=%lu strategy=%s outcome=%s reason=0x%08x latency_us=%llu%s%s\n",
		       i, strategy_name[how], kind_name[k], reason,
		       (unsigned long long)(out.latency_ns / 1000),
		       why ? " FAIL: " : "", why ? why : "");
		if (why) {
			print_hex("  req=", req, len);
			run->shown++;
		}
	}
	if (!run->verbose && run->done % 500 == 0)
		printf("login_fuzz: %lu logins, %lu failures, %.1f/s\n", run->done,
		       run->failures, run->done / (now_s() - run->t0));
	fflush(stdout);
	if (out.result == TI_ERROR && !strcmp(out.what, "IB/CM back end not built"))
		run->stop = 1;
	pthread_mutex_unlock(&run->lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct run *run = w->run;
	unsigned long i;

	if (run->only >= 0) {
		one_login(w, (unsigned long)run->only);
		return NULL;
	}
	for (i = w->first; i < run->count; i += run->threads) {
		int stop;

		pthread_mutex_lock(&run->lock);
		stop = run->stop;
		if (!stop && run->seconds && now_s() - run->t0 >= run->seconds) {
			printf("login_fuzz: time limit of %lu s reached after %lu logins\n",
			       run->seconds, run->done);
			run->stop = stop = 1;
		}
		pthread_mutex_unlock(&run->lock);
		if (stop)
			break;
		one_login(w, i);
	}
	return NULL;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s --cm rdma|ib --addr IP --i-port-id HEX32 --t-port-id HEX32\n"
		"         [--port N] [--service-id HEX] [--dev NAME] [--count N]\n"
		"         [--seconds S] [--seed N] [--timeout-ms N] [--max-req-size N]\n"
		"         [--only I] [--dump I] [--verbose] [--parallel N]\n"
		"       %s --backends\n", argv0, argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cm", required_argument, NULL, 'c' },
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "service-id", required_argument, NULL, 's' },
		{ "dev", required_argument, NULL, 'd' },
		{ "i-port-id", required_argument, NULL, 'i' },
		{ "t-port-id", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "seed", required_argument, NULL, 'e' },
		{ "timeout-ms", required_argument, NULL, 'T' },
		{ "max-req-size", required_argument, NULL, 'm' },
		{ "only", required_argument, NULL, 'o' },
		{ "dump", required_argument, NULL, 'D' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "parallel", required_argument, NULL, 'P' },
		{ "backends", no_argument, NULL, 'B' },
		{ 0 }
	};
	static struct run run = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.in = { .cm = TI_CM_RDMA, .dev = "rxe0", .rdma_port = 5555,
			.after = TI_AFTER_DISCONNECT, .timeout_ms = 3000 },
		.count = 1000, .threads = 1, .only = -1,
	};
	struct campaign c = { .cm = TI_CM_RDMA, .seed = 1, .max_req_size = 8276 };
	struct worker *workers;
	long dump = -1;
	int have_i = 0, have_t = 0, opt;
	unsigned long i;
	double wall;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (!strcmp(optarg, "rdma"))
				c.cm = TI_CM_RDMA;
			else if (!strcmp(optarg, "ib"))
				c.cm = TI_CM_IB;
			else
				usage(argv[0]);
			break;
		case 'a': run.in.addr = optarg; break;
		case 'p': run.in.rdma_port = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 's': run.in.service_id = strtoull(optarg, NULL, 16); break;
		case 'd': run.in.dev = optarg; break;
		case 'i':
			if (parse_hex(optarg, c.i_port, 16))
				usage(argv[0]);
			have_i = 1;
			break;
		case 't':
			if (parse_hex(optarg, c.t_port, 16))
				usage(argv[0]);
			have_t = 1;
			break;
		case 'n': run.count = strtoul(optarg, NULL, 0); break;
		case 'S': run.seconds = strtoul(optarg, NULL, 0); break;
		case 'e': c.seed = strtoull(optarg, NULL, 0); break;
		case 'T': run.in.timeout_ms = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'm': c.max_req_size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'o': run.only = strtol(optarg, NULL, 0); break;
		case 'D': dump = strtol(optarg, NULL, 0); break;
		case 'v': run.verbose = 1; break;
		case 'P': run.threads = strtoul(optarg, NULL, 0); break;
		case 'B':
			printf("rdma ib\n");
			return 0;
		default: usage(argv[0]);
		}
	}
	if (!have_i || !have_t || (dump < 0 && !run.in.addr) || !run.threads ||
	    run.threads > 64)
		usage(argv[0]);
	if (c.cm == TI_CM_IB && !run.in.service_id && dump < 0)
		usage(argv[0]);
	if (run.only >= 0)
		run.threads = 1;
	run.in.cm = c.cm;
	c.l = c.cm == TI_CM_IB ? &ib_layout : &rdma_layout;

	workers = calloc(run.threads, sizeof(*workers));
	if (!workers)
		return 2;
	for (i = 0; i < run.threads; i++) {
		workers[i].run = &run;
		workers[i].c = c;
		workers[i].first = i;
		/* Thread i's initiator: the identifier extension plus i. */
		put_be(workers[i].c.i_port, get_be(c.i_port, 8) + i, 8);
	}
	if (dump >= 0) {
		struct worker *w = &workers[(unsigned long)dump % run.threads];
		uint8_t req[MAX_PRIV];
		enum strategy how;
		size_t len = make_login(&w->c, (uint64_t)dump, req, &how);

		printf("login=%ld strategy=%s ", dump, strategy_name[how]);
		print_hex("req=", req, len);
		return 0;
	}

	run.t0 = now_s();
	for (i = 0; i < run.threads; i++)
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) {
			fprintf(stderr, "login_fuzz: pthread_create failed\n");
			return 2;
		}
	for (i = 0; i < run.threads; i++)
		pthread_join(workers[i].thread, NULL);
	wall = now_s() - run.t0;

	printf("login_fuzz: cm=%s seed=%llu parallel=%lu logins=%lu wall_s=%.1f rate_per_s=%.1f\n",
	       c.cm == TI_CM_IB ? "ib" : "rdma", (unsigned long long)c.seed, run.threads,
	       run.done, wall, wall > 0 ? run.done / wall : 0.0);
	printf("outcome");
	for (i = 0; i < K_COUNT; i++)
		printf(" %s=%lu", kind_name[i], run.by_kind[i]);
	printf("\nstrategy");
	for (i = 0; i < S_COUNT; i++)
		printf(" %s=%lu", strategy_name[i], run.by_strategy[i]);
	printf("\nlogin_fuzz: %lu logins, %lu failures\n", run.done, run.failures);
	free(workers);
	return run.failures ? 1 : 0;
}
