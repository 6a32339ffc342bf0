// SPDX-License-Identifier: GPL-2.0
/*
 * srpt_vm_selftest: makes the kernel report a bug on purpose, so that the
 * VM test runner can prove it turns kernel reports into test failures.
 *
 *   mode=none  load and unload quietly (the control case)
 *   mode=warn  WARN_ON(1) from module init (a real "WARNING: ... Call Trace");
 *              the module then loads normally and can be removed
 *   mode=oops  a real NULL-pointer dereference from module init: the kernel
 *              logs "BUG: kernel NULL pointer dereference" and an Oops and
 *              kills the insmod process.  Module init runs in process
 *              context, so with panic_on_oops=0 the guest keeps running; the
 *              half-loaded module stays behind, which is fine for a test guest.
 *   mode=hang  sleep uninterruptibly in module init for an hour: insmod sits
 *              in D state, immune to SIGKILL (the runner's hung-case path)
 *   mode=spin  busy-wait in a loop with no scheduling point until the kernel
 *              taints itself for a soft lockup (flag L), which it does right
 *              after printing the report, or spin_s seconds have passed:
 *              under PREEMPT_VOLUNTARY (6.1, 6.12 and the debug kernel) the
 *              CPU never schedules, which the soft-lockup detector reports
 *              once 2 * watchdog_thresh seconds have passed since its last
 *              touch (the guests boot with watchdog_thresh=30,
 *              scripts/vm/boot.sh) and its 12 s check comes round.  Any
 *              console line this CPU prints touches the detector: the first
 *              one at the spin's start put the report 74-84 s after it, and
 *              one printed in the middle of a 100 s spin (an experiment)
 *              left it unreported.  spin_s is a cap, not the length: a spin
 *              ends at the report, and the cap only bounds a detector that
 *              never fires (its end line then says so).
 *              RCU's stall report is such a line and touches it directly
 *              (print_cpu_stall_info() -> touch_nmi_watchdog()): on 6.1 it
 *              came at 21 s and every 63 s after and no soft-lockup report
 *              came in 160 s, so the case silences RCU's stall reports for
 *              the spin (cases/12-spin.sh).
 *
 * The detector modes need the debug kernel (scripts/debug-kernel/); on a
 * kernel without the detector they run quietly, and the runner's self-test
 * must then see the case pass, which is why only the debug self-test uses
 * them:
 *   mode=kasan    read a kmalloc'ed byte after kfree(): KASAN reports
 *                 "BUG: KASAN: slab-use-after-free"
 *   mode=lockorder  two mutexes taken A then B, released, then B then A,
 *                 by the same task: never a deadlock, but lockdep reports
 *                 "possible circular locking dependency".  Lockdep reports
 *                 once per boot and stops at any taint: run it first.  (Not
 *                 "lockdep": the mode is logged, and the runner's report
 *                 patterns would match the word.)
 *   mode=atomic   a GFP_KERNEL allocation under a spinlock: with
 *                 DEBUG_ATOMIC_SLEEP, "BUG: sleeping function called from
 *                 invalid context" even though the allocation does not sleep
 *                 this time (msleep() would really schedule, and schedule()
 *                 resets the preempt count after its own report)
 *   mode=leak     kmalloc() SRPT_VM_SELFTEST_LEAKS blocks and drop the
 *                 pointers; the module stays loaded, so kmemleak's
 *                 backtrace names it.  Several, not one: kmemleak scans whole
 *                 thread stacks and cached freed ones, and a stale copy of a
 *                 pointer there hides its block (it missed a single block
 *                 in check-debug).  Each allocation reuses the stack slots
 *                 of the one before, so at most the last few can have a
 *                 stale copy left.
 *
 * Never load this outside a throw-away guest.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/processor.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/panic.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static char *mode = "none";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "none | warn | oops | hang | spin | kasan | lockorder | atomic | leak");
static unsigned int spin_s;
module_param(spin_s, uint, 0444);
MODULE_PARM_DESC(spin_s, "mode=spin: at most this many seconds without a scheduling point");

/* volatile: the compiler must really load through the NULL pointer. */
static int *volatile srpt_vm_selftest_null;

