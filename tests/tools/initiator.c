// SPDX-License-Identifier: GPL-2.0
/* The test initiator's dispatch to its back ends (initiator.h). */
#include "initiator.h"

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
