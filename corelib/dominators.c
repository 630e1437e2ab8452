/* Dominator trees: Lengauer & Tarjan's algorithm with simple path compression
   (O(m log n)), written without recursion so that graphs with long chains cannot
   overflow the stack.  Work arrays are indexed by depth-first number, 0 = root.  */

#include <stdlib.h>
#include <string.h>

#include "dominators.h"

#define NONE PP_DOM_NONE

/* Adjacency in the chosen direction: the edges "leaving" v and where they lead.  */
struct direction
{
  const pp_graph *g;
  bool reverse;
  uint32_t skip_flags;
};

static inline uint32_t
out_begin (const struct direction *d, uint32_t v)
{
  return d->reverse ? d->g->pred_start[v] : d->g->succ_start[v];
}

static inline uint32_t
out_end (const struct direction *d, uint32_t v)
{
  return d->reverse ? d->g->pred_start[v + 1] : d->g->succ_start[v + 1];
}

/* The I-th entry of v's list in direction D (IN: the opposite direction): the node
   at its other end, or NONE for a skipped edge.  */
static inline uint32_t
neighbour (const struct direction *d, bool in, uint32_t i)
{
  bool preds = d->reverse != in;
  uint32_t e = preds ? d->g->pred_edges[i] : d->g->succ_edges[i];
  const pp_edge *edge = &d->g->edges[e];
  if (edge->flags & d->skip_flags)
    return NONE;
  return preds ? edge->src : edge->dst;
}

static inline uint32_t
in_begin (const struct direction *d, uint32_t v)
{
  return d->reverse ? d->g->succ_start[v] : d->g->pred_start[v];
}

static inline uint32_t
in_end (const struct direction *d, uint32_t v)
{
  return d->reverse ? d->g->succ_start[v + 1] : d->g->pred_start[v + 1];
}

struct lt
{
  uint32_t *semi, *label, *ancestor, *parent, *idom;
  uint32_t *bucket_head, *bucket_next, *stack;
};

/* Path compression of the link-eval forest, bottom-up along the ancestor chain.  */
static void
compress (struct lt *w, uint32_t v)
{
  uint32_t depth = 0;
  while (w->ancestor[w->ancestor[v]] != NONE)
    {
      w->stack[depth++] = v;
      v = w->ancestor[v];
    }
  while (depth > 0)
    {
      uint32_t x = w->stack[--depth];
      uint32_t a = w->ancestor[x];
      if (w->semi[w->label[a]] < w->semi[w->label[x]])
	w->label[x] = w->label[a];
      w->ancestor[x] = w->ancestor[a];
    }
}

static uint32_t
eval (struct lt *w, uint32_t v)
{
  if (w->ancestor[v] == NONE)
    return v;
  compress (w, v);
  return w->label[v];
}

/* Depth-first preorder from the root: fills dfnum (node -> number), vertex
   (number -> node) and parent (by number).  Returns the number of nodes reached.  */
static uint32_t
number_nodes (const struct direction *d, uint32_t root, uint32_t *dfnum,
	      uint32_t *vertex, uint32_t *parent, uint32_t *stack_node,
	      uint32_t *stack_pos)
{
  uint32_t count = 0, depth = 0;
  dfnum[root] = count;
  vertex[count] = root;
  parent[count++] = NONE;
  stack_node[0] = root;
  stack_pos[0] = out_begin (d, root);
  depth = 1;
  while (depth > 0)
    {
      uint32_t v = stack_node[depth - 1];
      if (stack_pos[depth - 1] == out_end (d, v))
	{
	  depth--;
	  continue;
	}
      uint32_t y = neighbour (d, false, stack_pos[depth - 1]++);
      if (y == NONE || dfnum[y] != NONE)
	continue;
      dfnum[y] = count;
      vertex[count] = y;
      parent[count++] = dfnum[v];
      stack_node[depth] = y;
      stack_pos[depth++] = out_begin (d, y);
    }
  return count;
}

/* Numbers the dominator tree (given by idom over depth-first numbers) in preorder and
   postorder, iteratively, and stores the results by node.  */
