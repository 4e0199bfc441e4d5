// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX ERE (as stap accepts it) parsed to a tree, then to a Pike VM program.
 *
 * The translator runs this same file, compiled for user space
 * (translator/regex/), to check every pattern at pass 2: the messages are
 * worded for the script's author, and the offset of each error is where
 * pass 2 puts its caret.
 */
#include <linux/bitmap.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "regex.h"

enum xtap_re_node_type {
	XTAP_N_EMPTY,
	XTAP_N_CHAR,
	XTAP_N_ANY,
	XTAP_N_CLASS,
	XTAP_N_BOL,
	XTAP_N_EOL,
	XTAP_N_CAT,
	XTAP_N_ALT,
	XTAP_N_REPEAT,
	XTAP_N_GROUP,
};

/* CAT and ALT keep their operands as a sibling list, so no deep recursion. */
struct xtap_re_node {
	u8 type;
	u8 c;
	u32 cls;
	int group; /* capture index, or -1 */
	int min, max; /* REPEAT; max -1: unbounded */
	struct xtap_re_node *kid, *next;
};

struct xtap_re_parser {
	const char *src;
	size_t pos, len;
	struct xtap_re_node *nodes;
	u32 nnodes, maxnodes;
	unsigned long (*classes)[BITS_TO_LONGS(256)];
	u32 nclasses, maxclasses;
	int ngroups;
	int depth;
	struct xtap_re_error *err;
	bool failed;
	/* code generation */
	struct xtap_re_inst *inst;
	u32 ninst;
};

/* The first error wins: later ones follow from it. */
static __printf(3, 4) void xtap_re_fail_at(struct xtap_re_parser *p, size_t at,
					   const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	p->err->offset = at;
}

#define xtap_re_fail(p, ...) xtap_re_fail_at((p), (p)->pos, __VA_ARGS__)

static struct xtap_re_node *xtap_re_node(struct xtap_re_parser *p, u8 type)
{
	struct xtap_re_node *n;

	if (p->nnodes >= p->maxnodes) {
		xtap_re_fail(p, "regular expression too complex");
		return NULL;
	}
	n = &p->nodes[p->nnodes++];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->group = -1;
	return n;
}

static int xtap_re_peek(struct xtap_re_parser *p)
{
	return p->pos < p->len ? (unsigned char)p->src[p->pos] : -1;
}

static void xtap_re_set_range(unsigned long *set, int lo, int hi)
{
	for (; lo <= hi; lo++)
		__set_bit(lo, set);
}

/* The names xtap_re_named_class() knows, for the error that lists them. */
static const char xtap_re_class_names[] =
	"alpha, alnum, blank, cntrl, digit, d, xdigit, graph, print, lower, l, upper, u, space, s, punct";

/* The named classes stap knows, with its definitions. */
static bool xtap_re_named_class(unsigned long *set, const char *name, size_t n)
{
	static const char punct[] = "!\"#$%&'()*+,./:;<=>?@[\\]^_`{|}~-";
	const char *q;

#define XTAP_IS(s) (n == sizeof(s) - 1 && !memcmp(name, s, n))
	if (XTAP_IS("alpha") || XTAP_IS("alnum")) {
		xtap_re_set_range(set, 'A', 'Z');
		xtap_re_set_range(set, 'a', 'z');
		if (XTAP_IS("alnum"))
			xtap_re_set_range(set, '0', '9');
	} else if (XTAP_IS("blank")) {
		__set_bit(' ', set);
		__set_bit('\t', set);
	} else if (XTAP_IS("cntrl")) {
		xtap_re_set_range(set, 0x01, 0x1f);
		__set_bit(0x7f, set);
	} else if (XTAP_IS("digit") || XTAP_IS("d")) {
		xtap_re_set_range(set, '0', '9');
	} else if (XTAP_IS("xdigit")) {
		xtap_re_set_range(set, '0', '9');
		xtap_re_set_range(set, 'a', 'f');
		xtap_re_set_range(set, 'A', 'F');
	} else if (XTAP_IS("graph")) {
		xtap_re_set_range(set, 0x21, 0x7e);
	} else if (XTAP_IS("print")) {
		xtap_re_set_range(set, 0x20, 0x7e);
	} else if (XTAP_IS("lower") || XTAP_IS("l")) {
		xtap_re_set_range(set, 'a', 'z');
	} else if (XTAP_IS("upper") || XTAP_IS("u")) {
		xtap_re_set_range(set, 'A', 'Z');
	} else if (XTAP_IS("space") || XTAP_IS("s")) {
		for (q = " \t\r\n\v\f"; *q; q++)
			__set_bit(*q, set);
	} else if (XTAP_IS("punct")) {
		for (q = punct; *q; q++)
			__set_bit(*q, set);
	} else {
		return false;
	}
#undef XTAP_IS
	return true;
}

