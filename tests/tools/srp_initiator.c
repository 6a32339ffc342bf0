// SPDX-License-Identifier: GPL-2.0
/*
 * srp_initiator: the hostile test initiator's command line. Sends login
 * requests of any bytes over RDMA/CM or IB/CM (initiator.h), one after
 * another or many at once, and prints what the target answered.
 *
 * usage: srp_initiator --cm rdma|ib --addr IP [--port N] [--service-id HEX]
 *          [--dev NAME] (--req HEX | --login I_PORT_ID TARGET_PORT_ID
 *          [--it-iu-len N] [--flags N] [--buf-fmt N] [--opcode N]
 *          [--imm-offset N])
 *          [--after disconnect|no-rtu|reject-rep|vanish] [--hold-ms N]
 *          [--timeout-ms N] [--cm-retries N] [--cm-timeout N]
 *          [--count N [--gap-ms N] | --concurrent N] [--dump]
 *
 * --cm-retries N (IB/CM): ib_cm resends an unanswered REQ up to N times
 * (1..15; default 3, ib_srp uses 15). --cm-timeout N (IB/CM): the CM
 * response timeout, 4.096 us * 2^N (1..31; default 18, about 1 s; rdma_cm
 * uses 20). Both also bound the target's DREQ to this initiator.
 * --gap-ms N pauses N ms after each sequential login's logout, before the
 * next REQ: every login then starts from an idle fabric and target (no
 * work of the previous one still running, and no CPU kept busy by it).
 * --dump prints the login bytes (hex) instead of sending them; with --req
 * and --concurrent every login sends the same bytes (one I_T nexus).
 * --iu HEX (repeatable, RDMA/CM, sequential logins): once a login is
 * established, sends the RTU and then each IU in turn, printing for each
 *   iu=K result=response|none|error len=N rsp=HEX
 * (none: no answer within the timeout, or the channel was closed).
 * --data-bytes N (with --iu): a buffer of N bytes the target may read and
 * write; a direct descriptor in an IU whose key is 0xfffffff0 names it,
 * its va an offset into it (initiator.h, TI_DATA_KEY).
 * --burst N (with one --iu, RDMA/CM, one login): sends that IU N times
 * before the RTU, which makes the target hold them all (more than the
 * granted credits if N says so), then the RTU; prints
 *   burst sent=N answers=A closed=0|1
 * (answers: IUs the target sent within the timeout; closed: it
 * disconnected). Exit 0 when the burst went out, 2 otherwise.
 *
 * One line per login, by index:
 *   login=I result=R cm_status=N latency_us=N reason=0xNNNNNNNN priv=HEX
 * (reason: the SRP_LOGIN_REJ reason when priv is one, else 0), and with
 * more than one login a summary line:
 *   summary logins=N established=N rejected=N timeout=N error=N wall_us=N
 *           p50_us=N p99_us=N max_us=N span_us=N
 * (span_us: first REQ sent to last answer received; with --concurrent all
 * REQs are sent together, once every login has its address, route and QP.)
 * Exit: 0 all established, 1 some rejected and nothing worse, 2 otherwise.
 * SIGUSR1 ends every --hold-ms early (each connection then carries out
 * --after as usual, e.g. a clean DREQ/DREP disconnect): a benchmark holds
 * channels open until it has measured them, however long the logins took.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "initiator.h"

#define SRP_LOGIN_REJ 0xc2
#define MAX_CONCURRENT 4096
#define MAX_COUNT 10000000
#define MAX_IUS 16

static const char *const result_name[] = {
	[TI_ESTABLISHED] = "established", [TI_REJECTED] = "rejected",
	[TI_UNREACHABLE] = "unreachable", [TI_TIMEOUT] = "timeout",
	[TI_ERROR] = "error",
};


static void on_sigusr1(int sig)
{
	(void)sig;
	ti_end_holds();
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	while (n--) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static int parse_hex(const char *s, uint8_t *out, size_t max, size_t *len)
{
	size_t n = strlen(s), i;

	if (n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++)
		if (sscanf(s + 2 * i, "%2hhx", &out[i]) != 1)
			return -1;
	*len = n / 2;
	return 0;
}

/* The fields of a well-formed SRP_LOGIN_REQ the user may tune. */
struct login_fields {
	uint8_t initiator[16], target[16];
	uint32_t it_iu_len;
	uint8_t flags, opcode;
	uint16_t buf_fmt;
	uint16_t imm_offset;	/* imm_data_offset; ib_srp sends 68 with IMMED_REQUESTED */
};

