/* Dominator trees: Lengauer & Tarjan's algorithm with simple path compression
   (O(m log n)), written without recursion so that graphs with long chains cannot
   overflow the stack: the depth-first numbering and the numbering of the finished
   tree are pp_dfs walks (graph.h).  Work arrays are indexed by depth-first number,
   0 = root.  */

#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "dominators.h"

#define NONE PP_DOM_NONE

/* The edges "entering" v in the chosen direction (its predecessors, or its
   successors when REVERSE).  */
struct direction
{
  const pp_graph *g;
  bool reverse;
  uint32_t skip_flags;
};

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

/* The I-th entry of v's in-list: the node at its other end, or NONE for a skipped
   edge.  */
static inline uint32_t
in_neighbour (const struct direction *d, uint32_t i)
{
  uint32_t e = d->reverse ? d->g->succ_edges[i] : d->g->pred_edges[i];
  const pp_edge *edge = &d->g->edges[e];
  if (edge->flags & d->skip_flags)
    return NONE;
  return d->reverse ? edge->dst : edge->src;
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

/* Depth-first preorder from the root (dfs->pre: node -> number, dfs->preorder:
   number -> node); parent[] receives each number's parent's number.  Returns the
   number of nodes reached.  */
static uint32_t
number_nodes (pp_dfs *dfs, uint32_t root, uint32_t *parent)
{
  pp_dfs_step step;
  pp_dfs_root (dfs, root);
  while (pp_dfs_next (dfs, &step))
    if (step.event == PP_DFS_ENTER)
      parent[dfs->pre[step.dst]] = step.src == PP_DFS_NONE ? NONE
				   : dfs->pre[step.src];
  return dfs->npre;
}

/* Numbers the dominator tree (given by idom over depth-first numbers) in preorder
   and postorder by a DFS of it, children in increasing depth-first number, and
   stores the results by node.  Returns 0, or -1 on allocation failure.  */
static int
number_tree (pp_domtree *t, uint32_t count, const uint32_t *vertex,
	     const uint32_t *idom_df)
{
  pp_graph tree;
  pp_dfs dfs;
  int status = -1;
  pp_graph_init (&tree, count, 0, 0);
  for (uint32_t i = 1; i < count; i++)
    if (pp_graph_add_edge (&tree, idom_df[i], i, 0) == UINT32_MAX)
      goto out;
  if (pp_graph_finish (&tree) != 0
      || pp_dfs_init (&dfs, &tree, PP_DFS_SUCCS, 0, NULL, NULL) != 0)
    goto out;
  pp_dfs_run (&dfs, 0);
  for (uint32_t i = 0; i < count; i++)
    {
      t->pre[vertex[i]] = dfs.pre[i];
      t->post[vertex[i]] = dfs.post[i];
    }
  pp_dfs_free (&dfs);
  status = 0;
out:
  pp_graph_free (&tree);
  return status;
}

int
pp_dominators (const pp_graph *g, uint32_t root, bool reverse,
	       uint32_t skip_flags, pp_domtree *t)
{
  size_t n = g->nnodes;
  struct direction d = { g, reverse, skip_flags };
  pp_dfs dfs;
  memset (t, 0, sizeof *t);
  t->nnodes = g->nnodes;
  t->root = root;
  t->idom = pp_malloc ((n ? n : 1) * sizeof *t->idom);
  t->pre = pp_malloc ((n ? n : 1) * sizeof *t->pre);
  t->post = pp_malloc ((n ? n : 1) * sizeof *t->post);

  /* Eight work arrays of n entries, carved from one block (never empty).  */
  uint32_t *block = pp_malloc ((8 * n + 1) * sizeof *block);
  bool have_dfs = pp_dfs_init (&dfs, g, reverse ? PP_DFS_PREDS : PP_DFS_SUCCS,
			       skip_flags, NULL, NULL) == 0;
  if (!t->idom || !t->pre || !t->post || !block || !have_dfs)
    {
      pp_free (block);
      if (have_dfs)
	pp_dfs_free (&dfs);
      pp_domtree_free (t);
      return -1;
    }
  for (size_t v = 0; v < n; v++)
    t->idom[v] = t->pre[v] = t->post[v] = NONE;
  if (root >= n)
    {
      pp_free (block);
      pp_dfs_free (&dfs);
      return 0;
    }

  struct lt w = {
    .semi = block, .label = block + n, .ancestor = block + 2 * n,
    .parent = block + 3 * n, .idom = block + 4 * n, .bucket_head = block + 5 * n,
    .stack = block + 6 * n, .bucket_next = block + 7 * n,
  };
  uint32_t count = number_nodes (&dfs, root, w.parent);
  const uint32_t *dfnum = dfs.pre, *vertex = dfs.preorder;
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
	  uint32_t p = in_neighbour (&d, k);
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

  int status = number_tree (t, count, vertex, w.idom);
  pp_free (block);
  pp_dfs_free (&dfs);
  if (status != 0)
    pp_domtree_free (t);
  return status;
}

void
pp_domtree_free (pp_domtree *t)
{
  pp_free (t->idom);
  pp_free (t->pre);
  pp_free (t->post);
  memset (t, 0, sizeof *t);
}