/* One item of a bracket expression: c, c-d, \c or [:name:]. */
static void xtap_re_bracket_item(struct xtap_re_parser *p, unsigned long *set,
				 size_t open)
{
	size_t at = p->pos;
	int lo = xtap_re_peek(p), hi;

	if (lo == '[' && p->pos + 1 < p->len && p->src[p->pos + 1] == ':') {
		size_t start = p->pos + 2, end = start;

		while (end + 1 < p->len &&
		       !(p->src[end] == ':' && p->src[end + 1] == ']'))
			end++;
		if (end + 1 >= p->len) {
			xtap_re_fail_at(
				p, at,
				"'[:' without its ':]' (a class is written '[[:alpha:]]')");
			return;
		}
		if (!xtap_re_named_class(set, p->src + start, end - start)) {
			xtap_re_fail_at(
				p, at,
				"unknown character class '[:%.*s:]' (known: %s)",
				(int)min_t(size_t, end - start, 32),
				p->src + start, xtap_re_class_names);
			return;
		}
		p->pos = end + 2;
		return;
	}
	if (lo == '\\') {
		p->pos++;
		if (p->pos >= p->len) {
			xtap_re_fail_at(p, open, "unterminated '['");
			return;
		}
		lo = (unsigned char)p->src[p->pos];
	}
	p->pos++;
	hi = lo;
	if (p->pos + 1 < p->len && p->src[p->pos] == '-' &&
	    p->src[p->pos + 1] != ']') {
		p->pos++;
		hi = (unsigned char)p->src[p->pos++];
		if (hi < lo) {
			xtap_re_fail_at(p, at,
					"inverted range '%c-%c' in '[...]'", lo,
					hi);
			return;
		}
	}
	xtap_re_set_range(set, lo, hi);
}

/* After '[': items up to ']'; a ']' right after '[' or '[^' is a member. */
static struct xtap_re_node *xtap_re_bracket(struct xtap_re_parser *p,
					    size_t open)
{
	struct xtap_re_node *n;
	unsigned long *set;
	bool negate = false;

	if (p->nclasses >= p->maxclasses) {
		xtap_re_fail(p, "regular expression too complex");
		return NULL;
	}
	set = p->classes[p->nclasses];
	bitmap_zero(set, 256);
	if (xtap_re_peek(p) == '^') {
		negate = true;
		p->pos++;
	}
	do {
		if (p->pos >= p->len) {
			xtap_re_fail_at(p, open, "unterminated '['");
			return NULL;
		}
		xtap_re_bracket_item(p, set, open);
		if (p->failed)
			return NULL;
	} while (xtap_re_peek(p) != ']');
	p->pos++;
	if (negate)
		bitmap_complement(set, set, 256);
	__clear_bit(0, set); /* strings end at NUL */
	n = xtap_re_node(p, XTAP_N_CLASS);
	if (n)
		n->cls = p->nclasses++;
	return n;
}

static int xtap_re_number(struct xtap_re_parser *p, size_t open)
{
	int v = 0, c = xtap_re_peek(p);

	if (c < 0 || !isdigit(c)) {
		xtap_re_fail_at(p, open, "expected a number in '{m,n}'");
		return -1;
	}
	while (c >= 0 && isdigit(c)) {
		v = v * 10 + (c - '0');
		if (v > XTAP_RE_MAX_REPEAT) {
			xtap_re_fail_at(
				p, open,
				"repetition count too large (at most %d)",
				XTAP_RE_MAX_REPEAT);
			return -1;
		}
		p->pos++;
		c = xtap_re_peek(p);
	}
	return v;
}

