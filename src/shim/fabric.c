// SPDX-License-Identifier: GPL-2.0
/*
 * The target-core fabric "srpt": /sys/kernel/config/target/srpt/.
 *
 * The shim owns the target-core objects that configfs hands around (se_wwn,
 * se_portal_group) and embeds in each a pointer to the core object that
 * decides about it. Target-core calls arrive here in process context.
 *
 * Per-command callbacks go to the core's command of the slot (cmd.c). Also
 * here: the debugfs file ib_srpt/channels, which the core fills.
 */
#include <linux/configfs.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include <srpt/abi/cmd.h>
#include <srpt/abi/fabric.h>
#include <srpt/abi/session.h>
#include "counters.h"
#include "fault.h"
#include "objects.h"
#include "shim.h"
#include "srpt_compat.h"

struct srpt_shim_tport {
	struct se_wwn wwn;
	struct srpt_core_tport *core;
};

struct srpt_shim_node_acl {
	struct se_node_acl nacl;
};

static struct srpt_shim_tport *srpt_shim_tport(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_shim_tport, wwn);
}

static struct srpt_k_tpg *srpt_shim_tpg(struct se_portal_group *se_tpg)
{
	return container_of(se_tpg, struct srpt_k_tpg, se_tpg);
}

/* --- target port directories ------------------------------------------- */

static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_shim_tport *tport;
	int ret;

	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	ret = srpt_core_tport_make(name, &tport->core);
	if (ret) {
		kfree(tport);
		return ERR_PTR(ret);
	}
	return &tport->wwn;
}

static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_shim_tport *tport = srpt_shim_tport(wwn);

	srpt_core_tport_drop(tport->core);
	kfree(tport);
}

static char *srpt_get_fabric_wwn(struct se_portal_group *se_tpg)
{
	struct srpt_shim_tport *tport = srpt_shim_tport(se_tpg->se_tpg_wwn);

	/* The target core wants a char *; it never writes through it. */
	return (char *)srpt_core_tport_name(tport->core);
}

/* --- TPG directories ---------------------------------------------------- */

static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_shim_tport *tport = srpt_shim_tport(wwn);
	struct srpt_k_tpg *tpg;
	int ret;

	tpg = kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	/* Registered first: the core may make sessions on it from now on. */
	ret = core_tpg_register(wwn, &tpg->se_tpg, SCSI_PROTOCOL_SRP);
	if (ret)
		goto err_free;
	ret = srpt_core_tpg_make(tport->core, name, tpg, &tpg->core);
	if (ret)
		goto err_deregister;
	return &tpg->se_tpg;

err_deregister:
	core_tpg_deregister(&tpg->se_tpg);
err_free:
	kfree(tpg);
	return ERR_PTR(ret);
}

static int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	return srpt_core_tpg_enable(srpt_shim_tpg(se_tpg)->core, enable);
}

static void srpt_drop_tpg(struct se_portal_group *se_tpg)
{
	struct srpt_k_tpg *tpg = srpt_shim_tpg(se_tpg);

	/*
	 * Reverse of srpt_make_tpg(). SAFETY: srpt_core_tpg_drop() returns
	 * after the TPG's channels were released and their sessions removed,
	 * so none is left for core_tpg_deregister() to find.
	 */
	srpt_core_tpg_drop(tpg->core);
	core_tpg_deregister(se_tpg);
	kfree(tpg);
}

static u16 srpt_get_tag(struct se_portal_group *se_tpg)
{
	return srpt_core_tpg_tag(srpt_shim_tpg(se_tpg)->core);
}

/* --- discovery_auth/rdma_cm_port --------------------------------------- */

static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", srpt_core_rdma_cm_port());
}

static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	int ret = srpt_core_rdma_cm_port_store(page, count);

	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_, rdma_cm_port);

static struct configfs_attribute *srpt_da_attrs[] = {
	&srpt_attr_rdma_cm_port,
	NULL,
};

/* --- target/srpt/version ----------------------------------------------- */

/*
 * The target core puts the "wwn" attributes in the fabric's directory,
 * beside the target ports. As in-tree's: it reads as an empty line.
 */
static ssize_t srpt_wwn_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "\n");
}

CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

/* --- <tpg>/attrib/ ------------------------------------------------------ */

static ssize_t srpt_tpg_attr_show(struct config_item *item, char *page,
				  enum srpt_tpg_attr attr)
{
	struct srpt_k_tpg *tpg = srpt_shim_tpg(attrib_to_tpg(item));