static DEFINE_MUTEX(srpt_vm_selftest_a);
static DEFINE_MUTEX(srpt_vm_selftest_b);
static DEFINE_SPINLOCK(srpt_vm_selftest_lock);

/*
 * The detector modes run outside the __init section: module init text is
 * freed after loading, and a report (kmemleak's above all, printed when a
 * scan finds the object) names the module only through live text.
 */
static noinline void srpt_vm_selftest_kasan(void)
{
	char *volatile p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	pr_info("srpt_vm_selftest: read after free: %d\n", p[8]);
}

static noinline void srpt_vm_selftest_lockorder(void)
{
	mutex_lock(&srpt_vm_selftest_a);
	mutex_lock(&srpt_vm_selftest_b);
	mutex_unlock(&srpt_vm_selftest_b);
	mutex_unlock(&srpt_vm_selftest_a);

	mutex_lock(&srpt_vm_selftest_b);
	mutex_lock(&srpt_vm_selftest_a);
	mutex_unlock(&srpt_vm_selftest_a);
	mutex_unlock(&srpt_vm_selftest_b);
}

static noinline void srpt_vm_selftest_atomic(void)
{
	void *p;

	spin_lock(&srpt_vm_selftest_lock);
	p = kmalloc(32, GFP_KERNEL);
	spin_unlock(&srpt_vm_selftest_lock);
	kfree(p);
}

static noinline void srpt_vm_selftest_spin(void)
{
	/* A lockup earlier in this boot already set the flag: spin the cap. */
	bool tainted_before = test_taint(TAINT_SOFTLOCKUP);
	bool reported = false;
	u64 start = ktime_get_ns();
	u64 now = start;

	/*
	 * No preempt_disable() (mdelay() has one): the loop never schedules
	 * only because PREEMPT_VOLUNTARY does not preempt it.
	 */
	while (now - start < (u64)spin_s * NSEC_PER_SEC && !reported) {
		cpu_relax();
		reported = !tainted_before && test_taint(TAINT_SOFTLOCKUP);
		now = ktime_get_ns();
	}
	/* Not the detector's words: the runner must find only the kernel's. */
	pr_info("srpt_vm_selftest: spun %llu ms, %s\n",
		div_u64(now - start, NSEC_PER_MSEC),
		reported ? "ended by the lockup taint" :
		tainted_before ? "the whole cap (lockup taint set before)" :
		"the whole cap, no lockup taint");
}

#define SRPT_VM_SELFTEST_LEAKS 8

static noinline void srpt_vm_selftest_leak(void)
{
	char *volatile p;
	int i;

	for (i = 0; i < SRPT_VM_SELFTEST_LEAKS; i++) {
		p = kmalloc(128, GFP_KERNEL);
		if (p)
			memset(p, 0x5a, 128);
	}
	p = NULL;
}

static int __init srpt_vm_selftest_init(void)
{
	pr_info("srpt_vm_selftest: mode=%s\n", mode);
	if (!strcmp(mode, "warn")) {
		WARN_ON(1);
	} else if (!strcmp(mode, "oops")) {
		*srpt_vm_selftest_null = 1;
		pr_info("srpt_vm_selftest: survived the NULL store?\n");
	} else if (!strcmp(mode, "hang")) {
		ssleep(3600);
	} else if (!strcmp(mode, "spin")) {
		srpt_vm_selftest_spin();
	} else if (!strcmp(mode, "kasan")) {
		srpt_vm_selftest_kasan();
	} else if (!strcmp(mode, "lockorder")) {
		srpt_vm_selftest_lockorder();
	} else if (!strcmp(mode, "atomic")) {
		srpt_vm_selftest_atomic();
	} else if (!strcmp(mode, "leak")) {
		srpt_vm_selftest_leak();
	} else if (strcmp(mode, "none")) {
		pr_err("srpt_vm_selftest: unknown mode '%s'\n", mode);
		return -EINVAL;
	}
	return 0;
}

static void __exit srpt_vm_selftest_exit(void)
{
	pr_info("srpt_vm_selftest: unloaded\n");
}

module_init(srpt_vm_selftest_init);
module_exit(srpt_vm_selftest_exit);
MODULE_DESCRIPTION("srpt-cxx VM runner self-test: kernel reports on request");
MODULE_LICENSE("GPL");