/* After '{' (at open): m}, m,} or m,n} */
static bool xtap_re_bounds(struct xtap_re_parser *p, size_t open, int *min,
			   int *max)
{
	*min = xtap_re_number(p, open);
	if (*min < 0)
		return false;
	if (xtap_re_peek(p) == '}') {
		p->pos++;
		*max = *min;
		return true;
	}
	if (xtap_re_peek(p) != ',') {
		xtap_re_fail_at(p, open,
				xtap_re_peek(p) < 0 ?
					"unterminated '{'" :
					"expected ',' or '}' in '{m,n}'");
		return false;
	}
	p->pos++;
	if (xtap_re_peek(p) == '}') {
		p->pos++;
		*max = -1;
		return true;
	}
	*max = xtap_re_number(p, open);
	if (*max < 0)
		return false;
	if (xtap_re_peek(p) != '}') {
		xtap_re_fail_at(p, open,
				xtap_re_peek(p) < 0 ?
					"unterminated '{'" :
					"expected '}' to end '{m,n}'");
		return false;
	}
	p->pos++;
	if (*max < *min) {
		xtap_re_fail_at(p, open, "repetition '{%d,%d}' with n < m",
				*min, *max);
		return false;
	}
	return true;
}

static struct xtap_re_node *xtap_re_alt(struct xtap_re_parser *p);

static struct xtap_re_node *xtap_re_atom(struct xtap_re_parser *p)
{
	size_t at = p->pos;
	int c = xtap_re_peek(p);
	struct xtap_re_node *n;

	p->pos++;
	switch (c) {
	case '.':
		return xtap_re_node(p, XTAP_N_ANY);
	case '^':
		return xtap_re_node(p, XTAP_N_BOL);
	case '$':
		return xtap_re_node(p, XTAP_N_EOL);
	case '[':
		return xtap_re_bracket(p, at);
	case '(':
		if (++p->depth > XTAP_RE_MAX_DEPTH) {
			xtap_re_fail_at(
				p, at,
				"parentheses nested too deeply (at most %d)",
				XTAP_RE_MAX_DEPTH);
			return NULL;
		}
		n = xtap_re_node(p, XTAP_N_GROUP);
		if (!n)
			return NULL;
		if (xtap_re_peek(p) == '?') {
			p->pos++;
			if (xtap_re_peek(p) != ':') {
				xtap_re_fail_at(
					p, at,
					"'(?' is supported only as '(?:...)', a group that does not capture");
				return NULL;
			}
			p->pos++;
		} else {
			n->group = ++p->ngroups;
		}
		n->kid = xtap_re_alt(p);
		if (p->failed)
			return NULL;
		if (xtap_re_peek(p) != ')') {
			xtap_re_fail_at(p, at, "unmatched '('");
			return NULL;
		}
		p->pos++;
		p->depth--;
		return n;
	case '\\':
		if (p->pos >= p->len) {
			xtap_re_fail_at(p, at, "trailing backslash");
			return NULL;
		}
		c = (unsigned char)p->src[p->pos++];
		fallthrough;
	default:
		n = xtap_re_node(p, XTAP_N_CHAR);
		if (n)
			n->c = c;
		return n;
	}
}

/*
 * An atom with its postfix operators. Each operator wraps the node in one
 * more REPEAT, and xtap_re_size() and xtap_re_emit() recurse through them:
 * XTAP_RE_MAX_STACKED_REPEATS keeps that recursion (like the parentheses')
 * within the kernel stack; "a{1}{1}{1}..." would otherwise overflow it.
 */
static struct xtap_re_node *xtap_re_factor(struct xtap_re_parser *p)
{
	struct xtap_re_node *n, *r;
	int c = xtap_re_peek(p), min, max, stacked = 0;
	size_t open;

	if (c == '*' || c == '+' || c == '?' || c == '{') {
		xtap_re_fail(p, "nothing to repeat before '%c'", c);
		return NULL;
	}
	n = xtap_re_atom(p);
	for (c = xtap_re_peek(p);
	     n && (c == '*' || c == '+' || c == '?' || c == '{');
	     c = xtap_re_peek(p)) {
		if (n->type == XTAP_N_BOL || n->type == XTAP_N_EOL) {
			xtap_re_fail(p, "'%c' cannot repeat the anchor '%c'", c,
				     n->type == XTAP_N_BOL ? '^' : '$');
			return NULL;
		}
		if (++stacked > XTAP_RE_MAX_STACKED_REPEATS) {
			xtap_re_fail(
				p,
				"too many repetition operators in a row (at most %d, as in 'a*?'; use parentheses)",
				XTAP_RE_MAX_STACKED_REPEATS);
			return NULL;
		}
		open = p->pos++;
		if (c == '*') {
			min = 0;
			max = -1;
		} else if (c == '+') {
			min = 1;
			max = -1;
		} else if (c == '?') {
			min = 0;
			max = 1;
		} else if (!xtap_re_bounds(p, open, &min, &max)) {
			return NULL;
		}
		r = xtap_re_node(p, XTAP_N_REPEAT);
		if (!r)
			return NULL;
		r->kid = n;
		r->min = min;
		r->max = max;
		n = r;
	}
	return n;
}

