// SPDX-License-Identifier: GPL-2.0
/* Attaching fabtrace to ib_core and to rdma_rxe, whenever it is loaded. */

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/version.h>

#include <trace/events/skb.h>

#include "acct.h"
#include "compat.h"
#include "hook.h"
#include "life.h"
#include "tap.h"

/*
 * Function-entry hooks are ftrace_ops, one per function.  A kprobe at a
 * function entry is ftrace-based on 6.12 too, but skips a hit that lands
 * while another kprobe handler runs on the CPU (a softirq interrupting a
 * process-context handler): it would lose packets.
 *
 * The hooks on every packet and every completion are ftrace direct calls:
 * rxe's call sites call a trampoline of ours (below) instead of ftrace's
 * generic one: hooks doing nothing cost 0.4 % of rxe's bandwidth so, and
 * 1.0 % as callbacks (Documentation/performance.rst).  With direct=0, or
 * where another direct caller (a BPF trampoline) already owns the
 * function, they are ftrace callbacks.
 * Either way they run without ftrace's recursion guard, which would cost
 * as much as the taps' own work (Documentation/performance.rst), and they
 * need none: nothing they call leads back into the functions they hook,
 * and all they touch is safe in any context (per-CPU operations, atomics,
 * RCU, the events' irq-safe ring lock).  One exception, bounded: a CNP
 * the receive tap sends (cnp.c) to a local peer may reach rxe_rcv() again
 * from the softirq its send runs on the way out; a CNP is never CE-marked,
 * so that second pass sends nothing.  The rare hooks keep the guard.
 */
static bool use_direct = true;
module_param_named(direct, use_direct, bool, 0444);
MODULE_PARM_DESC(direct,
		 "hook rxe's packet path with ftrace direct calls (default 1); 0 leaves those functions to BPF trampolines");

struct ft_fhook {
	const char *sym;
	ftrace_func_t fn;
	void (*tramp)(void);		/* hot: its direct trampoline */
	bool rxe;			/* lives in rdma_rxe */
	unsigned long addr;		/* rxe: where, while attached */
	bool hot;			/* per packet or completion: unguarded */
	bool direct;			/* attached as a direct call */
	bool on;
	struct ftrace_ops ops;		/* as a callback */
	struct ftrace_ops dops;		/* as a direct call: never mixed */
};

#ifdef FT_HOOK_DIRECT
#include <asm/ibt.h>
#include <asm/nospec-branch.h>

#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

/*
 * A direct trampoline runs before the traced function's prologue, with
 * its arguments still in their registers: it saves the ones the function
 * takes, since @fn may clobber them, calls @fn with them, and returns
 * into the function.
 */
#define FT_TRAMP(tramp, fn, save, restore)				\
	asm(".pushsection .text, \"ax\", @progbits\n"			\
	    ".type " #tramp ", @function\n"				\
	    ".globl " #tramp "\n"					\
	    #tramp ":\n"						\
	    ASM_ENDBR							\
	    CALL_DEPTH_ACCOUNT						\
	    save							\
	    "call " #fn "\n"						\
	    restore							\
	    ASM_RET							\
	    ".size " #tramp ", .-" #tramp "\n"				\
	    ".popsection\n")
#define FT_SAVE2	"pushq %rdi\npushq %rsi\n"
#define FT_RESTORE2	"popq %rsi\npopq %rdi\n"
#define FT_SAVE3	"pushq %rdi\npushq %rsi\npushq %rdx\n"
#define FT_RESTORE3	"popq %rdx\npopq %rsi\npopq %rdi\n"

/*
 * rxe_cq_post(cq, cqe, solicited) runs for every completion, and only the
 * two retry-exhausted statuses matter to fabtrace: its trampoline tests the
 * status itself and calls out for those alone.  %eax is free at the entry
 * of a function that takes no variable arguments; ft_life_cqe() checks the
 * offsets and values this relies on.
 */
#define FT_CQE_FILTER							\
	"movl 8(%rsi), %eax\n"		/* cqe->status */		\
	"subl $12, %eax\n"		/* IB_WC_RETRY_EXC_ERR */	\
	"cmpl $1, %eax\n"		/* or IB_WC_RNR_RETRY_EXC_ERR */	\
	"jbe 1f\n"							\
	ASM_RET								\
	"1:\n"								\
	FT_SAVE3

