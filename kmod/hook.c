// SPDX-License-Identifier: GPL-2.0
/* Attaching fabtrace to ib_core and to rdma_rxe, whenever it is loaded. */

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>

#include "hook.h"
#include "life.h"
#include "tap.h"

/*
 * Function-entry hooks are ftrace_ops, one per function.  A kprobe at a
 * function entry is ftrace-based on 6.12 too, but skips a hit that lands
 * while another kprobe handler runs on the CPU (a softirq interrupting a
 * process-context handler): it would lose packets.
 *
 * The two packet taps are called straight from their ops' trampoline.
 * ftrace's recursion guard, an extra indirect call and a per-context bit
 * test, cost as much as the tap's own work (instruction-clock runs in
 * Documentation/performance.rst), and they need none: nothing they call
 * leads back into rxe_xmit_packet() or rxe_rcv(), and all they touch is
 * safe in any context (per-CPU operations, atomics, RCU, the events'
 * irq-safe ring lock).  The rare hooks keep the guard.
 */
struct ft_fhook {
	const char *sym;
	ftrace_func_t fn;
	bool rxe;			/* lives in rdma_rxe */
	bool tap;			/* on the packet path: unguarded */
	bool on;
	struct ftrace_ops ops;
};

static struct ft_fhook fhooks[] = {
	{ .sym = "rdma_restrack_add", .fn = ft_life_add },
	{ .sym = "rdma_restrack_commit_del", .fn = ft_life_del },
	{ .sym = "rdma_restrack_del", .fn = ft_life_del },
	{ .sym = "rxe_xmit_packet", .fn = ft_tap_tx, .rxe = true, .tap = true },
	{ .sym = "rxe_rcv", .fn = ft_tap_rx, .rxe = true, .tap = true },
	{ .sym = "rxe_qp_error", .fn = ft_life_qp_error, .rxe = true },
	{ .sym = "retransmit_timer", .fn = ft_life_retrans_timer, .rxe = true },
	{ .sym = "rnr_nak_timer", .fn = ft_life_rnr_timer, .rxe = true },
	{ .sym = "rxe_cq_post", .fn = ft_life_cq_post, .rxe = true },
};

/*
 * A modify's outcome is only known when it returns, so these two are
 * kretprobes; they run in process context, where nothing nests, and their
 * nmissed is reported as hook-missed.
 */
static struct kretprobe modify_probes[] = {
	{ .kp.symbol_name = "ib_modify_qp_with_udata" },
	{ .kp.symbol_name = "ib_modify_qp" },
};

static struct kretprobe *modify_list[] = {
	&modify_probes[0], &modify_probes[1],
};

static DEFINE_MUTEX(hook_lock);
static bool rxe_on;

static int fhook_on(struct ft_fhook *h)
{
	int err;

	h->ops.func = h->fn;
	h->ops.flags = h->tap ? 0 : FTRACE_OPS_FL_RECURSION;
	err = ftrace_set_filter(&h->ops, (unsigned char *)h->sym,
				strlen(h->sym), 1);
	if (err)
		return err;
	err = register_ftrace_function(&h->ops);
	if (err) {
		ftrace_free_filter(&h->ops);
		return err;
	}
	h->on = true;
	return 0;
}

static void fhook_off(struct ft_fhook *h)
{
	if (!h->on)
		return;
	unregister_ftrace_function(&h->ops);
	ftrace_free_filter(&h->ops);
	h->on = false;
}

static void hooks_off(bool rxe)
{
	int i;

	for (i = ARRAY_SIZE(fhooks) - 1; i >= 0; i--)
		if (fhooks[i].rxe == rxe)
			fhook_off(&fhooks[i]);
}

static int hooks_on(bool rxe)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(fhooks); i++) {
		if (fhooks[i].rxe != rxe)
			continue;
		err = fhook_on(&fhooks[i]);
		if (err) {
			if (err != -EINVAL || !rxe)
				pr_err("cannot hook %s: %d\n", fhooks[i].sym, err);
			hooks_off(rxe);
			return err;
		}
	}
	return 0;
}

/* Attach to rdma_rxe if it is loaded; harmless if already attached. */
static void rxe_attach(void)
{
	mutex_lock(&hook_lock);
	if (!rxe_on && !hooks_on(true)) {
		rxe_on = true;
		pr_info("soft-RoCE data path attached\n");
	}
	mutex_unlock(&hook_lock);
}

static void rxe_detach(void)
{
	mutex_lock(&hook_lock);
	if (rxe_on) {
		hooks_off(true);
		rxe_on = false;
		ft_life_rxe_gone();
		pr_info("soft-RoCE data path detached\n");
	}
	mutex_unlock(&hook_lock);
}

bool ft_hook_rxe_attached(void)
{
	return READ_ONCE(rxe_on);
}

static int module_event(struct notifier_block *nb, unsigned long state,
			void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, "rdma_rxe"))
		return NOTIFY_DONE;
	/*
	 * Live comes before any rxe device can exist (they are made by
	 * "rdma link add" once the module has loaded); going comes after the
	 * last one is gone.
	 */
	if (state == MODULE_STATE_LIVE)
		rxe_attach();
	else if (state == MODULE_STATE_GOING)
		rxe_detach();
	return NOTIFY_DONE;
}

static struct notifier_block module_nb = {
	.notifier_call = module_event,
};

u64 ft_hook_missed(void)
{
	u64 missed = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(modify_probes); i++)
		missed += READ_ONCE(modify_probes[i].nmissed) +
			  READ_ONCE(modify_probes[i].kp.nmissed);
	return missed;
}

int ft_hook_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(modify_probes); i++) {
		modify_probes[i].entry_handler = ft_life_modify_entry;
		modify_probes[i].handler = ft_life_modify_return;
		modify_probes[i].data_size = ft_life_modify_data_size();
		modify_probes[i].maxactive = max(16, 4 * (int)num_possible_cpus());
	}
	err = register_kretprobes(modify_list, ARRAY_SIZE(modify_list));
	if (err) {
		pr_err("cannot probe ib_modify_qp: %d\n", err);
		return err;
	}
	err = hooks_on(false);
	if (err)
		goto err_unregister_kretprobes;
	err = register_module_notifier(&module_nb);
	if (err)
		goto err_hooks_off;
	/* rdma_rxe may already be loaded; if not, module_event() attaches */
	rxe_attach();
	return 0;

err_hooks_off:
	hooks_off(false);
err_unregister_kretprobes:
	unregister_kretprobes(modify_list, ARRAY_SIZE(modify_list));
	return err;
}

void ft_hook_exit(void)
{
	unregister_module_notifier(&module_nb);
	rxe_detach();
	hooks_off(false);
	unregister_kretprobes(modify_list, ARRAY_SIZE(modify_list));
}
