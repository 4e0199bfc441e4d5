// SPDX-License-Identifier: GPL-2.0
/* =~ and matched(): a Pike VM over per-CPU thread lists, no backtracking. */
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "internal.h"
#include "regex.h"

/*
 * The VM runs every thread in lock step over the subject, one list entry
 * per instruction at most, so a match costs O(length * instructions) with
 * no allocation: everything below is sized at init for the largest program.
 */
struct xtap_re_thread {
	u32 pc;
	s32 *caps;
};

struct xtap_re_frame {
	u32 pc;
	s32 slot; /* >= 0: restore caps[slot] = val when popped */
	s32 val;
};

struct xtap_re_work {
	struct xtap_re_thread *list[2];
	s32 *caps[2]; /* ninst * nsave slots per list */
	u32 *mark; /* per instruction: generation it was added in */
	u32 gen;
	struct xtap_re_frame *stack;
	s32 *cur; /* captures of the thread being followed */
	s32 *best;
	/* the last =~ on this CPU, for matched() */
	bool matched;
	u64 run; /* the handler run it belongs to */
	u32 nsave;
	s32 *caps_last;
	char *subject; /* copy of the string it matched */
};

static struct xtap_re_prog **xtap_re_progs;
static u16 xtap_nre;
static u32 xtap_re_max_inst, xtap_re_max_save;
static struct xtap_re_work *__percpu *xtap_re_work;

struct xtap_re_list {
	struct xtap_re_thread *t;
	s32 *caps;
	u32 n;
	u32 gen;
};

/* Follow the empty transitions from pc; append the threads that consume. */
static void xtap_re_add(struct xtap_re_work *w, const struct xtap_re_prog *prog,
			struct xtap_re_list *l, u32 pc0, u32 pos, u32 len)
{
	struct xtap_re_frame *sp = w->stack;
	u32 nsave = prog->nsave;

	sp->pc = pc0;
	sp->slot = -1;
	sp++;
	while (sp > w->stack) {
		const struct xtap_re_inst *in;
		u32 pc;

		sp--;
		if (sp->slot >= 0) {
			w->cur[sp->slot] = sp->val;
			continue;
		}
		pc = sp->pc;
		if (w->mark[pc] == l->gen)
			continue;
		w->mark[pc] = l->gen;
		in = &prog->inst[pc];
		switch (in->op) {
		case XTAP_RE_JMP:
			sp->pc = in->x;
			sp->slot = -1;
			sp++;
			break;
		case XTAP_RE_SPLIT:
			sp->pc = in->y;
			sp->slot = -1;
			sp++;
			sp->pc = in->x;
			sp->slot = -1;
			sp++;
			break;
		case XTAP_RE_SAVE:
			sp->slot = in->x;
			sp->val = w->cur[in->x];
			sp++;
			w->cur[in->x] = pos;
			sp->pc = pc + 1;
			sp->slot = -1;
			sp++;
			break;
		case XTAP_RE_BOL:
			if (pos == 0) {
				sp->pc = pc + 1;
				sp->slot = -1;
				sp++;
			}
			break;
		case XTAP_RE_EOL:
			if (pos == len) {
				sp->pc = pc + 1;
				sp->slot = -1;
				sp++;
			}
			break;
		default:
			l->t[l->n].pc = pc;
			l->t[l->n].caps = l->caps + (size_t)l->n * nsave;
			memcpy(l->t[l->n].caps, w->cur, nsave * sizeof(s32));
			l->n++;
			break;
		}
	}
}

static u32 xtap_re_next_gen(struct xtap_re_work *w)
{
	if (unlikely(++w->gen == 0)) {
		memset(w->mark, 0, xtap_re_max_inst * sizeof(u32));
		w->gen = 1;
	}
	return w->gen;
}

/*
 * POSIX leftmost-longest: the earliest start wins, then the longest end.
 * Threads from earlier starts come first in the lists, so when two reach
 * the same instruction the earlier start keeps it.
 */