	/*
	 * SAFETY: configfs creates the attrib/ directory after
	 * srpt_make_tpg() returned and removes it before srpt_drop_tpg(), so
	 * tpg->core is set and alive.
	 */
	return sysfs_emit(page, "%u\n",
			  srpt_core_tpg_attr_show(tpg->core, attr));
}

static ssize_t srpt_tpg_attr_store(struct config_item *item, const char *page,
				   size_t count, enum srpt_tpg_attr attr)
{
	struct srpt_k_tpg *tpg = srpt_shim_tpg(attrib_to_tpg(item));
	int ret = srpt_core_tpg_attr_store(tpg->core, attr, page, count);

	return ret ? ret : count;
}

#define SRPT_TPG_ATTRIB(_name, _attr)					\
static ssize_t srpt_tpg_attrib_##_name##_show(struct config_item *item,	\
					      char *page)		\
{									\
	return srpt_tpg_attr_show(item, page, _attr);			\
}									\
static ssize_t srpt_tpg_attrib_##_name##_store(struct config_item *item, \
					       const char *page,	\
					       size_t count)		\
{									\
	return srpt_tpg_attr_store(item, page, count, _attr);		\
}									\
CONFIGFS_ATTR(srpt_tpg_attrib_, _name)

SRPT_TPG_ATTRIB(srp_max_rdma_size, SRPT_ATTR_MAX_RDMA_SIZE);
SRPT_TPG_ATTRIB(srp_max_rsp_size, SRPT_ATTR_MAX_RSP_SIZE);
SRPT_TPG_ATTRIB(srp_sq_size, SRPT_ATTR_SQ_SIZE);
SRPT_TPG_ATTRIB(use_srq, SRPT_ATTR_USE_SRQ);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	NULL,
};
static_assert(ARRAY_SIZE(srpt_tpg_attrib_attrs) == SRPT_ATTR_COUNT + 1);

/* --- acls/<name> -------------------------------------------------------- */

static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	return srpt_core_acl_name_check(name);
}

/* The ACL's sessions, in the form rtslib parses (`targetcli sessions`). */
static ssize_t srpt_acl_info_show(struct config_item *item, char *page)
{
	struct se_node_acl *nacl = acl_to_nacl(item);
	struct srpt_k_seq seq = { .page = page };

	/*
	 * SAFETY: configfs removes acls/<name>/ before the TPG's directory,
	 * whose removal calls srpt_drop_tpg(): the TPG's core object is alive.
	 */
	srpt_core_acl_info(srpt_shim_tpg(nacl->se_tpg)->core,
			   nacl->initiatorname, &seq);
	return seq.len;
}

CONFIGFS_ATTR_RO(srpt_acl_, info);

static struct configfs_attribute *srpt_acl_base_attrs[] = {
	&srpt_acl_attr_info,
	NULL,
};

/*
 * SRP has no authentication. `targetcli sessions detail` reads this for
 * every session it lists (and fails without it).
 */
static ssize_t srpt_acl_auth_authenticate_target_show(struct config_item *item,
						      char *page)
{
	return sysfs_emit(page, "0\n");
}

CONFIGFS_ATTR_RO(srpt_acl_auth_, authenticate_target);

static struct configfs_attribute *srpt_acl_auth_attrs[] = {
	&srpt_acl_auth_attr_authenticate_target,
	NULL,
};

/* --- sessions ----------------------------------------------------------- */

/*
 * An ACL is being removed (or its sessions shut down): the target core
 * calls this in process context, holding no lock, once per session.
 */
static void srpt_close_session(struct se_session *se_sess)
{
	srpt_core_session_close(se_sess->fabric_sess_ptr);
}

/* --- target-core callbacks with nothing to decide ----------------------- */

static int srpt_check_true(struct se_portal_group *se_tpg)
{
	return 1;
}

static int srpt_check_false(struct se_portal_group *se_tpg)
{
	return 0;
}

static u32 srpt_tpg_get_inst_index(struct se_portal_group *se_tpg)
{
	return 1;
}

static u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

/* --- per-command callbacks --------------------------------------------- */

/*
 * The target core calls these in process context (its work queues, or
 * synchronously from srpt_k_cmd_submit(), srpt_k_cmd_execute() and
 * srpt_k_cmd_free()). The se_cmd is the one embedded in a slot's
 * struct srpt_k_cmd, which lives until the slot is destroyed.
 */

