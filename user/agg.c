// SPDX-License-Identifier: GPL-2.0
/* fabtrace export: QPs summed by group, exact and monotonic from run to run. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "prom.h"
#include "qpset.h"
#include "units.h"
#include "util.h"

#define STATE_MAGIC	"fabtrace-export-state"
#define STATE_VERSION	1
/* The overflow group's key: escaped labels always start with '=' */
#define OVERFLOW_KEY	"*"

const uint16_t agg_cong_attr[AGG_NCONG] = {
	FABTRACE_A_CONG_RX_ECT, FABTRACE_A_CONG_RX_CE, FABTRACE_A_CONG_RETRANSMITS,
	FABTRACE_A_CONG_TIMEOUTS, FABTRACE_A_CONG_RNR_TIMEOUTS, FABTRACE_A_CONG_RX_DUP,
	FABTRACE_A_CONG_RX_OOS, FABTRACE_A_CONG_RETRY_EXHAUSTED, FABTRACE_A_CONG_ERRORS,
};

const char *const agg_by_name[2] = { "owner", "cgroup" };

static const char *const label_names[2][AGG_MAX_LABELS] = {
	{ "peer", "prio", "comm" },
	{ "cgroup", NULL, NULL },
};

unsigned int agg_nlabels(enum agg_by by)
{
	return by == AGG_BY_OWNER ? 3 : 1;
}

const char *agg_label_name(enum agg_by by, unsigned int i)
{
	return label_names[by][i];
}

/* --- counters ------------------------------------------------------------- */

static void traffic(const struct ft_traffic *t, uint64_t *c)
{
	unsigned int i;

	for (i = FABTRACE_A_TRAFFIC_PACKETS; i <= FABTRACE_A_TRAFFIC_OTHER; i++)
		c[i - 1] = t->v[i];
}

void agg_qp_counters(const struct ft_qp_rec *r, uint64_t c[AGG_NCTR])
{
	unsigned int i;

	traffic(&r->tx, c + AGG_TX);
	traffic(&r->rx, c + AGG_RX);
	for (i = 0; i < AGG_NCONG; i++)
		c[AGG_CONG + i] = r->cong.v[agg_cong_attr[i]];
	for (i = FABTRACE_A_NAK_PSN_SEQ; i <= FABTRACE_A_NAK_OTHER; i++) {
		c[AGG_TX_NAK + i - 1] = r->cong.tx_nak.v[i];
		c[AGG_RX_NAK + i - 1] = r->cong.rx_nak.v[i];
	}
}

uint64_t agg_qp_have(const struct ft_qp_rec *r)
{
	uint64_t have = 0;
	unsigned int i;

	_Static_assert(AGG_NCTR <= 64, "a counter a bit");
	if (!r->hw.present)
		return (1ull << AGG_NCTR) - 1;
	for (i = 0; i < AGG_NCONG; i++)
		if (r->cong.have & (1u << agg_cong_attr[i]))
			have |= 1ull << (AGG_CONG + i);
	for (i = FABTRACE_A_NAK_PSN_SEQ; i <= FABTRACE_A_NAK_OTHER; i++) {
		if (r->cong.tx_nak.have & (1u << i))
			have |= 1ull << (AGG_TX_NAK + i - 1);
		if (r->cong.rx_nak.have & (1u << i))
			have |= 1ull << (AGG_RX_NAK + i - 1);
	}
	return have;
}

void agg_dev_counters(const struct ft_dev_rec *d, uint64_t c[AGG_NTRAFFIC])
{
	traffic(&d->tx, c + AGG_TX);
	traffic(&d->rx, c + AGG_RX);
}

uint64_t agg_qp_score(const struct ft_qp_rec *r)
{
	return r->cong.v[FABTRACE_A_CONG_RX_CE] + ft_qp_cnp(r) + ft_qp_nak(r) +
	       r->cong.v[FABTRACE_A_CONG_RETRANSMITS] + r->cong.v[FABTRACE_A_CONG_TIMEOUTS] +
	       r->cong.v[FABTRACE_A_CONG_RNR_TIMEOUTS];
}

/* --- escaping for keys and the state file ----------------------------------- */

static const char hexd[] = "0123456789abcdef";

