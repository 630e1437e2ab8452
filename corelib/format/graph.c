/* Plain control-flow graphs: edge storage, compressed adjacency lists and the
   iterative depth-first search.  */

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "graph.h"

int
pp_graph_init (pp_graph *g, uint32_t nnodes, uint32_t entry, uint32_t exit)
{
  memset (g, 0, sizeof *g);
  g->nnodes = nnodes;
  g->entry = entry;
  g->exit = exit;
  return 0;
}

int
pp_graph_reserve (pp_graph *g, uint32_t nedges)
{
  return PP_RESERVE (g->edges, g->edge_cap, nedges, 16);
}

uint32_t
pp_graph_add_edge (pp_graph *g, uint32_t src, uint32_t dst, uint32_t flags)
{
  /* An edge to a node that does not exist would make pp_graph_finish write out
     of bounds; refuse it here, where the caller can still report it.  */
  if (src >= g->nnodes || dst >= g->nnodes)
    return UINT32_MAX;
  if (g->nedges == g->edge_cap)
    {
      /* UINT32_MAX is the failure value, so at most UINT32_MAX - 1 edges.  */
      if (g->edge_cap >= UINT32_MAX / 2
	  || PP_RESERVE (g->edges, g->edge_cap, (size_t) g->nedges + 1, 16))
	return UINT32_MAX;
    }
  g->edges[g->nedges] = (pp_edge) { .src = src, .dst = dst, .flags = flags };
  return g->nedges++;
}

/* Counting sort of the edges by one endpoint: stable, so each node's list keeps
   edge order.  START has nnodes + 1 entries.  */
static void
bucket_edges (const pp_graph *g, bool by_src, uint32_t *start, uint32_t *list)
{
  memset (start, 0, ((size_t) g->nnodes + 1) * sizeof *start);
  for (uint32_t e = 0; e < g->nedges; e++)
    start[(by_src ? g->edges[e].src : g->edges[e].dst) + 1]++;
  for (uint32_t v = 0; v < g->nnodes; v++)
    start[v + 1] += start[v];
  /* Fill using start[v] as the insertion cursor, then shift the cursors back.  */
  for (uint32_t e = 0; e < g->nedges; e++)
    list[start[by_src ? g->edges[e].src : g->edges[e].dst]++] = e;
  memmove (start + 1, start, (size_t) g->nnodes * sizeof *start);
  start[0] = 0;
}

int
pp_graph_finish (pp_graph *g)
{
  size_t nstart = (size_t) g->nnodes + 1;
  size_t nlist = g->nedges ? g->nedges : 1;
  uint32_t *succ_start = pp_malloc (nstart * sizeof *succ_start);
  uint32_t *pred_start = pp_malloc (nstart * sizeof *pred_start);
  uint32_t *succ_edges = pp_malloc (nlist * sizeof *succ_edges);
  uint32_t *pred_edges = pp_malloc (nlist * sizeof *pred_edges);
  if (!succ_start || !pred_start || !succ_edges || !pred_edges)
    {
      pp_free (succ_start);
      pp_free (pred_start);
      pp_free (succ_edges);
      pp_free (pred_edges);
      return -1;
    }
  bucket_edges (g, true, succ_start, succ_edges);
  bucket_edges (g, false, pred_start, pred_edges);

  pp_free (g->succ_start);
  pp_free (g->succ_edges);
  pp_free (g->pred_start);
  pp_free (g->pred_edges);
  g->succ_start = succ_start;
  g->succ_edges = succ_edges;
  g->pred_start = pred_start;
  g->pred_edges = pred_edges;
  return 0;
}

void
pp_graph_free (pp_graph *g)
{
  pp_free (g->edges);
  pp_free (g->succ_start);
  pp_free (g->succ_edges);
  pp_free (g->pred_start);
  pp_free (g->pred_edges);
  memset (g, 0, sizeof *g);
}

/* ------------------------------------------------------------------------- */
/* Depth-first search.  */