static bool xtap_re_run(struct xtap_re_work *w, const struct xtap_re_prog *prog,
			const char *s, u32 len)
{
	struct xtap_re_list cl = { w->list[0], w->caps[0], 0, 0 };
	struct xtap_re_list nl = { w->list[1], w->caps[1], 0, 0 };
	u32 nsave = prog->nsave, pos, i;
	bool found = false;

	cl.gen = xtap_re_next_gen(w);
	for (pos = 0; pos <= len; pos++) {
		if (!found) {
			memset(w->cur, 0xff, nsave * sizeof(s32));
			xtap_re_add(w, prog, &cl, 0, pos, len);
		}
		if (!cl.n) {
			if (found)
				break;
			cl.gen = xtap_re_next_gen(
				w); /* forget this start's marks */
			continue;
		}
		nl.n = 0;
		nl.gen = xtap_re_next_gen(w);
		for (i = 0; i < cl.n; i++) {
			const struct xtap_re_thread *t = &cl.t[i];
			const struct xtap_re_inst *in = &prog->inst[t->pc];
			unsigned char ch = pos < len ? s[pos] : 0;
			bool step;

			if (found && t->caps[0] > w->best[0])
				continue; /* starts too late to win */
			switch (in->op) {
			case XTAP_RE_MATCH:
				if (!found || t->caps[0] < w->best[0] ||
				    (t->caps[0] == w->best[0] &&
				     t->caps[1] > w->best[1]))
					memcpy(w->best, t->caps,
					       nsave * sizeof(s32));
				found = true;
				continue;
			case XTAP_RE_CHAR:
				step = pos < len && ch == in->c;
				break;
			case XTAP_RE_ANY:
				step = pos < len;
				break;
			case XTAP_RE_CLASS:
				step = pos < len &&
				       test_bit(ch, prog->classes[in->x]);
				break;
			default:
				step = false;
				break;
			}
			if (step) {
				memcpy(w->cur, t->caps, nsave * sizeof(s32));
				xtap_re_add(w, prog, &nl, t->pc + 1, pos + 1,
					    len);
			}
		}
		swap(cl, nl);
	}
	return found;
}

int xtap_regex_match(struct xtap_context *c, u16 idx, const char *s)
{
	struct xtap_cpu_ctx *cc = container_of(c, struct xtap_cpu_ctx, c);
	const struct xtap_re_prog *prog;
	struct xtap_re_work *w;
	u32 len;

	if (unlikely(idx >= xtap_nre || !xtap_re_progs[idx])) {
		xtap_error(c, "regular expression %u does not exist", idx);
		return 0;
	}
	prog = xtap_re_progs[idx];
	w = *this_cpu_ptr(xtap_re_work);
	s = s ?: "";
	len = strnlen(s, xtap_sess.limits.maxstringlen - 1);
	w->run = cc->hits;
	w->matched = xtap_re_run(w, prog, s, len);
	if (w->matched) {
		w->nsave = prog->nsave;
		memcpy(w->caps_last, w->best, prog->nsave * sizeof(s32));
		memcpy(w->subject, s, len);
		w->subject[len] = '\0';
	}
	return w->matched;
}

char *xtap_regex_matched(struct xtap_context *c, char *dst, s64 n)
{
	struct xtap_cpu_ctx *cc = container_of(c, struct xtap_cpu_ctx, c);
	struct xtap_re_work *w;
	s32 start, end;

	dst[0] = '\0';
	if (!xtap_re_work) {
		xtap_error(
			c,
			"Attempted to get subexpression %lld from failed match",
			n);
		return dst;
	}
	w = *this_cpu_ptr(xtap_re_work);
	if (!w->matched || w->run != cc->hits) {
		xtap_error(
			c,
			"Attempted to get subexpression %lld from failed match",
			n);
		return dst;
	}
	if (n < 0 || 2 * n + 1 >= w->nsave) {
		xtap_error(c, "Attempted to get nonexistent subexpression %lld",
			   n);
		return dst;
	}
	start = w->caps_last[2 * n];
	end = w->caps_last[2 * n + 1];
	if (start < 0 || end < start)
		return dst; /* the group took no part in the match */
	memcpy(dst, w->subject + start, end - start);
	dst[end - start] = '\0';
	return dst;
}

s64 xtap_regex_ngroups(struct xtap_context *c)
{
	struct xtap_cpu_ctx *cc = container_of(c, struct xtap_cpu_ctx, c);
	struct xtap_re_work *w;

	w = xtap_re_work ? *this_cpu_ptr(xtap_re_work) : NULL;
	if (!w || !w->matched || w->run != cc->hits) {
		xtap_error(
			c,
			"Attempted to get subexpression count from failed match");
		return 0;
	}
	return w->nsave / 2;
}