/*
 * SRP_LOGIN_REQ in the CM's form. IB/CM (64 bytes): opcode 0, tag 8,
 * req_it_iu_len 16, req_buf_fmt 24, req_flags 26, imm_data_offset 28,
 * initiator_port_id 32, target_port_id 48. RDMA/CM (56 bytes): tag 0,
 * req_buf_fmt 8, req_flags 10, opcode 11, req_it_iu_len 12,
 * initiator_port_id 16, target_port_id 32, imm_data_offset 48.
 */
static size_t build_login(enum ti_cm cm, const struct login_fields *f,
			  uint64_t index, uint8_t *req)
{
	uint8_t initiator[16];

	memcpy(initiator, f->initiator, 16);
	/* Login i: initiator port id + i in its low 64 bits. */
	{
		uint64_t lo = 0;
		int i;

		for (i = 8; i < 16; i++)
			lo = lo << 8 | initiator[i];
		put_be(initiator + 8, lo + index, 8);
	}
	if (cm == TI_CM_IB) {
		memset(req, 0, 64);
		req[0] = f->opcode;
		put_be(req + 8, 0x7465737400000000ull | index, 8);
		put_be(req + 16, f->it_iu_len, 4);
		put_be(req + 24, f->buf_fmt, 2);
		req[26] = f->flags;
		put_be(req + 28, f->imm_offset, 2);
		memcpy(req + 32, initiator, 16);
		memcpy(req + 48, f->target, 16);
		return 64;
	}
	memset(req, 0, 56);
	put_be(req, 0x7465737400000000ull | index, 8);
	put_be(req + 8, f->buf_fmt, 2);
	req[10] = f->flags;
	req[11] = f->opcode;
	put_be(req + 12, f->it_iu_len, 4);
	memcpy(req + 16, initiator, 16);
	memcpy(req + 32, f->target, 16);
	put_be(req + 48, f->imm_offset, 2);
	return 56;
}

struct job {
	struct ti_login in;
	uint8_t req[256];
	struct ti_outcome out;
	struct ti_conn *conn;
	int arrived;		/* at the start gate */
};

static struct job *jobs;
static pthread_barrier_t logged_in;	/* all logins answered: print */
static pthread_barrier_t printed;	/* lines printed: finish */

/* The start gate of --concurrent: every thread arrives once, either ready
 * to send its REQ (before_req) or having failed before that point. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_open = PTHREAD_COND_INITIALIZER;
static int gate_waiting, gate_size;

static void gate_arrive(void *arg)
{
	int *arrived = arg;

	pthread_mutex_lock(&gate_lock);
	if (!*arrived) {
		*arrived = 1;
		if (++gate_waiting == gate_size)
			pthread_cond_broadcast(&gate_open);
		while (gate_waiting < gate_size)
			pthread_cond_wait(&gate_open, &gate_lock);
	}
	pthread_mutex_unlock(&gate_lock);
}

static void print_job(int i, const struct job *j)
{
	const struct ti_outcome *o = &j->out;
	uint32_t reason = 0;
	size_t k;

	if (o->result == TI_REJECTED && o->priv_len >= 8 &&
	    o->priv[0] == SRP_LOGIN_REJ)
		reason = get_be32(o->priv + 4);
	printf("login=%d result=%s cm_status=%d latency_us=%llu reason=0x%08x priv=",
	       i, result_name[o->result], o->cm_status,
	       (unsigned long long)(o->latency_ns / 1000), reason);
	for (k = 0; k < o->priv_len; k++)
		printf("%02x", o->priv[k]);
	if (o->what[0])
		printf(" what=\"%s\"", o->what);
	printf("\n");
}

static int established, rejected, timeout, error;
static uint64_t first_sent, last_answer;	/* span of the REQs sent */

