// SPDX-License-Identifier: GPL-2.0
/*
 * srpt_test_ibcm.ko: a test-only IB/CM initiator. Userspace cannot send
 * IB/CM REQs (ib_ucm is gone), so the guest cases reach the target's IB/CM
 * listener on a RoCE port through this module: one login per open file of
 * /sys/kernel/debug/srpt_test_ibcm/login (protocol: ibcm_uapi.h).
 *
 * Lifetime: every open file holds a reference on this module (debugfs takes
 * it from the fops owner), so the module cannot be unloaded while a login
 * exists, and module exit has no login to clean up. A login holds a
 * reference on its RDMA device until the file is closed: removing the
 * device waits for that.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "ibcm.h"

static struct dentry *ibcm_dir;

static int ibcm_open(struct inode *inode, struct file *file)
{
	struct ibcm_login *l = ibcm_login_alloc();

	if (!l)
		return -ENOMEM;
	file->private_data = l;
	return nonseekable_open(inode, file);
}

static int ibcm_release(struct inode *inode, struct file *file)
{
	ibcm_login_finish(file->private_data);
	return 0;
}

static ssize_t ibcm_write(struct file *file, const char __user *buf,
			  size_t count, loff_t *ppos)
{
	struct srpt_ibcm_req req;
	int ret;

	if (count != sizeof(req)) {
		pr_info(IBCM_PFX "bad login request: %zu bytes, expected %zu\n",
			count, sizeof(req));
		return -EINVAL;
	}
	if (copy_from_user(&req, buf, sizeof(req)))
		return -EFAULT;
	ret = ibcm_login_start(file->private_data, &req);
	return ret ? ret : count;
}

static ssize_t ibcm_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct srpt_ibcm_outcome out;
	int ret;

	if (count < sizeof(out)) {
		pr_info(IBCM_PFX "read of %zu bytes: an outcome takes %zu\n",
			count, sizeof(out));
		return -EINVAL;
	}
	ret = ibcm_login_wait(file->private_data, &out);
	if (ret)
		return ret;
	if (copy_to_user(buf, &out, sizeof(out)))
		return -EFAULT;
	return sizeof(out);
}

/*
 * No .llseek: nonseekable_open() makes the file refuse seeks on every
 * kernel (no_llseek, which said the same, is gone from 6.12).
 */
static const struct file_operations ibcm_login_fops = {
	.owner = THIS_MODULE,
	.open = ibcm_open,
	.release = ibcm_release,
	.read = ibcm_read,
	.write = ibcm_write,
};

static int __init ibcm_init(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct srpt_ibcm_req) != 200);
	BUILD_BUG_ON(sizeof(struct srpt_ibcm_outcome) != 376);
	BUILD_BUG_ON(SRPT_IBCM_REQ_PRIV_MAX != IB_CM_REQ_PRIVATE_DATA_SIZE);
	BUILD_BUG_ON(SRPT_IBCM_OUT_PRIV_MAX < IB_CM_REP_PRIVATE_DATA_SIZE);
	BUILD_BUG_ON(SRPT_IBCM_OUT_PRIV_MAX < IB_CM_REJ_PRIVATE_DATA_SIZE);
	BUILD_BUG_ON(SRPT_IBCM_ARI_MAX < IB_CM_REJ_ARI_LENGTH);

	ret = ibcm_devices_init();
	if (ret)
		return ret;
	ibcm_dir = debugfs_create_dir("srpt_test_ibcm", NULL);
	if (IS_ERR(ibcm_dir)) {
		ibcm_devices_exit();
		return PTR_ERR(ibcm_dir);
	}
	debugfs_create_file("login", 0600, ibcm_dir, NULL, &ibcm_login_fops);
	return 0;
}

static void __exit ibcm_exit(void)
{
	/* No file is open any more (the module is pinned while one is). */
	debugfs_remove(ibcm_dir);
	ibcm_devices_exit();
}

module_init(ibcm_init);
module_exit(ibcm_exit);
MODULE_DESCRIPTION("srpt-cxx test tool: IB/CM logins over RoCE from debugfs");
MODULE_LICENSE("GPL");