static void xtap_re_work_free(struct xtap_re_work *w)
{
	if (!w)
		return;
	kvfree(w->list[0]);
	kvfree(w->list[1]);
	kvfree(w->caps[0]);
	kvfree(w->caps[1]);
	kvfree(w->mark);
	kvfree(w->stack);
	kfree(w->cur);
	kfree(w->best);
	kfree(w->caps_last);
	kfree(w->subject);
	kfree(w);
}

static struct xtap_re_work *xtap_re_work_alloc(int node)
{
	struct xtap_re_work *w = kzalloc_node(sizeof(*w), GFP_KERNEL, node);
	size_t ni = xtap_re_max_inst, ns = xtap_re_max_save;
	int i;

	if (!w)
		return NULL;
	for (i = 0; i < 2; i++) {
		w->list[i] = kvmalloc_node(ni * sizeof(*w->list[i]), GFP_KERNEL,
					   node);
		w->caps[i] =
			kvmalloc_node(ni * ns * sizeof(s32), GFP_KERNEL, node);
	}
	w->mark = kvzalloc_node(ni * sizeof(u32), GFP_KERNEL, node);
	w->stack = kvmalloc_node((2 * ni + 2) * sizeof(*w->stack), GFP_KERNEL,
				 node);
	w->cur = kmalloc_node(ns * sizeof(s32), GFP_KERNEL, node);
	w->best = kmalloc_node(ns * sizeof(s32), GFP_KERNEL, node);
	w->caps_last = kmalloc_node(ns * sizeof(s32), GFP_KERNEL, node);
	w->subject =
		kmalloc_node(xtap_sess.limits.maxstringlen, GFP_KERNEL, node);
	if (!w->list[0] || !w->list[1] || !w->caps[0] || !w->caps[1] ||
	    !w->mark || !w->stack || !w->cur || !w->best || !w->caps_last ||
	    !w->subject) {
		xtap_re_work_free(w);
		return NULL;
	}
	return w;
}

/* Process context: compile every literal, size the per-CPU work space. */
int xtap_regexes_create(const struct xtap_script *s)
{
	struct xtap_re_error err;
	int i, cpu;

	if (!s->nregexes)
		return 0;
	xtap_re_progs =
		kcalloc(s->nregexes, sizeof(*xtap_re_progs), GFP_KERNEL);
	if (!xtap_re_progs)
		return -ENOMEM;
	xtap_nre = s->nregexes;
	for (i = 0; i < s->nregexes; i++) {
		struct xtap_re_prog *prog =
			xtap_re_compile(s->regexes[i], &err);

		if (!prog) {
			xtap_init_error(
				"regular expression \"%.64s\"%s: %s at offset %zu",
				s->regexes[i],
				strlen(s->regexes[i]) > 64 ? "..." : "",
				err.msg, err.offset);
			continue;
		}
		xtap_re_progs[i] = prog;
		xtap_re_max_inst = max(xtap_re_max_inst, prog->ninst);
		xtap_re_max_save = max(xtap_re_max_save, prog->nsave);
	}
	if (!xtap_re_max_inst)
		return 0;
	xtap_re_work = alloc_percpu(struct xtap_re_work *);
	if (!xtap_re_work)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct xtap_re_work *w = xtap_re_work_alloc(cpu_to_node(cpu));

		if (!w)
			return -ENOMEM;
		*per_cpu_ptr(xtap_re_work, cpu) = w;
	}
	return 0;
}

void xtap_regexes_destroy(void)
{
	int i, cpu;

	if (xtap_re_work) {
		for_each_possible_cpu(cpu)
			xtap_re_work_free(*per_cpu_ptr(xtap_re_work, cpu));
		free_percpu(xtap_re_work);
		xtap_re_work = NULL;
	}
	for (i = 0; i < xtap_nre && xtap_re_progs; i++)
		xtap_re_free(xtap_re_progs[i]);
	kfree(xtap_re_progs);
	xtap_re_progs = NULL;
	xtap_nre = 0;
	xtap_re_max_inst = 0;
	xtap_re_max_save = 0;
}