static struct xtap_re_node *xtap_re_cat(struct xtap_re_parser *p)
{
	struct xtap_re_node *n = xtap_re_node(p, XTAP_N_CAT), **tail;
	int c;

	if (!n)
		return NULL;
	tail = &n->kid;
	for (c = xtap_re_peek(p); c >= 0 && c != '|' && c != ')';
	     c = xtap_re_peek(p)) {
		*tail = xtap_re_factor(p);
		if (!*tail)
			return NULL;
		tail = &(*tail)->next;
	}
	return n;
}

static struct xtap_re_node *xtap_re_alt(struct xtap_re_parser *p)
{
	struct xtap_re_node *n = xtap_re_node(p, XTAP_N_ALT), **tail;

	if (!n)
		return NULL;
	tail = &n->kid;
	for (;;) {
		*tail = xtap_re_cat(p);
		if (!*tail)
			return NULL;
		tail = &(*tail)->next;
		if (xtap_re_peek(p) != '|')
			return n;
		p->pos++;
	}
}

/* ------------------------------------------------------------ code size */

static u64 xtap_re_size(const struct xtap_re_node *n)
{
	const struct xtap_re_node *k;
	u64 s = 0, ks;

	switch (n->type) {
	case XTAP_N_EMPTY:
		return 0;
	case XTAP_N_CAT:
		for (k = n->kid; k; k = k->next)
			s += xtap_re_size(k);
		return min_t(u64, s, U32_MAX);
	case XTAP_N_ALT:
		for (k = n->kid; k; k = k->next)
			s += xtap_re_size(k) + (k->next ? 2 : 0);
		return min_t(u64, s, U32_MAX);
	case XTAP_N_GROUP:
		return xtap_re_size(n->kid) +
		       (n->group >= 0 && n->group < XTAP_RE_MAX_GROUPS ? 2 : 0);
	case XTAP_N_REPEAT:
		ks = xtap_re_size(n->kid);
		if (n->max < 0)
			s = n->min ? n->min * ks + 1 : ks + 2;
		else
			s = n->min * ks + (u64)(n->max - n->min) * (ks + 1);
		return min_t(u64, s, U32_MAX);
	default:
		return 1;
	}
}

/* ------------------------------------------------------------ emission */

static u32 xtap_re_emit1(struct xtap_re_parser *p, u8 op, u8 c, u32 x, u32 y)
{
	struct xtap_re_inst *i = &p->inst[p->ninst];

	i->op = op;
	i->c = c;
	i->x = x;
	i->y = y;
	return p->ninst++;
}