/* "=" and @s with blanks, controls, '%' and bytes >= 0x80 as %xx. */
static char *esc(const char *s)
{
	char *out = xmalloc(3 * strlen(s) + 2), *o = out;
	const unsigned char *p = (const unsigned char *)s;

	*o++ = '=';
	for (; *p; p++) {
		if (*p <= ' ' || *p == '%' || *p >= 0x7f) {
			*o++ = '%';
			*o++ = hexd[*p >> 4];
			*o++ = hexd[*p & 15];
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

static int hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* esc() undone, in place; -1 if @s is not one of its results. */
static int unesc(char *s)
{
	char *o = s;
	int h, l;

	if (*s++ != '=')
		return -1;
	while (*s) {
		if (*s != '%') {
			*o++ = *s++;
			continue;
		}
		h = hexv(s[1]);
		l = h < 0 ? -1 : hexv(s[2]);
		if (l < 0 || (h == 0 && l == 0))
			return -1;
		*o++ = (char)(h << 4 | l);
		s += 3;
	}
	*o = '\0';
	return 0;
}

/* --- hash tables ------------------------------------------------------------ */

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static uint64_t pin_hash(uint32_t dev, uint32_t qpn)
{
	return mix((uint64_t)dev << 32 | qpn);
}

static uint64_t group_hash(uint32_t dev, const char *key)
{
	uint64_t h = 0xcbf29ce484222325ull ^ dev;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 0x100000001b3ull;
	return mix(h);
}

static size_t slots_for(size_t n)
{
	size_t s = 64;

	while (s < 2 * n + 1)
		s <<= 1;
	return s;
}

static void pins_rehash(struct agg *a)
{
	size_t i, j;

	free(a->pslot);
	a->npslot = slots_for(a->npins);
	a->pslot = xcalloc(a->npslot, sizeof(*a->pslot));
	for (i = 0; i < a->npins; i++) {
		j = pin_hash(a->pins[i].dev_index, a->pins[i].qpn) & (a->npslot - 1);
		while (a->pslot[j])
			j = (j + 1) & (a->npslot - 1);
		a->pslot[j] = i + 1;
	}
}

static void groups_rehash(struct agg *a)
{
	size_t i, j;

	free(a->gslot);
	a->ngslot = slots_for(a->ngroups);
	a->gslot = xcalloc(a->ngslot, sizeof(*a->gslot));
	for (i = 0; i < a->ngroups; i++) {
		j = group_hash(a->groups[i]->dev_index, a->groups[i]->key) & (a->ngslot - 1);
		while (a->gslot[j])
			j = (j + 1) & (a->ngslot - 1);
		a->gslot[j] = i + 1;
	}
}

/* The pin of a QP: same device and number, creation time within the slack. */
static struct agg_pin *pin_find(const struct agg *a, uint32_t dev, uint32_t qpn,
				uint64_t ctime)
{
	size_t j = pin_hash(dev, qpn) & (a->npslot - 1);
	struct agg_pin *p;

	for (; a->pslot[j]; j = (j + 1) & (a->npslot - 1)) {
		p = &a->pins[a->pslot[j] - 1];
		if (p->dev_index == dev && p->qpn == qpn &&
		    (p->ctime > ctime ? p->ctime - ctime : ctime - p->ctime) <= FT_CTIME_SLACK_NS)
			return p;
	}
	return NULL;
}

static struct agg_pin *pin_add(struct agg *a, uint32_t dev, uint32_t qpn, uint64_t ctime)
{
	struct agg_pin *p;

	if (a->npins == a->pincap) {
		a->pincap = a->pincap ? 2 * a->pincap : 1024;
		a->pins = xrealloc(a->pins, a->pincap * sizeof(*a->pins));
	}
	p = &a->pins[a->npins++];
	memset(p, 0, sizeof(*p));
	p->dev_index = dev;
	p->qpn = qpn;
	p->ctime = ctime;
	if (2 * a->npins + 1 > a->npslot) {
		pins_rehash(a);
	} else {
		size_t j = pin_hash(dev, qpn) & (a->npslot - 1);

		while (a->pslot[j])
			j = (j + 1) & (a->npslot - 1);
		a->pslot[j] = a->npins;
	}
	return p;
}

static struct agg_group *group_find(const struct agg *a, uint32_t dev, const char *key)
{
	size_t j = group_hash(dev, key) & (a->ngslot - 1);
	struct agg_group *g;

	for (; a->gslot[j]; j = (j + 1) & (a->ngslot - 1)) {
		g = a->groups[a->gslot[j] - 1];
		if (g->dev_index == dev && !strcmp(g->key, key))
			return g;
	}
	return NULL;
}

/* A group of @dev with @key (taken) and @labels (copied). */
static struct agg_group *group_add(struct agg *a, uint32_t dev, char *key,
				   char *const *labels, uint32_t id)
{
	struct agg_group *g = xcalloc(1, sizeof(*g));
	unsigned int i;

	g->id = id ? id : ++a->next_id;
	if (g->id > a->next_id)
		a->next_id = g->id;
	g->dev_index = dev;
	g->key = key;
	g->overflow = !strcmp(key, OVERFLOW_KEY);
	for (i = 0; labels && i < agg_nlabels(a->by); i++)
		g->label[i] = xstrdup(labels[i] ? labels[i] : "");
	a->groups = xrealloc(a->groups, (a->ngroups + 1) * sizeof(*a->groups));
	a->groups[a->ngroups++] = g;
	if (2 * a->ngroups + 1 > a->ngslot) {
		groups_rehash(a);
	} else {
		size_t j = group_hash(dev, key) & (a->ngslot - 1);

		while (a->gslot[j])
			j = (j + 1) & (a->ngslot - 1);
		a->gslot[j] = a->ngroups;
	}
	return g;
}

static void group_free(struct agg_group *g)
{
	unsigned int i;

	for (i = 0; i < AGG_MAX_LABELS; i++)
		free(g->label[i]);
	free(g->key);
	free(g);
}

/* --- life cycle ------------------------------------------------------------- */

void agg_init(struct agg *a, enum agg_by by, uint32_t max_groups)
{
	memset(a, 0, sizeof(*a));
	a->by = by;
	a->max_groups = max_groups;
	pins_rehash(a);
	groups_rehash(a);
}

void agg_free(struct agg *a)
{
	size_t i;

	for (i = 0; i < a->ngroups; i++)
		group_free(a->groups[i]);
	free(a->groups);
	free(a->devs);
	free(a->pins);
	free(a->pslot);
	free(a->gslot);
	memset(a, 0, sizeof(*a));
}

static struct agg_dev *dev_find(const struct agg *a, uint32_t index)
{
	size_t i;

	for (i = 0; i < a->ndevs; i++)
		if (a->devs[i].index == index)
			return &a->devs[i];
	return NULL;
}

static struct agg_dev *dev_add(struct agg *a, uint32_t index)
{
	struct agg_dev *d;

	a->devs = xrealloc(a->devs, (a->ndevs + 1) * sizeof(*a->devs));
	d = &a->devs[a->ndevs++];
	memset(d, 0, sizeof(*d));
	d->index = index;
	return d;
}

/* --- state file ------------------------------------------------------------- */

/* The next blank-separated word of *@s, or NULL. */
static char *word(char **s)
{
	char *w = *s + strspn(*s, " ");
	char *e;

	if (!*w)
		return NULL;
	e = w + strcspn(w, " ");
	if (*e)
		*e++ = '\0';
	*s = e;
	return w;
}

static bool num(char **s, uint64_t *v)
{
	char *w = word(s), *end;

	if (!w || *w < '0' || *w > '9')
		return false;
	errno = 0;
	*v = strtoull(w, &end, 10);
	return !errno && !*end;
}

static bool nums(char **s, uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!num(s, &v[i]))
			return false;
	return true;
}

static bool u32(char **s, uint32_t *v)
{
	uint64_t x;

	if (!num(s, &x) || x > UINT32_MAX)
		return false;
	*v = x;
	return true;
}

static struct agg_group *group_by_id(const struct agg *a, uint32_t id)
{
	size_t i;

	for (i = 0; i < a->ngroups; i++)
		if (a->groups[i]->id == id)
			return a->groups[i];
	return NULL;
}

/* One line of the state; false if it is not well-formed. */
static bool load_line(struct agg *a, char *s, bool *end, bool *stale)
{
	char *kw = word(&s), *w, *key, *labels[AGG_MAX_LABELS] = { NULL };
	struct agg_group *g;
	struct agg_dev *d;
	struct agg_pin *p;
	uint32_t dev, qpn, id, flags, overflow, i;
	uint64_t v, ctime, score;

	if (!kw)
		return false;
	if (!strcmp(kw, "load_time")) {
		if (!num(&s, &v))
			return false;
		*stale = v != a->load_time;
	} else if (*stale) {
		/* another load of the module: the rest does not apply */
		*end = !strcmp(kw, "end");
		return true;
	} else if (!strcmp(kw, "by")) {
		w = word(&s);
		if (!w || strcmp(w, agg_by_name[a->by])) {
			ft_err("export: the state was kept \"by %s\", not \"by %s\": give another state file",
			       w ? w : "?", agg_by_name[a->by]);
			*end = true;
			return false;
		}
	} else if (!strcmp(kw, "dev")) {
		w = NULL;
		if (!u32(&s, &dev) || dev_find(a, dev) || !(w = word(&s)) || unesc(w) ||
		    strlen(w) >= FT_NAME_LEN)
			return false;
		d = dev_add(a, dev);
		strcpy(d->name, w);
		if (!nums(&s, d->other_last, AGG_NTRAFFIC) || !nums(&s, d->released, AGG_NCTR))
			return false;
	} else if (!strcmp(kw, "group")) {
		if (!u32(&s, &id) || !id || group_by_id(a, id) || !u32(&s, &dev) ||
		    !dev_find(a, dev) || !u32(&s, &overflow) || overflow > 1 ||
		    !num(&s, &v))
			return false;
		if (overflow) {
			key = xstrdup(OVERFLOW_KEY);
		} else {
			size_t len = 0;

			for (i = 0; i < agg_nlabels(a->by); i++) {
				w = word(&s);
				if (!w)
					return false;
				labels[i] = w;
				len += strlen(w) + 1;
			}
			key = xmalloc(len + 1);
			key[0] = '\0';
			for (i = 0; i < agg_nlabels(a->by); i++) {
				strcat(key, i ? " " : "");
				strcat(key, labels[i]);
			}
			for (i = 0; i < agg_nlabels(a->by); i++)
				if (unesc(labels[i])) {
					free(key);
					return false;
				}
		}
		if (group_find(a, dev, key)) {
			free(key);
			return false;
		}
		g = group_add(a, dev, key, overflow ? NULL : labels, id);
		g->cgroup_id = v;
		if (!nums(&s, g->folded, AGG_NCTR) || !nums(&s, g->last, AGG_NCTR))
			return false;
	} else if (!strcmp(kw, "qp")) {
		if (!u32(&s, &dev) || !u32(&s, &qpn) || !num(&s, &ctime) || !u32(&s, &id) ||
		    !u32(&s, &flags) || !num(&s, &score))
			return false;
		g = group_by_id(a, id);
		if (!g || g->dev_index != dev || pin_find(a, dev, qpn, ctime))
			return false;
		p = pin_add(a, dev, qpn, ctime);
		p->g = g;
		p->flags = flags & (AGG_PIN_FOLDED | AGG_PIN_ZERO | AGG_PIN_MOVED);
		p->score = score;
	} else if (!strcmp(kw, "end")) {
		*end = true;
	} else {
		return false;
	}
	return !word(&s);
}

int agg_load(struct agg *a, FILE *fp, const char *name, uint64_t load_time)
{
	bool end = false, stale = true;
	char *line = NULL;
	size_t cap = 0;
	unsigned long n = 0;
	ssize_t len;
	int ver = 0;

	a->load_time = load_time;
	while (!end && (len = getline(&line, &cap, fp)) >= 0) {
		n++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (n == 1) {
			if (sscanf(line, STATE_MAGIC " %d", &ver) != 1 || ver != STATE_VERSION) {
				ver = ver ? ver : -1;
				break;
			}
			continue;
		}
		if (!load_line(a, line, &end, &stale)) {
			if (!end)
				ft_err("export: state %s, line %lu: not understood (remove the file to start over)",
				       name, n);
			free(line);
			return -1;
		}
	}
	free(line);
	if (ferror(fp)) {
		ft_err("export: cannot read the state %s: %s", name, strerror(errno));
		return -1;
	}
	if (n && ver != STATE_VERSION) {
		ft_err("export: %s is not a fabtrace export state%s", name,
		       ver > 0 ? " of this version" : "");
		return -1;
	}
	if (n && !end) {
		ft_err("export: state %s is cut short (remove the file to start over)", name);
		return -1;
	}
	if (stale) {
		/* the module was loaded again since: its counters started over */
		agg_free(a);
		agg_init(a, a->by, a->max_groups);
		a->load_time = load_time;
		return 0;
	}
	return 0;
}

static void put_nums(FILE *fp, const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(fp, " %" PRIu64, v[i]);
}

int agg_save(const struct agg *a, FILE *fp)
{
	const struct agg_group *g;
	const struct agg_pin *p;
	size_t i;
	char *e;

	fprintf(fp, STATE_MAGIC " %d\nload_time %" PRIu64 "\nby %s\n", STATE_VERSION,
		a->load_time, agg_by_name[a->by]);
	for (i = 0; i < a->ndevs; i++) {
		e = esc(a->devs[i].name);
		fprintf(fp, "dev %u %s", a->devs[i].index, e);
		free(e);
		put_nums(fp, a->devs[i].other_last, AGG_NTRAFFIC);
		put_nums(fp, a->devs[i].released, AGG_NCTR);
		fputc('\n', fp);
	}
	for (i = 0; i < a->ngroups; i++) {
		g = a->groups[i];
		fprintf(fp, "group %u %u %d %" PRIu64 "%s%s", g->id, g->dev_index, g->overflow,
			g->cgroup_id, g->overflow ? "" : " ", g->overflow ? "" : g->key);
		put_nums(fp, g->folded, AGG_NCTR);
		put_nums(fp, g->last, AGG_NCTR);
		fputc('\n', fp);
	}
	for (i = 0; i < a->npins; i++) {
		p = &a->pins[i];
		if (!(p->flags & (AGG_PIN_FOLDED | AGG_PIN_MOVED)) && !p->score)
			continue;	/* the next run finds its group by its labels */
		fprintf(fp, "qp %u %u %" PRIu64 " %u %u %" PRIu64 "\n", p->dev_index, p->qpn,
			p->ctime, p->g->id, p->flags, p->score);
	}
	fputs("end\n", fp);
	return ferror(fp) ? -1 : 0;
}

/* --- a run ------------------------------------------------------------------ */

void agg_run_reset(struct agg *a, bool devs)
{
	struct agg_group *g;
	size_t i, n;

	for (i = n = 0; i < a->npins; i++) {
		if (!a->pins[i].g)
			continue;	/* new in the run: gone with it */
		a->pins[n] = a->pins[i];
		a->pins[n].seen = false;
		a->pins[n].sg = NULL;
		n++;
	}
	a->npins = n;
	pins_rehash(a);
	for (i = n = 0; i < a->ngroups; i++) {
		g = a->groups[i];
		if (g->created) {
			group_free(g);
			continue;
		}
		memset(g->fold, 0, sizeof(g->fold));
		memset(g->live, 0, sizeof(g->live));
		g->present = g->live_qps = g->in_error = 0;
		a->groups[n++] = g;
	}
	a->ngroups = n;
	groups_rehash(a);
	for (i = 0; i < a->ndevs; i++) {
		memset(a->devs[i].by_source, 0, sizeof(a->devs[i].by_source));
		/* a device's have stays: its QPs are read again */
		if (devs)
			a->devs[i].seen = false;
	}
}

void agg_dev(struct agg *a, const struct ft_dev_rec *r)
{
	struct agg_dev *d = dev_find(a, r->index);

	if (!d)
		d = dev_add(a, r->index);
	snprintf(d->name, sizeof(d->name), "%s", r->name);
	d->seen = true;
	d->hw = r->hw.present;
	d->have = d->hw ? 0 : (1ull << AGG_NCTR) - 1;
	agg_dev_counters(r, d->d);
}

/* Named (not overflow) groups of @dev in the state and the run. */
static uint32_t dev_groups(const struct agg *a, uint32_t dev)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < a->ngroups; i++)
		n += a->groups[i]->dev_index == dev && !a->groups[i]->overflow;
	return n;
}