/* rxe_icrc_generate(skb, pkt), rxe_{resp,comp}_queue_pkt(qp, skb) */
FT_TRAMP(ft_tramp_icrc, ft_tap_icrc, FT_SAVE2, FT_RESTORE2);
FT_TRAMP(ft_tramp_queue, ft_tap_queue, FT_SAVE2, FT_RESTORE2);
FT_TRAMP(ft_tramp_cqe, ft_life_cqe, FT_CQE_FILTER, FT_RESTORE3);

/* 6.5 renamed the ops-based direct call API, and unregister took a flag. */
#if KERNEL_VERSION(6, 5, 0) > LINUX_VERSION_CODE
#define ft_direct_on(ops, addr)		register_ftrace_direct_multi(ops, addr)
#define ft_direct_off(ops, addr)	unregister_ftrace_direct_multi(ops, addr)
#else
#define ft_direct_on(ops, addr)		register_ftrace_direct(ops, addr)
#define ft_direct_off(ops, addr)	unregister_ftrace_direct(ops, addr, false)
#endif
#else
/* no direct calls: the hot hooks are callbacks, and these never run */
static inline int ft_direct_on(struct ftrace_ops *ops, unsigned long addr)
{
	return -EOPNOTSUPP;
}

static inline int ft_direct_off(struct ftrace_ops *ops, unsigned long addr)
{
	return -EOPNOTSUPP;
}
#endif /* FT_HOOK_DIRECT */

static struct ft_fhook fhooks[] = {
	{ .sym = "rdma_restrack_commit_del", .fn = ft_life_del },
	{ .sym = "rdma_restrack_del", .fn = ft_life_del },
	{ .sym = "rxe_icrc_generate", .fn = ft_tap_tx,
	  .tramp = ft_tramp_icrc, .rxe = true, .hot = true },
	{ .sym = "rxe_resp_queue_pkt", .fn = ft_tap_rx,
	  .tramp = ft_tramp_queue, .rxe = true, .hot = true },
	{ .sym = "rxe_comp_queue_pkt", .fn = ft_tap_rx,
	  .tramp = ft_tramp_queue, .rxe = true, .hot = true },
	{ .sym = "rxe_qp_error", .fn = ft_life_qp_error, .rxe = true },
	{ .sym = "retransmit_timer", .fn = ft_life_retrans_timer, .rxe = true },
	{ .sym = "rnr_nak_timer", .fn = ft_life_rnr_timer, .rxe = true },
	{ .sym = "rxe_cq_post", .fn = ft_life_cq_post,
	  .tramp = ft_tramp_cqe, .rxe = true, .hot = true },
};

/*
 * A modify's outcome is only known when it returns, so these are
 * kretprobes; so is rdma_restrack_add(), which needs its return only for
 * the QPs of a device being discovered (life.c).  They run in process
 * context, where nothing nests; a call finding all instances in use is
 * missed, and counted in nmissed, which is reported as hook-missed.
 */
static struct kretprobe probes[] = {
	{ .kp.symbol_name = "ib_modify_qp_with_udata",
	  .entry_handler = ft_life_modify_entry,
	  .handler = ft_life_modify_return },
	{ .kp.symbol_name = "ib_modify_qp",
	  .entry_handler = ft_life_modify_entry,
	  .handler = ft_life_modify_return },
	{ .kp.symbol_name = "rdma_restrack_add",
	  .entry_handler = ft_life_add_entry,
	  .handler = ft_life_add_return },
};

static struct kretprobe *probe_list[] = {
	&probes[0], &probes[1], &probes[2],
};

static DEFINE_MUTEX(hook_lock);
static bool rxe_on;

/*
 * Where @mod's function @sym is.  An ftrace filter by name would match a
 * function of that name in any module, and hand it our taps: the module's
 * own symbol table names rdma_rxe's alone (the walk of the kernel's
 * "module:symbol" lookup, which modules cannot call).  @mod is live and
 * cannot go: its going notifier waits for hook_lock.
 */
static unsigned long mod_sym_addr(struct module *mod, const char *sym)
{
	const struct mod_kallsyms *ks;
	unsigned long addr = 0;
	unsigned int i;

	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	for (i = 1; i < ks->num_symtab; i++) {
		const typeof(*ks->symtab) *s = &ks->symtab[i];

		if (s->st_shndx != SHN_UNDEF &&
		    !strcmp(ks->strtab + s->st_name, sym)) {
			addr = s->st_value;
			break;
		}
	}
	preempt_enable();
	return addr;
}