static void
number_tree (pp_domtree *t, uint32_t count, const uint32_t *vertex,
	     const uint32_t *idom_df, uint32_t *child_start, uint32_t *children,
	     uint32_t *stack_node, uint32_t *stack_pos)
{
  memset (child_start, 0, ((size_t) count + 1) * sizeof *child_start);
  for (uint32_t i = 1; i < count; i++)
    child_start[idom_df[i] + 1]++;
  for (uint32_t i = 0; i < count; i++)
    child_start[i + 1] += child_start[i];
  for (uint32_t i = 1; i < count; i++)
    children[child_start[idom_df[i]]++] = i;
  memmove (child_start + 1, child_start, (size_t) count * sizeof *child_start);
  child_start[0] = 0;

  uint32_t pre = 0, post = 0, depth = 1;
  stack_node[0] = 0;
  stack_pos[0] = child_start[0];
  t->pre[vertex[0]] = pre++;
  while (depth > 0)
    {
      uint32_t v = stack_node[depth - 1];
      if (stack_pos[depth - 1] == child_start[v + 1])
	{
	  t->post[vertex[v]] = post++;
	  depth--;
	  continue;
	}
      uint32_t c = children[stack_pos[depth - 1]++];
      t->pre[vertex[c]] = pre++;
      stack_node[depth] = c;
      stack_pos[depth++] = child_start[c];
    }
}

int
pp_dominators (const pp_graph *g, uint32_t root, bool reverse,
	       uint32_t skip_flags, pp_domtree *t)
{
  size_t n = g->nnodes;
  struct direction d = { g, reverse, skip_flags };
  memset (t, 0, sizeof *t);
  t->nnodes = g->nnodes;
  t->root = root;
  t->idom = malloc ((n ? n : 1) * sizeof *t->idom);
  t->pre = malloc ((n ? n : 1) * sizeof *t->pre);
  t->post = malloc ((n ? n : 1) * sizeof *t->post);

  /* Eleven work arrays of n entries (the last of n + 1), carved from one block.  */
  uint32_t *block = malloc ((11 * n + 1) * sizeof *block);
  if (!t->idom || !t->pre || !t->post || !block)
    {
      free (block);
      pp_domtree_free (t);
      return -1;
    }
  for (size_t v = 0; v < n; v++)
    t->idom[v] = t->pre[v] = t->post[v] = NONE;
  if (root >= n)
    {
      free (block);
      return 0;
    }

  uint32_t *dfnum = block, *vertex = block + n, *stack_node = block + 2 * n;
  uint32_t *stack_pos = block + 3 * n;
  struct lt w = {
    .semi = block + 4 * n, .label = block + 5 * n, .ancestor = block + 6 * n,
    .parent = block + 7 * n, .idom = block + 8 * n, .bucket_head = block + 9 * n,
    .bucket_next = block + 10 * n, .stack = stack_node,
  };
  for (size_t v = 0; v < n; v++)
    dfnum[v] = NONE;
  uint32_t count = number_nodes (&d, root, dfnum, vertex, w.parent, stack_node,
				 stack_pos);
  for (uint32_t i = 0; i < count; i++)
    {
      w.semi[i] = w.label[i] = i;
      w.ancestor[i] = w.bucket_head[i] = NONE;
    }

  for (uint32_t i = count - 1; i > 0; i--)
    {
      uint32_t v = vertex[i];
      for (uint32_t k = in_begin (&d, v); k < in_end (&d, v); k++)
	{
	  uint32_t p = neighbour (&d, true, k);
	  if (p == NONE || dfnum[p] == NONE)
	    continue;
	  uint32_t u = eval (&w, dfnum[p]);
	  if (w.semi[u] < w.semi[i])
	    w.semi[i] = w.semi[u];
	}
      w.bucket_next[i] = w.bucket_head[w.semi[i]];
      w.bucket_head[w.semi[i]] = i;
      uint32_t par = w.parent[i];
      w.ancestor[i] = par;
      for (uint32_t b = w.bucket_head[par]; b != NONE; b = w.bucket_next[b])
	{
	  uint32_t u = eval (&w, b);
	  w.idom[b] = w.semi[u] < w.semi[b] ? u : par;
	}
      w.bucket_head[par] = NONE;
    }
  for (uint32_t i = 1; i < count; i++)
    if (w.idom[i] != w.semi[i])
      w.idom[i] = w.idom[w.idom[i]];
  for (uint32_t i = 1; i < count; i++)
    t->idom[vertex[i]] = vertex[w.idom[i]];

  /* The tree numbering reuses the buckets, empty by now (bucket_next is the one
     with n + 1 entries).  */
  number_tree (t, count, vertex, w.idom, w.bucket_next, w.bucket_head, stack_node,
	       stack_pos);
  free (block);
  return 0;
}

void
pp_domtree_free (pp_domtree *t)
{
  free (t->idom);
  free (t->pre);
  free (t->post);
  memset (t, 0, sizeof *t);
}