/* By cgroup: the path a cgroup id was last seen with, from its group. */
static const struct agg_group *group_of_cgroup(const struct agg *a, uint32_t dev,
					       uint64_t id)
{
	size_t i;

	for (i = 0; i < a->ngroups; i++)
		if (a->groups[i]->dev_index == dev && a->groups[i]->cgroup_id == id &&
		    !a->groups[i]->overflow)
			return a->groups[i];
	return NULL;
}

/* The clean labels of @r into @buf, pointers in @l. */
static void qp_labels(const struct agg *a, const struct ft_qp_rec *r, char *l[],
		      char buf[][PROM_CLEAN_SIZE(FT_CGROUP_LEN)])
{
	const struct agg_group *g;
	char tmp[FT_FMT_LEN];

	if (a->by == AGG_BY_OWNER) {
		prom_clean(buf[0], sizeof(buf[0]), (r->have & FT_QP_HAVE_PEER) ?
			   fmt_gid(tmp, sizeof(tmp), r->peer) : "none");
		if (r->have & FT_QP_HAVE_PFC)
			snprintf(buf[1], sizeof(buf[1]), "%u", r->prio);
		else
			snprintf(buf[1], sizeof(buf[1]), "none");
		prom_clean(buf[2], sizeof(buf[2]), r->comm);
	} else if (r->have & FT_QP_HAVE_CGROUP) {
		prom_clean(buf[0], sizeof(buf[0]), r->cgroup);
	} else if (r->have & FT_QP_HAVE_CGROUP_ID) {
		g = group_of_cgroup(a, r->dev_index, r->cgroup_id);
		if (g)
			snprintf(buf[0], sizeof(buf[0]), "%s", g->label[0]);
		else
			snprintf(buf[0], sizeof(buf[0]), "id:%" PRIu64, r->cgroup_id);
	} else {
		snprintf(buf[0], sizeof(buf[0]), "kernel");
	}
	l[0] = buf[0];
	l[1] = buf[1];
	l[2] = buf[2];
}