static void srpt_release_cmd(struct se_cmd *se_cmd)
{
	srpt_shim_cmd_release(se_cmd);
}

/* After queue_data_in/queue_status: the target core's own reference. */
static int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

static int srpt_write_pending(struct se_cmd *se_cmd)
{
	return srpt_core_cmd_write_pending(srpt_shim_cmd_ctx(se_cmd));
}

static int srpt_get_tcm_cmd_state(struct se_cmd *se_cmd)
{
	return 0;
}

static int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	return srpt_core_cmd_queue_data_in(srpt_shim_cmd_ctx(se_cmd));
}

static int srpt_queue_status(struct se_cmd *se_cmd)
{
	return srpt_core_cmd_queue_status(srpt_shim_cmd_ctx(se_cmd));
}

static void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	srpt_core_cmd_queue_tm_rsp(srpt_shim_cmd_ctx(se_cmd));
}

static void srpt_aborted_task(struct se_cmd *se_cmd)
{
	srpt_core_cmd_aborted(srpt_shim_cmd_ctx(se_cmd));
}

static const struct target_core_fabric_ops srpt_template = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.node_acl_size			= sizeof(struct srpt_shim_node_acl),
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.tpg_get_inst_index		= srpt_tpg_get_inst_index,
	.check_stop_free		= srpt_check_stop_free,
	.release_cmd			= srpt_release_cmd,
	.close_session			= srpt_close_session,
	.sess_get_index			= srpt_sess_get_index,
	.sess_get_initiator_sid		= NULL,
	.write_pending			= srpt_write_pending,
	.set_default_node_attributes	= srpt_set_default_node_attrs,
	.get_cmd_state			= srpt_get_tcm_cmd_state,
	.queue_data_in			= srpt_queue_data_in,
	.queue_status			= srpt_queue_status,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.fabric_make_tpg		= srpt_make_tpg,
	.fabric_enable_tpg		= srpt_enable_tpg,
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_wwn_attrs			= srpt_wwn_attrs,
	.tfc_discovery_attrs		= srpt_da_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs	= srpt_acl_base_attrs,
	.tfc_tpg_nacl_auth_attrs	= srpt_acl_auth_attrs,
#ifdef SRPT_HAVE_FABRIC_SUBMIT_TYPE
	/*
	 * Where the target core can queue submissions to its own work queue
	 * (6.11 and later), ask for what older kernels always do: the command
	 * runs in the caller's context, the channel's completion work, as
	 * in-tree srpt asks too. A backstore's submit_type attribute may
	 * still choose queueing; nothing here depends on which.
	 */
	.default_submit_type		= TARGET_DIRECT_SUBMIT,
	.direct_submit_supp		= 1,
#endif
};

int srpt_shim_fabric_register(void)
{
	int ret = target_register_template(&srpt_template);

	if (ret)
		pr_err("target_register_template() failed: %d\n", ret);
	return ret;
}

void srpt_shim_fabric_unregister(void)
{
	target_unregister_template(&srpt_template);
}

/* --- debugfs ib_srpt/channels ------------------------------------------ */

static struct dentry *srpt_debugfs_dir;

void srpt_k_seq_printf(struct srpt_k_seq *seq, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (seq->m) {
		seq_vprintf(seq->m, fmt, ap);
	} else if (!seq->full) {
		n = vsnprintf(seq->page + seq->len, PAGE_SIZE - seq->len, fmt, ap);
		if (n >= 0 && (size_t)n < PAGE_SIZE - seq->len) {
			seq->len += n;
		} else {
			seq->page[seq->len] = '\0';
			seq->full = true;
		}
	}
	va_end(ap);
}

static int srpt_channels_show(struct seq_file *m, void *unused)
{
	/* Process context (a read of the file); the core takes its locks. */
	struct srpt_k_seq seq = { .m = m };

	srpt_core_show_channels(&seq);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_channels);

void srpt_shim_debugfs_create(void)
{
	/* debugfs failures are not errors: the calls accept ERR_PTRs. */
	srpt_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("channels", 0444, srpt_debugfs_dir, NULL,
			    &srpt_channels_fops);
	srpt_counters_debugfs_create(srpt_debugfs_dir);
	srpt_fault_debugfs_create(srpt_debugfs_dir);
}

void srpt_shim_debugfs_remove(void)
{
	/* SAFETY: waits for reads in progress; none starts afterwards. */
	debugfs_remove_recursive(srpt_debugfs_dir);
	srpt_debugfs_dir = NULL;
}