int
pp_dfs_init (pp_dfs *d, const pp_graph *g, enum pp_dfs_direction dir,
	     uint32_t skip_flags, pp_dfs_filter *filter, void *data)
{
  size_t n = g->nnodes ? g->nnodes : 1;
  memset (d, 0, sizeof *d);
  /* Seven arrays of n entries, carved from one block.  */
  uint32_t *block = pp_malloc (7 * n * sizeof *block);
  if (!block)
    return -1;
  d->g = g;
  d->dir = dir;
  d->skip_flags = skip_flags;
  d->filter = filter;
  d->data = data;
  d->pre = block;
  d->post = block + n;
  d->tree_edge = block + 2 * n;
  d->preorder = block + 3 * n;
  d->postorder = block + 4 * n;
  d->stack = block + 5 * n;
  d->cursor = block + 6 * n;
  for (uint32_t v = 0; v < g->nnodes; v++)
    d->pre[v] = d->post[v] = d->tree_edge[v] = PP_DFS_NONE;
  return 0;
}

void
pp_dfs_free (pp_dfs *d)
{
  pp_free (d->pre);
  memset (d, 0, sizeof *d);
}

/* Marks v reached (preorder) by TREE_EDGE and pushes it.  */
static void
dfs_push (pp_dfs *d, uint32_t v, uint32_t tree_edge)
{
  d->pre[v] = d->npre;
  d->preorder[d->npre++] = v;
  d->tree_edge[v] = tree_edge;
  d->stack[d->depth] = v;
  d->cursor[d->depth++] = 0;
}

bool
pp_dfs_root (pp_dfs *d, uint32_t root)
{
  if (d->depth || root >= d->g->nnodes || d->pre[root] != PP_DFS_NONE)
    return false;
  dfs_push (d, root, PP_DFS_NONE);
  d->root_pending = true;
  return true;
}

bool
pp_dfs_next (pp_dfs *d, pp_dfs_step *step)
{
  if (!d->depth)
    return false;
  const pp_graph *g = d->g;
  uint32_t v = d->stack[d->depth - 1];
  if (d->root_pending)
    {
      d->root_pending = false;
      *step = (pp_dfs_step) { PP_DFS_ENTER, PP_DFS_NONE, v, PP_DFS_NONE };
      return true;
    }
  /* v's list: nsucc successor edges (unless PP_DFS_PREDS), then predecessor edges
     (unless PP_DFS_SUCCS).  */
  uint32_t nsucc = d->dir == PP_DFS_PREDS ? 0 : pp_graph_out_degree (g, v);
  uint32_t nlist = nsucc + (d->dir == PP_DFS_SUCCS ? 0 : pp_graph_in_degree (g, v));
  uint32_t *cursor = &d->cursor[d->depth - 1];
  while (*cursor < nlist)
    {
      uint32_t k = (*cursor)++;
      bool forwards = k < nsucc;
      uint32_t e = forwards ? g->succ_edges[g->succ_start[v] + k]
		 : g->pred_edges[g->pred_start[v] + k - nsucc];
      /* Only an undirected walk can meet its tree edge in v's own list.  */
      if (e == d->tree_edge[v] || (g->edges[e].flags & d->skip_flags)
	  || (d->filter && !d->filter (d->data, e)))
	continue;
      uint32_t t = forwards ? g->edges[e].dst : g->edges[e].src;
      if (d->pre[t] == PP_DFS_NONE)
	{
	  dfs_push (d, t, e);
	  *step = (pp_dfs_step) { PP_DFS_ENTER, v, t, e };
	}
      else
	*step = (pp_dfs_step) { d->post[t] == PP_DFS_NONE ? PP_DFS_BACK : PP_DFS_CROSS,
				v, t, e };
      return true;
    }
  d->post[v] = d->npost;
  d->postorder[d->npost++] = v;
  d->depth--;
  *step = (pp_dfs_step) { PP_DFS_LEAVE,
			  d->depth ? d->stack[d->depth - 1] : PP_DFS_NONE, v,
			  d->tree_edge[v] };
  return true;
}

void
pp_dfs_run (pp_dfs *d, uint32_t root)
{
  pp_dfs_step step;
  if (pp_dfs_root (d, root))
    while (pp_dfs_next (d, &step))
      ;
}