/* The escaped labels joined: the group key. */
static char *make_key(const struct agg *a, char *const *l)
{
	char *e[AGG_MAX_LABELS], *key;
	size_t len = 1;
	unsigned int i;

	for (i = 0; i < agg_nlabels(a->by); i++) {
		e[i] = esc(l[i]);
		len += strlen(e[i]) + 1;
	}
	key = xmalloc(len);
	key[0] = '\0';
	for (i = 0; i < agg_nlabels(a->by); i++) {
		strcat(key, i ? " " : "");
		strcat(key, e[i]);
		free(e[i]);
	}
	return key;
}

/* The group of @key on @dev: found, new, or the overflow group. */
static struct agg_group *group_get(struct agg *a, uint32_t dev, char *key, char *const *l)
{
	struct agg_group *g = group_find(a, dev, key);

	if (g) {
		free(key);
		return g;
	}
	if (dev_groups(a, dev) >= a->max_groups) {
		free(key);
		g = group_find(a, dev, OVERFLOW_KEY);
		if (g)
			return g;
		key = xstrdup(OVERFLOW_KEY);
		l = NULL;
	}
	g = group_add(a, dev, key, l, 0);
	g->created = true;
	return g;
}

static bool all_zero(const uint64_t *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i])
			return false;
	return true;
}

