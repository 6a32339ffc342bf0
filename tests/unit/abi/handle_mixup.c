/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compiled by handles_check.sh as C (as the shim is) and as C++ (as the
 * core is). MIXUP=0 uses each handle where it belongs and must compile;
 * every other MIXUP passes a channel where a command belongs or the other
 * way round, and must not. With `void *` in the ABI all of them compile.
 */
#ifndef __cplusplus
#include <stddef.h>
#include <stdint.h>
#define _LINUX_TYPES_H	/* abi/types.h takes the kernel's; these stand in */
#endif
#include <srpt/abi/cm.h>
#include <srpt/abi/cmd.h>
#include <srpt/abi/queue.h>
#include <srpt/abi/session.h>

/* Declared here too, so that the correct uses compile even without them. */
struct srpt_core_chan;
struct srpt_core_cmd;

void use(struct srpt_core_chan *ch, struct srpt_core_cmd *cmd,
	 struct srpt_qp_params *qp);
void use(struct srpt_core_chan *ch, struct srpt_core_cmd *cmd,
	 struct srpt_qp_params *qp)
{
#if MIXUP == 0
	srpt_core_cm_event(ch, SRPT_CM_EV_ESTABLISHED);
	srpt_core_recv_done(ch, 0, 0, 1);
	srpt_core_session_close(ch);
	qp->ctx = ch;
	(void)srpt_core_cmd_queue_status(cmd);
	srpt_core_cmd_release(cmd);
	(void)srpt_k_cmd_create(0, 1, cmd, 0);
	srpt_k_cmd_bind(0, 0, 1, cmd);
#elif MIXUP == 1	/* the shim gives back a channel for a command */
	srpt_core_cmd_release(ch);
#elif MIXUP == 2	/* ... a command for a channel */
	srpt_core_recv_done(cmd, 0, 0, 1);
#elif MIXUP == 3
	srpt_core_session_close(cmd);
#elif MIXUP == 4	/* the core hands a command as a QP's channel */
	qp->ctx = cmd;
#elif MIXUP == 5	/* ... a channel as a command slot's context */
	(void)srpt_k_cmd_create(0, 1, ch, 0);
#elif MIXUP == 6	/* ... or as the slot a reused context is bound to */
	srpt_k_cmd_bind(0, 0, 1, ch);
#else
#error "unknown MIXUP"
#endif
}