static void tally(const struct ti_outcome *o, uint64_t *lat)
{
	switch (o->result) {
	case TI_ESTABLISHED: established++; break;
	case TI_REJECTED: rejected++; break;
	case TI_TIMEOUT: timeout++; break;
	default: error++; break;
	}
	*lat = o->latency_ns;
	if (o->sent_ns) {
		if (!first_sent || o->sent_ns < first_sent)
			first_sent = o->sent_ns;
		if (o->sent_ns + o->latency_ns > last_answer)
			last_answer = o->sent_ns + o->latency_ns;
	}
}

/* Login i: the user's bytes, or a login whose initiator port id is +i. */
static void prepare(struct job *j, const struct ti_login *base,
		    const uint8_t *raw, size_t raw_len,
		    const struct login_fields *f, int i)
{
	memset(j, 0, sizeof(*j));
	j->in = *base;
	if (raw) {
		memcpy(j->req, raw, raw_len);
		j->in.req_len = raw_len;
	} else {
		j->in.req_len = build_login(base->cm, f, i, j->req);
	}
	j->in.req = j->req;
}

static void *concurrent_login(void *arg)
{
	struct job *j = arg;

	j->in.before_req = gate_arrive;
	j->in.before_req_arg = &j->arrived;
	j->conn = ti_login(&j->in, &j->out);
	if (!j->conn)
		j->out.result = TI_ERROR;
	gate_arrive(&j->arrived);	/* no-op unless it failed before the REQ */
	pthread_barrier_wait(&logged_in);
	pthread_barrier_wait(&printed);
	ti_finish(j->conn);
	return NULL;
}