const struct agg_group *agg_qp(struct agg *a, const struct ft_qp_rec *r, uint64_t *delta)
{
	static char buf[AGG_MAX_LABELS][PROM_CLEAN_SIZE(FT_CGROUP_LEN)];
	struct agg_dev *d = dev_find(a, r->dev_index);
	char *l[AGG_MAX_LABELS];
	uint64_t c[AGG_NCTR], score = agg_qp_score(r);
	struct agg_group *g;
	struct agg_pin *p;
	char *key, *lkey;
	size_t i;

	if (!d || !d->seen)
		return NULL;
	p = pin_find(a, r->dev_index, r->qpn, r->create_time);
	if (p && p->seen)
		return NULL;	/* the dump brought it twice */
	qp_labels(a, r, l, buf);
	key = make_key(a, l);
	lkey = xstrdup(key);
	if (!p) {
		p = pin_add(a, r->dev_index, r->qpn, r->create_time);
		g = group_get(a, r->dev_index, key, l);
		*delta = score;
	} else {
		g = p->g;
		/* a QP that has counted nothing yet may move: its peer came */
		if ((p->flags & AGG_PIN_ZERO) && strcmp(g->key, key) && !g->overflow)
			g = group_get(a, r->dev_index, key, l);
		else
			free(key);
		*delta = score >= p->score ? score - p->score : score;
	}
	p->ctime = r->create_time;	/* it drifts: stay close */
	p->seen = true;
	p->sg = g;
	p->sscore = score;
	p->sflags = p->flags & AGG_PIN_FOLDED;
	if (strcmp(g->key, lkey))
		p->sflags |= AGG_PIN_MOVED;
	free(lkey);
	if (a->by == AGG_BY_CGROUP && (r->have & FT_QP_HAVE_CGROUP) && !g->overflow)
		g->cgroup_id = r->cgroup_id;
	agg_qp_counters(r, c);
	d->have |= agg_qp_have(r);
	g->present++;
	if (r->flags & FABTRACE_QP_FLAGS_DESTROYED) {
		if (!(p->sflags & AGG_PIN_FOLDED)) {
			for (i = 0; i < AGG_NCTR; i++)
				g->fold[i] += c[i];
			p->sflags |= AGG_PIN_FOLDED;
		}
	} else {
		for (i = 0; i < AGG_NCTR; i++)
			g->live[i] += c[i];
		g->live_qps++;
		if (ft_qp_source(r) < AGG_NSOURCES)
			d->by_source[ft_qp_source(r)]++;
		g->in_error += r->state == FABTRACE_QP_STATE_ERR;
		if (all_zero(c, AGG_NCTR))
			p->sflags |= AGG_PIN_ZERO;
	}
	return g;
}