/* @ops on @sym: at @addr if given (rxe's, found by mod_sym_addr()). */
static int ops_filter(struct ftrace_ops *ops, const char *sym,
		      unsigned long addr)
{
	if (addr)
		return ftrace_set_filter_ip(ops, addr, 0, 1);
	return ftrace_set_filter(ops, (unsigned char *)sym, strlen(sym), 1);
}

/*
 * Frees @ops' filter and leaves @ops as at load, @func its callback, so
 * that it can be set up again (rdma_rxe unloaded and loaded anew):
 * ftrace_free_filter() leaves the freed hash in @ops (before 6.15), which
 * the next filter would free again, and a direct call refuses an ops that
 * a failed registration (6.1) left its func and trampoline in.  An ops
 * ftrace still holds (it failed to let go of it: ftrace shut itself down)
 * is left as it is, leaked.
 */
static void ops_reset(struct ftrace_ops *ops, ftrace_func_t func)
{
	if (ops->flags & FTRACE_OPS_FL_ENABLED)
		return;
	ftrace_free_filter(ops);
	*ops = (struct ftrace_ops){ .func = func };
}

/* @ops, its func and flags set by the caller, on @sym (ops_filter()). */
static int ops_on(struct ftrace_ops *ops, const char *sym, unsigned long addr)
{
	int err;

	err = ops_filter(ops, sym, addr);
	if (!err)
		err = register_ftrace_function(ops);
	if (err)
		ops_reset(ops, ops->func);
	return err;
}

/*
 * @ops->func at each entry of the kernel's function @sym, inside ftrace's
 * recursion guard: never nested on a CPU, preemption off throughout.
 */
static int hook_on(struct ftrace_ops *ops, const char *sym)
{
	ops->flags |= FTRACE_OPS_FL_RECURSION;
	return ops_on(ops, sym, 0);
}

/*
 * Returns once no CPU runs @ops' callback: ops in module memory are
 * FTRACE_OPS_FL_DYNAMIC, whose removal waits for every task and CPU.
 */
static void hook_off(struct ftrace_ops *ops)
{
	WARN_ON(unregister_ftrace_function(ops));
	ops_reset(ops, ops->func);
}

/**
 * ft_hooks_on() - each hook's callback at each entry of its kernel function
 * @hooks: the hooks, their callbacks set (ops.func)
 * @n: how many
 *
 * The callbacks run inside ftrace's recursion guard: never nested on a
 * CPU, preemption off throughout.  On an error none is left on.
 *
 * Return: 0 or -errno.
 */
int ft_hooks_on(struct ft_hook *hooks, unsigned int n)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = hook_on(&hooks[i].ops, hooks[i].sym);
		if (err) {
			pr_err("cannot hook %s: %d\n", hooks[i].sym, err);
			ft_hooks_off(hooks, i);
			return err;
		}
	}
	return 0;
}

/* Take off the first @n of @hooks; returns once none of their callbacks runs. */
void ft_hooks_off(struct ft_hook *hooks, unsigned int n)
{
	while (n--)
		hook_off(&hooks[n].ops);
}

static int fhook_direct(struct ft_fhook *h)
{
	int err;

	err = ops_filter(&h->dops, h->sym, h->addr);
	if (!err)
		err = ft_direct_on(&h->dops, (unsigned long)h->tramp);
	if (err) {
		ops_reset(&h->dops, NULL);
		return err;
	}
	h->direct = true;
	return 0;
}

static int fhook_on(struct ft_fhook *h)
{
	int err;

	/* by name, an rxe hook could land on another module's function */
	if (WARN_ON_ONCE(h->rxe && !h->addr))
		return -ENOENT;
	if (h->tramp && use_direct) {
		err = fhook_direct(h);
		if (err != -EBUSY)
			goto out;
		pr_info("%s has another direct caller: hooked by callback\n",
			h->sym);
	}
	h->ops.func = h->fn;
	h->ops.flags = h->hot ? 0 : FTRACE_OPS_FL_RECURSION;
	err = ops_on(&h->ops, h->sym, h->addr);
out:
	h->on = !err;
	if (err)
		h->addr = 0;
	return err;
}

