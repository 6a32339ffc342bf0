/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target-core fabric "srpt", as configfs drives it.
 *
 * /sys/kernel/config/target/srpt/<port>/<tpg>/: the shim owns the target-core
 * objects (se_wwn, se_portal_group) and forwards each configfs operation to
 * the core, which decides. configfs serialises mkdir/rmdir per directory and
 * removes children before parents, so a tport outlives its TPGs.
 */
#ifndef SRPT_ABI_FABRIC_H
#define SRPT_ABI_FABRIC_H

#include <srpt/abi/types.h>

SRPT_EXTERN_C_BEGIN

struct srpt_core_tport;
struct srpt_core_tpg;
struct srpt_k_tpg;	/* the shim's se_portal_group, for sessions */

/*
 * mkdir of a target port directory. The name must name an RDMA port in the
 * GUID form (xxxx:xxxx:xxxx:xxxx) or the GID form (0x + 32 hex digits).
 * Returns 0 and the new object, or a negative errno (and logs why).
 */
int srpt_core_tport_make(const char *name, struct srpt_core_tport **out) SRPT_NOEXCEPT;
/* The canonical name, stable for the tport's life. */
const char *srpt_core_tport_name(const struct srpt_core_tport *tport) SRPT_NOEXCEPT;
void srpt_core_tport_drop(struct srpt_core_tport *tport) SRPT_NOEXCEPT;

/* `ktpg` is registered with the target core before this is called. */
int srpt_core_tpg_make(struct srpt_core_tport *tport, const char *name,
		       struct srpt_k_tpg *ktpg,
		       struct srpt_core_tpg **out) SRPT_NOEXCEPT;
uint16_t srpt_core_tpg_tag(const struct srpt_core_tpg *tpg) SRPT_NOEXCEPT;
int srpt_core_tpg_enable(struct srpt_core_tpg *tpg, int enable) SRPT_NOEXCEPT;
/*
 * Disables the TPG, closes its channels and waits until they are released;
 * the shim deregisters ktpg afterwards.
 */
void srpt_core_tpg_drop(struct srpt_core_tpg *tpg) SRPT_NOEXCEPT;

/*
 * <tpg>/attrib/: per RDMA port, as in the in-tree driver (every TPG of a
 * port shows the same values). Store takes the text written.
 */
enum srpt_tpg_attr {
	SRPT_ATTR_MAX_RDMA_SIZE = 0,	/* srp_max_rdma_size */
	SRPT_ATTR_MAX_RSP_SIZE = 1,	/* srp_max_rsp_size */
	SRPT_ATTR_SQ_SIZE = 2,		/* srp_sq_size */
	SRPT_ATTR_USE_SRQ = 3,		/* use_srq */
	SRPT_ATTR_COUNT
};
uint32_t srpt_core_tpg_attr_show(struct srpt_core_tpg *tpg,
				 enum srpt_tpg_attr attr) SRPT_NOEXCEPT;
int srpt_core_tpg_attr_store(struct srpt_core_tpg *tpg, enum srpt_tpg_attr attr,
			     const char *buf, size_t len) SRPT_NOEXCEPT;

/* mkdir of acls/<name>: 0 when the name is a valid initiator name. */
int srpt_core_acl_name_check(const char *name) SRPT_NOEXCEPT;

/* The read-only file listing live channels (debugfs ib_srpt/channels). */
struct srpt_k_seq;
void srpt_core_show_channels(struct srpt_k_seq *seq) SRPT_NOEXCEPT;
/*
 * acls/<name>/info of a TPG: the sessions logged in under the ACL named
 * `acl_name`, in the lines rtslib parses for `targetcli sessions`.
 */
void srpt_core_acl_info(struct srpt_core_tpg *tpg, const char *acl_name,
			struct srpt_k_seq *seq) SRPT_NOEXCEPT;
/*
 * The core's part of debugfs ib_srpt/objects: "name value" lines with the
 * live channels and the connection cm_ids channels adopted and destroyed.
 */
void srpt_core_show_objects(struct srpt_k_seq *seq) SRPT_NOEXCEPT;
SRPT_PRINTF(2, 3)
void srpt_k_seq_printf(struct srpt_k_seq *seq, const char *fmt, ...) SRPT_NOEXCEPT;

/* discovery_auth/rdma_cm_port: the text written, not NUL-terminated. */
int srpt_core_rdma_cm_port_store(const char *buf, size_t len) SRPT_NOEXCEPT;
uint16_t srpt_core_rdma_cm_port(void) SRPT_NOEXCEPT;

SRPT_EXTERN_C_END

#endif /* SRPT_ABI_FABRIC_H */
