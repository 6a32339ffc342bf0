// SPDX-License-Identifier: GPL-2.0
/*
 * Target-core sessions, work items, completions and time:
 * include/srpt/abi/session.h.
 *
 * The session handle (struct srpt_k_session *) is the struct se_session
 * itself; its fabric_sess_ptr is the core's channel, given back to the core
 * by the close_session fabric callback (fabric.c).
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include <srpt/abi/session.h>
#include "counters.h"
#include "fault.h"
#include "objects.h"
#include "shim.h"

/* --- sessions ----------------------------------------------------------- */

static struct se_session *srpt_k_se_sess(struct srpt_k_session *sess)
{
	return (struct se_session *)sess;
}

int srpt_k_session_create(struct srpt_k_tpg *tpg, const char *initiator_name,
			  struct srpt_core_chan *ctx,
			  struct srpt_k_session **out)
{
	struct se_session *se_sess;

	/*
	 * No tag pool: the core's command slots carry their own se_cmd.
	 * SAFETY: process context (allocates with GFP_KERNEL and takes
	 * target-core mutexes); the TPG is registered with the target core
	 * for as long as the core holds it (fabric.h).
	 */
	if (srpt_fault_hit(SRPT_FAULT_SESSION))
		return -ENOMEM;
	se_sess = target_setup_session(&tpg->se_tpg, 0, 0, TARGET_PROT_NORMAL,
				       initiator_name, ctx, NULL);
	if (IS_ERR(se_sess))
		return PTR_ERR(se_sess);
	srpt_count_inc(SRPT_CNT_SESSIONS);
	*out = (struct srpt_k_session *)se_sess;
	return 0;
}

int srpt_k_tpg_admits(struct srpt_k_tpg *tpg, const char *initiator_name)
{
	struct se_portal_group *se_tpg = &tpg->se_tpg;
	struct se_node_acl *nacl;

	/*
	 * What target_setup_session() would find: an ACL of that name, or an
	 * ACL generated on demand (demo mode; this fabric never has it, the
	 * question is asked for the rule's sake). The lookup takes a
	 * reference on the ACL, dropped again at once: the answer only spares
	 * a login the building of a channel, the session setup decides.
	 * SAFETY: process context (takes the TPG's acl_node_mutex); the TPG
	 * is registered with the target core while the core holds it.
	 */
	if (se_tpg->se_tpg_tfo->tpg_check_demo_mode(se_tpg))
		return 1;
	nacl = core_tpg_get_initiator_node_acl(se_tpg,
					       (unsigned char *)initiator_name);
	if (!nacl)
		return 0;
	target_put_nacl(nacl);
	return 1;
}

void srpt_k_session_drain(struct srpt_k_session *sess)
{
	struct se_session *se_sess = srpt_k_se_sess(sess);

	/*
	 * SAFETY: sleeps until every command of the session was released
	 * (release_cmd), so it must not run in a context those commands'
	 * completions depend on: not a completion handler of the channel's
	 * CQ, not a target-core callback.
	 */
	target_stop_session(se_sess);
	target_wait_for_sess_cmds(se_sess);
}

void srpt_k_session_remove(struct srpt_k_session *sess)
{
	target_remove_session(srpt_k_se_sess(sess));
	srpt_count_dec(SRPT_CNT_SESSIONS);
}

/* --- work items --------------------------------------------------------- */

struct srpt_k_work {
	/* A delayed work runs at once when queued with no delay. */
	struct delayed_work dwork;
	void (*fn)(void *arg);
	void *arg;
};

static void srpt_k_work_fn(struct work_struct *work)
{
	struct srpt_k_work *w = container_of(to_delayed_work(work),
					     struct srpt_k_work, dwork);

	/*
	 * The function may destroy w (the workqueue core no longer touches
	 * a work item once its function runs).
	 */
	w->fn(w->arg);
}

int srpt_k_work_create(void (*fn)(void *arg), void *arg,
		       struct srpt_k_work **out)
{
	struct srpt_k_work *w;

	w = srpt_shim_kmalloc(sizeof(*w), GFP_KERNEL | __GFP_ZERO);
	if (!w)
		return -ENOMEM;
	INIT_DELAYED_WORK(&w->dwork, srpt_k_work_fn);
	w->fn = fn;
	w->arg = arg;
	*out = w;
	return 0;
}

void srpt_k_work_queue(struct srpt_k_work *w)
{
	/* Any context; a no-op while the item is pending. */
	queue_delayed_work(srpt_shim_wq, &w->dwork, 0);
}

void srpt_k_work_queue_after(struct srpt_k_work *w, uint32_t ms)
{
	/* Any context; a no-op while the item is pending (timer included). */
	queue_delayed_work(srpt_shim_wq, &w->dwork, msecs_to_jiffies(ms));
}

void srpt_k_work_cancel(struct srpt_k_work *w)
{
	might_sleep();
	cancel_delayed_work_sync(&w->dwork);
}

void srpt_k_work_destroy(struct srpt_k_work *w)
{
	if (!w)
		return;
	/*
	 * Not pending (nor waiting for its time: freeing an armed timer is a
	 * use-after-free), and not running unless from its own function.
	 */
	WARN_ON_ONCE(delayed_work_pending(&w->dwork));
	srpt_shim_kfree(w);
}

void srpt_k_work_flush(void)
{
	flush_workqueue(srpt_shim_wq);
}

/* --- completions -------------------------------------------------------- */

struct srpt_k_completion {
	struct completion done;
};

int srpt_k_completion_create(struct srpt_k_completion **out)
{
	struct srpt_k_completion *c;

	c = srpt_shim_kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	init_completion(&c->done);
	*out = c;
	return 0;
}

void srpt_k_complete(struct srpt_k_completion *c)
{
	/* One-shot: every wait from now on returns at once. Any context. */
	complete_all(&c->done);
}

int srpt_k_wait(struct srpt_k_completion *c, uint32_t ms)
{
	if (!wait_for_completion_timeout(&c->done, msecs_to_jiffies(ms)))
		return -ETIMEDOUT;
	return 0;
}

void srpt_k_completion_destroy(struct srpt_k_completion *c)
{
	srpt_shim_kfree(c);
}

/* --- time --------------------------------------------------------------- */

uint64_t srpt_k_now_ns(void)
{
	return ktime_get_ns();
}

void srpt_k_sleep_ms(uint32_t ms)
{
	msleep(ms);
}
