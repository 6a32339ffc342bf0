// SPDX-License-Identifier: GPL-2.0
/* The test initiator's dispatch to its back ends (initiator.h). */
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "initiator.h"

static volatile sig_atomic_t hold_over;

int ti_hold_over(void)
{
	return hold_over;
}

void ti_end_holds(void)
{
	hold_over = 1;
}

struct ti_conn *ti_login(const struct ti_login *in, struct ti_outcome *out)
{
	if (in->cm == TI_CM_IB)
		return ti_ib_login(in, out);
	return ti_rdma_login(in, out);
}

void ti_finish(struct ti_conn *c)
{
	if (!c)
		return;
	/* Each back end's struct ti_conn begins with its enum ti_cm. */
	if (*(enum ti_cm *)c == TI_CM_IB)
		ti_ib_finish(c);
	else
		ti_rdma_finish(c);
}

void ti_hold(unsigned int ms)
{
	struct timespec now, tick = { .tv_sec = 0, .tv_nsec = 20000000L };
	uint64_t end, t;

	clock_gettime(CLOCK_MONOTONIC, &now);
	end = (uint64_t)now.tv_sec * 1000000000u + now.tv_nsec +
	      (uint64_t)ms * 1000000u;
	while (!ti_hold_over()) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		t = (uint64_t)now.tv_sec * 1000000000u + now.tv_nsec;
		if (t >= end)
			break;
		if (end - t < 20000000u)
			tick.tv_nsec = (long)(end - t);
		nanosleep(&tick, NULL);
	}
}