static void fhook_off(struct ft_fhook *h)
{
	if (!h->on)
		return;
	if (h->direct) {
		WARN_ON(ft_direct_off(&h->dops, (unsigned long)h->tramp));
		ops_reset(&h->dops, NULL);
	} else {
		hook_off(&h->ops);
	}
	h->addr = 0;
	h->direct = false;
	h->on = false;
}

static void hooks_off(bool rxe)
{
	int i;

	for (i = ARRAY_SIZE(fhooks) - 1; i >= 0; i--)
		if (fhooks[i].rxe == rxe)
			fhook_off(&fhooks[i]);
	/*
	 * The hot hooks run with preemption on (the trampolines, and the
	 * callbacks entirely): before the module's text may go, wait until
	 * no task is inside them.
	 */
	if (rxe)
		synchronize_rcu_tasks();
}

/* The hooks of ib_core, or (@rxe_mod set) of rdma_rxe. */
static int hooks_on(struct module *rxe_mod)
{
	bool rxe = rxe_mod;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(fhooks); i++) {
		struct ft_fhook *h = &fhooks[i];

		if (h->rxe != rxe)
			continue;
		err = -ENOENT;
		if (rxe)
			h->addr = mod_sym_addr(rxe_mod, h->sym);
		if (!rxe || h->addr)
			err = fhook_on(h);
		if (err) {
			pr_err("cannot hook %s: %d\n", h->sym, err);
			hooks_off(rxe);
			return err;
		}
	}
	return 0;
}

/*
 * Packets rxe_rcv() drops, after its checks failed, are freed there with
 * kfree_skb(): the kfree_skb tracepoint names where each drop came from,
 * and those from rxe_rcv()'s code go to ft_tap_drop().  Its code is that
 * of rxe_rcv and of rxe_rcv_mcast_pkt, and of any part of them the
 * compiler put apart (rxe_rcv.cold, rxe_rcv_mcast_pkt.isra.0): every
 * symbol of those names, or of those names and a suffix.  Every other drop
 * in the kernel costs the probe a few comparisons.
 */
#define FT_DROP_SITES	4
static struct {
	unsigned long start, size;
} drop_sites[FT_DROP_SITES];

static bool drop_sym(const char *name)
{
	static const char *const syms[] = { "rxe_rcv", "rxe_rcv_mcast_pkt" };
	unsigned int i;
	size_t n;

	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		n = strlen(syms[i]);
		if (!strncmp(name, syms[i], n) && (!name[n] || name[n] == '.'))
			return true;
	}
	return false;
}

static void notrace drop_probe(void *data, FT_KFREE_SKB_ARGS)
{
	unsigned long ip = (unsigned long)location;
	unsigned int i;

	for (i = 0; i < FT_DROP_SITES; i++)
		if (ip - READ_ONCE(drop_sites[i].start) < READ_ONCE(drop_sites[i].size)) {
			ft_tap_drop(skb);
			return;
		}
}

/* The drop sites of @mod, live (its going notifier waits for hook_lock). */
static int drops_on(struct module *mod)
{
	const struct mod_kallsyms *ks;
	unsigned int i, n = 0;
	bool rcv = false;
	int err;

	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	for (i = 1; i < ks->num_symtab; i++) {
		const typeof(*ks->symtab) *s = &ks->symtab[i];
		const char *name = ks->strtab + s->st_name;

		if (s->st_shndx == SHN_UNDEF || !s->st_size || !drop_sym(name))
			continue;
		if (n == FT_DROP_SITES) {
			n++;
			break;
		}
		drop_sites[n].start = s->st_value;
		drop_sites[n++].size = s->st_size;
		rcv |= !strcmp(name, "rxe_rcv");
	}
	preempt_enable();
	err = !rcv ? -ENOENT : n > FT_DROP_SITES ? -E2BIG : 0;
	if (!err)
		err = register_trace_kfree_skb(drop_probe, NULL);
	if (err)
		memset(drop_sites, 0, sizeof(drop_sites));
	return err;
}

/* Returns once no probe runs: rxe's text may go. */
static void drops_off(void)
{
	unregister_trace_kfree_skb(drop_probe, NULL);
	tracepoint_synchronize_unregister();
	memset(drop_sites, 0, sizeof(drop_sites));
}