static void exchange_ius(struct ti_conn *c, uint8_t (*ius)[8192],
			 const size_t *len, int n, unsigned int timeout_ms)
{
	uint8_t rsp[1024];
	int k, r, b;

	for (k = 0; k < n; k++) {
		r = ti_rdma_exchange(c, ius[k], len[k], rsp, sizeof(rsp),
				     timeout_ms ? timeout_ms : 5000);
		printf("iu=%d result=%s len=%d rsp=", k,
		       r > 0 ? "response" : r == 0 ? "none" : "error", r > 0 ? r : 0);
		for (b = 0; b < r; b++)
			printf("%02x", rsp[b]);
		printf("\n");
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s --cm rdma|ib --addr IP [--port N] [--service-id HEX] [--dev NAME]\n"
		"       (--req HEX | --login I_PORT_ID TARGET_PORT_ID [--it-iu-len N]\n"
		"        [--flags N] [--buf-fmt N] [--opcode N] [--imm-offset N])\n"
		"       [--after disconnect|no-rtu|reject-rep|vanish] [--hold-ms N]\n"
		"       [--timeout-ms N] [--cm-retries N] [--cm-timeout N]\n"
		"       [--count N [--gap-ms N] | --concurrent N] [--dump]\n"
		"       [--iu HEX]... [--data-bytes N] [--burst N]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cm", 1, 0, 'c' }, { "addr", 1, 0, 'a' }, { "port", 1, 0, 'p' },
		{ "service-id", 1, 0, 's' }, { "dev", 1, 0, 'd' },
		{ "req", 1, 0, 'r' }, { "login", 1, 0, 'l' },
		{ "it-iu-len", 1, 0, 'i' }, { "flags", 1, 0, 'f' },
		{ "buf-fmt", 1, 0, 'b' }, { "opcode", 1, 0, 'o' },
		{ "after", 1, 0, 'A' }, { "hold-ms", 1, 0, 'H' },
		{ "timeout-ms", 1, 0, 'T' }, { "count", 1, 0, 'n' },
		{ "concurrent", 1, 0, 'C' }, { "dump", 0, 0, 'D' },
		{ "iu", 1, 0, 'I' }, { "imm-offset", 1, 0, 'm' },
		{ "gap-ms", 1, 0, 'g' }, { "burst", 1, 0, 'B' },
		{ "cm-retries", 1, 0, 'R' }, { "cm-timeout", 1, 0, 'M' },
		{ "data-bytes", 1, 0, 'X' }, { 0 }
	};
	struct login_fields f = { .it_iu_len = 8260, .buf_fmt = 0x06 };
	struct ti_login base = { .cm = TI_CM_RDMA, .dev = "rxe0", .rdma_port = 5555 };
	uint8_t raw[256];
	size_t raw_len = 0, len;
	int have_raw = 0, have_login = 0, count = 1, concurrent = 0, gap_ms = 0;
	int burst = 0;
	int n, i, c;
	uint64_t t0, wall, *lat;
	int have_service_id = 0, dump = 0, n_ius = 0;
	static uint8_t ius[MAX_IUS][8192];
	size_t iu_len[MAX_IUS];
	pthread_t *th = NULL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (!strcmp(optarg, "ib"))
				base.cm = TI_CM_IB;
			else if (strcmp(optarg, "rdma"))
				usage(argv[0]);
			break;
		case 'a': base.addr = optarg; break;
		case 'p': base.rdma_port = strtoul(optarg, NULL, 0); break;
		case 's':
			base.service_id = strtoull(optarg, NULL, 16);
			have_service_id = 1;
			break;
		case 'd': base.dev = optarg; break;
		case 'r':
			if (parse_hex(optarg, raw, sizeof(raw), &raw_len))
				usage(argv[0]);
			have_raw = 1;
			break;
		case 'l':
			if (optind >= argc ||
			    parse_hex(optarg, f.initiator, 16, &len) || len != 16 ||
			    parse_hex(argv[optind], f.target, 16, &len) || len != 16)
				usage(argv[0]);
			optind++;
			have_login = 1;
			break;
		case 'i': f.it_iu_len = strtoul(optarg, NULL, 0); break;
		case 'f': f.flags = strtoul(optarg, NULL, 0); break;
		case 'b': f.buf_fmt = strtoul(optarg, NULL, 0); break;
		case 'o': f.opcode = strtoul(optarg, NULL, 0); break;
		case 'm': f.imm_offset = strtoul(optarg, NULL, 0); break;
		case 'A':
			if (!strcmp(optarg, "disconnect"))
				base.after = TI_AFTER_DISCONNECT;
			else if (!strcmp(optarg, "no-rtu"))
				base.after = TI_AFTER_NO_RTU;
			else if (!strcmp(optarg, "reject-rep"))
				base.after = TI_AFTER_REJECT_REP;
			else if (!strcmp(optarg, "vanish"))
				base.after = TI_AFTER_VANISH;
			else
				usage(argv[0]);
			break;
		case 'H': base.hold_ms = strtoul(optarg, NULL, 0); break;
		case 'T': base.timeout_ms = strtoul(optarg, NULL, 0); break;
		case 'R': base.cm_retries = strtoul(optarg, NULL, 0); break;
		case 'M': base.cm_timeout = strtoul(optarg, NULL, 0); break;
		case 'n': count = atoi(optarg); break;
		case 'C': concurrent = atoi(optarg); break;
		case 'g': gap_ms = atoi(optarg); break;
		case 'B': burst = atoi(optarg); break;
		case 'D': dump = 1; break;
		case 'X': base.data_bytes = strtoul(optarg, NULL, 0); break;
		case 'I':
			if (n_ius == MAX_IUS ||
			    parse_hex(optarg, ius[n_ius], sizeof(ius[0]), &iu_len[n_ius]))
				usage(argv[0]);
			n_ius++;
			break;
		default: usage(argv[0]);
		}
	}
	if (!base.addr || have_raw == have_login || optind != argc)
		usage(argv[0]);
	if (base.cm == TI_CM_IB && !have_service_id && !dump) {
		fprintf(stderr, "--cm ib needs --service-id\n");
		return 2;
	}
	n = concurrent ? concurrent : count;
	/* Room for every answer to a burst (and one more IU). */
	if (burst > 0)
		base.recv_slots = burst + 1;
	if (n < 1 || n > (concurrent ? MAX_CONCURRENT : MAX_COUNT) ||
	    (n_ius && (concurrent || base.cm != TI_CM_RDMA)) ||
	    (base.data_bytes && !n_ius) || base.data_bytes > (64u << 20) ||
	    gap_ms < 0 || (gap_ms && concurrent) || burst < 0 ||
	    (burst && (n_ius != 1 || n != 1 || concurrent)) ||
	    base.cm_retries > 15 || base.cm_timeout > 31 ||
	    ((base.cm_retries || base.cm_timeout) && base.cm != TI_CM_IB))
		usage(argv[0]);

	/* One job per thread; sequential logins reuse one. */
	jobs = calloc(concurrent ? n : 1, sizeof(*jobs));
	lat = calloc(n, sizeof(*lat));
	if (!jobs || !lat)
		return 2;
	for (i = 0; i < (concurrent ? n : 1); i++)
		prepare(&jobs[i], &base, have_raw ? raw : NULL, raw_len, &f, i);

	if (dump) {
		for (len = 0; len < jobs[0].in.req_len; len++)
			printf("%02x", jobs[0].req[len]);
		printf("\n");
		return 0;
	}

	{
		struct sigaction sa = { .sa_handler = on_sigusr1 };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * No transparent huge pages for this process: with --concurrent each
	 * thread's stack and malloc arena may or may not be backed by a 2 MiB
	 * page, which moved the guest's MemAvailable by several MiB from one
	 * count to the next and hid a target's memory per channel in that
	 * noise (make bench, phase mem). Best effort: without it, counts only
	 * spread more.
	 */
	(void)prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	t0 = now_ns();
	if (concurrent) {
		gate_size = n;
		th = calloc(n, sizeof(*th));
		if (!th || pthread_barrier_init(&logged_in, NULL, n + 1) ||
		    pthread_barrier_init(&printed, NULL, n + 1))
			return 2;
		for (i = 0; i < n; i++)
			if (pthread_create(&th[i], NULL, concurrent_login, &jobs[i])) {
				fprintf(stderr, "pthread_create: %s\n", strerror(errno));
				return 2;
			}
		pthread_barrier_wait(&logged_in);
		wall = now_ns() - t0;
		for (i = 0; i < n; i++) {
			print_job(i, &jobs[i]);
			tally(&jobs[i].out, &lat[i]);
		}
	} else {
		for (i = 0; i < n; i++) {
			struct job *j = &jobs[0];

			prepare(j, &base, have_raw ? raw : NULL, raw_len, &f, i);
			j->conn = ti_login(&j->in, &j->out);
			if (!j->conn)
				j->out.result = TI_ERROR;
			print_job(i, j);
			tally(&j->out, &lat[i]);
			if (burst && j->out.result == TI_ESTABLISHED) {
				int closed, a;

				a = ti_rdma_burst(j->conn, ius[0], iu_len[0], burst,
						  base.timeout_ms ? base.timeout_ms : 5000,
						  &closed);
				if (a < 0) {
					fprintf(stderr, "burst: local failure\n");
					error++;
				} else {
					printf("burst sent=%d answers=%d closed=%d\n",
					       burst, a, closed);
				}
			} else if (n_ius && j->out.result == TI_ESTABLISHED) {
				exchange_ius(j->conn, ius, iu_len, n_ius, base.timeout_ms);
			}
			ti_finish(j->conn);
			if (gap_ms && i + 1 < n)
				ti_hold(gap_ms);
		}
		wall = now_ns() - t0;
	}
	if (n > 1) {
		qsort(lat, n, sizeof(*lat), cmp_u64);
		printf("summary logins=%d established=%d rejected=%d timeout=%d error=%d wall_us=%llu p50_us=%llu p99_us=%llu max_us=%llu span_us=%llu\n",
		       n, established, rejected, timeout, error,
		       (unsigned long long)(wall / 1000),
		       (unsigned long long)(lat[(n - 1) / 2] / 1000),
		       (unsigned long long)(lat[(n * 99 + 99) / 100 - 1] / 1000),
		       (unsigned long long)(lat[n - 1] / 1000),
		       (unsigned long long)((last_answer - first_sent) / 1000));
	}
	fflush(stdout);
	if (concurrent) {
		/* The lines are out: now the threads carry out --after. */
		pthread_barrier_wait(&printed);
		for (i = 0; i < n; i++)
			pthread_join(th[i], NULL);
	}
	if (timeout || error)
		return 2;
	return rejected ? 1 : 0;
}
