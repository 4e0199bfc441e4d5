// uvars N: user-space functions whose parameters, members, strings and
// results the process $var tests read from this program's DWARF
// (tests/runtime/uprobe/vars_*.test). Builds a list of N nodes (id i,
// inner depth 10 * i, tag "tag-i", vals {i, 2i, 3i, 4i}), then calls
// xt_visit(node, 3, "visitor") for each, xt_find(list, i) for i = 1..N+1
// (the last finds nothing), xt_bad((struct xt_node *)16) once and
// xt_sum(N). noipa keeps each function a real call with its own symbol.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xt_inner {
	int depth;
	const char *label;
};

struct xt_node {
	long id;
	struct xt_inner *inner;
	char tag[16];
	int vals[4];
	struct xt_node *next;
};

__attribute__((noipa)) long xt_visit(struct xt_node *n, int scale, const char *who)
{
	return n->id * scale + n->inner->depth + (long)strlen(who);
}

__attribute__((noipa)) struct xt_node *xt_find(struct xt_node *list, long id)
{
	for (; list; list = list->next)
		if (list->id == id)
			return list;
	return NULL;
}

/* Called with a pointer to nowhere: a probe reading $n->id must fail cleanly. */
__attribute__((noipa)) int xt_bad(struct xt_node *n)
{
	return n != NULL;
}

/* Unoptimized, so that its locals live in its stack frame (statement probes). */
__attribute__((noipa, optimize("O0"))) long xt_sum(int count)
{
	long total = 0;

	for (int i = 0; i < count; i++) {
		long step = i * 3;

		total += step;
	}
	return total;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	struct xt_node *list = NULL;
	long sum = 0;

	for (long i = n; i >= 1; i--) {
		struct xt_node *node = calloc(1, sizeof(*node));
		struct xt_inner *inner = calloc(1, sizeof(*inner));
		char *label = malloc(16);

		snprintf(label, 16, "inner-%d", (int)(i % 1000));
		inner->depth = (int)(10 * i);
		inner->label = label;
		node->id = i;
		node->inner = inner;
		snprintf(node->tag, sizeof(node->tag), "tag-%d", (int)(i % 1000));
		for (int k = 0; k < 4; k++)
			node->vals[k] = (int)((k + 1) * i);
		node->next = list;
		list = node;
	}
	for (struct xt_node *p = list; p; p = p->next)
		sum += xt_visit(p, 3, "visitor");
	for (long i = 1; i <= n + 1; i++)
		sum += xt_find(list, i) != NULL;
	sum += xt_bad((struct xt_node *)16);
	sum += xt_sum((int)n);
	return sum == 0;
}
