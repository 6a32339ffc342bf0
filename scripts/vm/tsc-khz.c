// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz: prints the host's TSC frequency in kHz, measured against
 * CLOCK_MONOTONIC_RAW over about 200 ms.
 *
 * A TCG guest's TSC is the host's TSC (QEMU reads it for the guest's
 * RDTSC), so this is the frequency the guest kernel should use; it is
 * handed over as tsc_early_khz= (scripts/vm/boot.sh) instead of letting the
 * guest calibrate against an emulated PIT and HPET on a loaded host.
 *
 * Each end of the interval is the sample whose clock_gettime() pair around
 * RDTSC was shortest out of 50, so a preemption between the reads cannot
 * skew it: the error is the shortest pair's width over 200 ms.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One (time, TSC) point: the midpoint of the narrowest of 50 pairs. */
static void point(uint64_t *at_ns, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 50; i++) {
		uint64_t a = ns(), c = __rdtsc(), b = ns();

		if (b - a < best) {
			best = b - a;
			*at_ns = a + (b - a) / 2;
			*tsc = c;
		}
	}
}

int main(void)
{
	struct timespec pause = { 0, 200000000 };
	uint64_t t0, c0, t1, c1;

	point(&t0, &c0);
	nanosleep(&pause, NULL);
	point(&t1, &c1);
	if (t1 <= t0 || c1 <= c0)
		return 1;
	printf("%llu\n", (unsigned long long)((c1 - c0) * 1000000u / (t1 - t0)));
	return 0;
}