static void xtap_re_emit(struct xtap_re_parser *p, const struct xtap_re_node *n)
{
	const struct xtap_re_node *k;
	u32 split, start = 0, jmps, next;
	int i;

	switch (n->type) {
	case XTAP_N_EMPTY:
		break;
	case XTAP_N_CHAR:
		xtap_re_emit1(p, XTAP_RE_CHAR, n->c, 0, 0);
		break;
	case XTAP_N_ANY:
		xtap_re_emit1(p, XTAP_RE_ANY, 0, 0, 0);
		break;
	case XTAP_N_CLASS:
		xtap_re_emit1(p, XTAP_RE_CLASS, 0, n->cls, 0);
		break;
	case XTAP_N_BOL:
		xtap_re_emit1(p, XTAP_RE_BOL, 0, 0, 0);
		break;
	case XTAP_N_EOL:
		xtap_re_emit1(p, XTAP_RE_EOL, 0, 0, 0);
		break;
	case XTAP_N_CAT:
		for (k = n->kid; k; k = k->next)
			xtap_re_emit(p, k);
		break;
	case XTAP_N_ALT:
		/* The JMPs to the end are chained through x, then patched. */
		jmps = U32_MAX;
		for (k = n->kid; k; k = k->next) {
			if (!k->next) {
				xtap_re_emit(p, k);
				break;
			}
			split = xtap_re_emit1(p, XTAP_RE_SPLIT, 0, p->ninst + 1,
					      0);
			xtap_re_emit(p, k);
			jmps = xtap_re_emit1(p, XTAP_RE_JMP, 0, jmps, 0);
			p->inst[split].y = p->ninst;
		}
		while (jmps != U32_MAX) {
			next = p->inst[jmps].x;
			p->inst[jmps].x = p->ninst;
			jmps = next;
		}
		break;
	case XTAP_N_GROUP:
		if (n->group >= 0 && n->group < XTAP_RE_MAX_GROUPS)
			xtap_re_emit1(p, XTAP_RE_SAVE, 0, 2 * n->group, 0);
		xtap_re_emit(p, n->kid);
		if (n->group >= 0 && n->group < XTAP_RE_MAX_GROUPS)
			xtap_re_emit1(p, XTAP_RE_SAVE, 0, 2 * n->group + 1, 0);
		break;
	case XTAP_N_REPEAT:
		for (i = 0; i < n->min; i++) {
			start = p->ninst;
			xtap_re_emit(p, n->kid);
		}
		if (n->max < 0 && n->min > 0) {
			/* e+ : loop back over the last copy */
			xtap_re_emit1(p, XTAP_RE_SPLIT, 0, start, p->ninst + 1);
		} else if (n->max < 0) {
			split = xtap_re_emit1(p, XTAP_RE_SPLIT, 0, p->ninst + 1,
					      0);
			xtap_re_emit(p, n->kid);
			xtap_re_emit1(p, XTAP_RE_JMP, 0, split, 0);
			p->inst[split].y = p->ninst;
		} else {
			/* e{m,n}: n - m optional copies; declining one skips the rest */
			jmps = U32_MAX;
			for (i = n->min; i < n->max; i++) {
				jmps = xtap_re_emit1(p, XTAP_RE_SPLIT, 0,
						     p->ninst + 1, jmps);
				xtap_re_emit(p, n->kid);
			}
			while (jmps != U32_MAX) {
				next = p->inst[jmps].y;
				p->inst[jmps].y = p->ninst;
				jmps = next;
			}
		}
		break;
	}
}

void xtap_re_free(struct xtap_re_prog *prog)
{
	if (!prog)
		return;
	kfree(prog->inst);
	kfree(prog->classes);
	kfree(prog);
}

struct xtap_re_prog *xtap_re_compile(const char *src, struct xtap_re_error *err)
{
	struct xtap_re_parser p = {
		.src = src,
		.len = strlen(src),
		.err = err,
	};
	struct xtap_re_prog *prog = NULL;
	struct xtap_re_node *root;
	size_t i;
	u64 size;

	p.maxnodes = 3 * p.len + 4;
	for (i = 0; i < p.len; i++)
		p.maxclasses += src[i] == '[';
	p.nodes = kcalloc(p.maxnodes, sizeof(*p.nodes), GFP_KERNEL);
	p.classes = kcalloc(max_t(u32, p.maxclasses, 1), sizeof(*p.classes),
			    GFP_KERNEL);
	if (!p.nodes || !p.classes) {
		xtap_re_fail_at(&p, 0, "out of memory");
		goto out;
	}
	root = xtap_re_alt(&p);
	if (!p.failed && p.pos < p.len)
		xtap_re_fail(&p, "unmatched ')'");
	if (p.failed)
		goto out;

	size = xtap_re_size(root) + 3; /* SAVE 0, SAVE 1, MATCH */
	if (size > XTAP_RE_MAX_INST) {
		xtap_re_fail_at(
			&p, 0,
			"too complex: it compiles to %llu instructions, at most %d (a{m,n} copies 'a' n times)",
			size, XTAP_RE_MAX_INST);
		goto out;
	}
	prog = kzalloc(sizeof(*prog), GFP_KERNEL);
	p.inst = kcalloc(size, sizeof(*p.inst), GFP_KERNEL);
	if (!prog || !p.inst) {
		kfree(p.inst);
		kfree(prog);
		prog = NULL;
		xtap_re_fail_at(&p, 0, "out of memory");
		goto out;
	}
	xtap_re_emit1(&p, XTAP_RE_SAVE, 0, 0, 0);
	xtap_re_emit(&p, root);
	xtap_re_emit1(&p, XTAP_RE_SAVE, 0, 1, 0);
	xtap_re_emit1(&p, XTAP_RE_MATCH, 0, 0, 0);
	prog->inst = p.inst;
	prog->ninst = p.ninst;
	prog->nsave = 2 * (min(p.ngroups, XTAP_RE_MAX_GROUPS - 1) + 1);
	prog->ngroups = p.ngroups;
	prog->classes = p.classes;
	p.classes = NULL;
out:
	kfree(p.nodes);
	kfree(p.classes);
	return prog;
}