/* Attach to @mod, rdma_rxe, live; harmless if already attached. */
static void rxe_attach(struct module *mod)
{
	int err;

	if (rxe_on || hooks_on(mod))
		return;
	err = drops_on(mod);
	if (err) {
		pr_err("cannot follow rxe_rcv's drops: %d\n", err);
		hooks_off(true);
		return;
	}
	rxe_on = true;
	pr_info("soft-RoCE data path attached\n");
}

/*
 * At load: attach if rdma_rxe is live.  A module still coming has its
 * ftrace records disabled (a direct call set on one would never be
 * patched in, and unregistering it later would kill ftrace): its live
 * notifier, already registered, attaches then.  Under hook_lock, a module
 * seen live stays (its going notifier waits for the lock).  The module
 * kobject, in module_kset (our own kobject's kset), appears after the
 * records are enabled.
 */
static void rxe_attach_loaded(void)
{
	struct kobject *kobj;
	struct module *mod;

	mutex_lock(&hook_lock);
	kobj = kset_find_obj(THIS_MODULE->mkobj.kobj.kset, "rdma_rxe");
	if (kobj) {
		mod = container_of(kobj, struct module_kobject, kobj)->mod;
		if (mod && READ_ONCE(mod->state) == MODULE_STATE_LIVE)
			rxe_attach(mod);
		kobject_put(kobj);
	}
	mutex_unlock(&hook_lock);
}

static void rxe_detach(void)
{
	mutex_lock(&hook_lock);
	if (rxe_on) {
		drops_off();
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
	if (state == MODULE_STATE_LIVE) {
		mutex_lock(&hook_lock);
		rxe_attach(mod);
		mutex_unlock(&hook_lock);
	} else if (state == MODULE_STATE_GOING) {
		rxe_detach();
	}
	return NOTIFY_DONE;
}

static struct notifier_block module_nb = {
	.notifier_call = module_event,
};

/* The modifies the modify probes missed: their PSNs went unseen. */
u64 ft_hook_modify_missed(void)
{
	return READ_ONCE(probes[0].nmissed) + READ_ONCE(probes[0].kp.nmissed) +
	       READ_ONCE(probes[1].nmissed) + READ_ONCE(probes[1].kp.nmissed);
}

u64 ft_hook_missed(void)
{
	u64 missed = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		missed += READ_ONCE(probes[i].nmissed) +
			  READ_ONCE(probes[i].kp.nmissed);
	return missed;
}

int ft_hook_init(void)
{
	unsigned int i;
	int err;

	BUILD_BUG_ON(ARRAY_SIZE(probe_list) != ARRAY_SIZE(probes));
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		probes[i].data_size = ft_life_probe_data_size();
		probes[i].maxactive = max(16, 4 * (int)num_possible_cpus());
	}
	/*
	 * A modify's instance counts in its QP's psn_seq while it runs: the
	 * two modify probes' together must stay below the running count's
	 * limit (FT_PSN_SEQ_BUSY).  One missed is seen by hw.c, which
	 * counts no QP's PSNs across it.
	 */
	BUILD_BUG_ON(2 * FT_PSN_SEQ_MAX_RUNNING >= FT_PSN_SEQ_BUSY);
	probes[0].maxactive = min_t(int, probes[0].maxactive, FT_PSN_SEQ_MAX_RUNNING);
	probes[1].maxactive = min_t(int, probes[1].maxactive, FT_PSN_SEQ_MAX_RUNNING);
	/* a QP created while all are in use would go untracked for life */
	probes[2].maxactive = max(256, 32 * (int)num_possible_cpus());
	err = register_kretprobes(probe_list, ARRAY_SIZE(probe_list));
	if (err) {
		pr_err("cannot probe ib_modify_qp and rdma_restrack_add: %d\n", err);
		return err;
	}
	err = hooks_on(NULL);
	if (err)
		goto err_unregister_kretprobes;
	err = register_module_notifier(&module_nb);
	if (err)
		goto err_hooks_off;
	/* rdma_rxe may already be loaded; if not, module_event() attaches */
	rxe_attach_loaded();
	return 0;

err_hooks_off:
	hooks_off(false);
err_unregister_kretprobes:
	unregister_kretprobes(probe_list, ARRAY_SIZE(probe_list));
	return err;
}

void ft_hook_exit(void)
{
	unregister_module_notifier(&module_nb);
	rxe_detach();
	hooks_off(false);
	unregister_kretprobes(probe_list, ARRAY_SIZE(probe_list));
}
