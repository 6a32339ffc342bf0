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
 *
 * Never load this outside a throw-away guest.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/bug.h>
#include <linux/delay.h>

static char *mode = "none";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "none | warn | oops | hang");

/* volatile: the compiler must really load through the NULL pointer. */
static int *volatile srpt_vm_selftest_null;

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
MODULE_DESCRIPTION("srpt-cxx VM runner self-test: WARN/Oops on request");
MODULE_LICENSE("GPL");