/* The group's value: folded + this run, never below what was exported. */
static void group_close(struct agg_group *g)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < AGG_NCTR; i++) {
		g->folded[i] += g->fold[i];
		v = g->folded[i] + g->live[i];
		if (v < g->last[i]) {
			/* lost without a fold (reset, forgotten): keep it */
			g->folded[i] += g->last[i] - v;
			v = g->last[i];
		}
		g->value[i] = g->last[i] = v;
		g->fold[i] = 0;
	}
	g->created = false;
}

void agg_end(struct agg *a, bool partial)
{
	uint64_t named[AGG_NCTR];
	struct agg_group *g;
	struct agg_dev *d;
	size_t i, j, k, n;
	uint64_t rem;

	/* groups: values; those without a QP go, their congestion to "other" */
	for (i = n = 0; i < a->ngroups; i++) {
		g = a->groups[i];
		d = dev_find(a, g->dev_index);
		if (!d || !d->seen) {
			if (!partial)
				goto drop;
			a->groups[n++] = g;
			continue;
		}
		group_close(g);
		if (!g->present && !g->overflow) {
			for (j = 0; j < AGG_NCTR; j++)
				d->released[j] += g->value[j];
			goto drop;
		}
		a->groups[n++] = g;
		continue;
drop:
		group_free(g);
	}
	a->ngroups = n;
	groups_rehash(a);

	/* devices: other = totals - named groups, never below the last one */
	for (i = n = 0; i < a->ndevs; i++) {
		d = &a->devs[i];
		if (!d->seen) {
			if (partial)
				a->devs[n++] = *d;
			continue;
		}
		memset(named, 0, sizeof(named));
		memset(d->other, 0, sizeof(d->other));
		d->groups = d->overflow_qps = 0;
		for (j = 0; j < a->ngroups; j++) {
			g = a->groups[j];
			if (g->dev_index != d->index)
				continue;
			if (g->overflow) {
				d->overflow_qps = g->present;
				for (k = AGG_NTRAFFIC; k < AGG_NCTR; k++)
					d->other[k] += g->value[k];
				continue;
			}
			d->groups++;
			for (k = 0; k < AGG_NCTR; k++)
				named[k] += g->value[k];
		}
		for (j = 0; j < AGG_NTRAFFIC; j++) {
			rem = d->d[j] > named[j] ? d->d[j] - named[j] : 0;
			d->other[j] = rem > d->other_last[j] ? rem : d->other_last[j];
			d->other_last[j] = d->other[j];
			d->total[j] = named[j] + d->other[j];
		}
		for (j = AGG_NTRAFFIC; j < AGG_NCTR; j++)
			d->other[j] += d->released[j];
		a->devs[n++] = *d;
	}
	a->ndevs = n;

	/* QPs: what this run saw stays, with what it learnt */
	for (i = n = 0; i < a->npins; i++) {
		struct agg_pin *p = &a->pins[i];

		d = dev_find(a, p->dev_index);
		if (!p->seen) {
			if (!d || d->seen || !partial)
				continue;
		} else {
			p->g = p->sg;
			p->flags = p->sflags;
			p->score = p->sscore;
			p->seen = false;
			p->sg = NULL;
		}
		a->pins[n++] = *p;
	}
	a->npins = n;
	pins_rehash(a);
}
