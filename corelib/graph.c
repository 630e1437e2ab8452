/* Plain control-flow graphs: edge storage and compressed adjacency lists.  */

#include <stdlib.h>
#include <string.h>

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
      if (g->edge_cap >= UINT32_MAX / 2)
	return UINT32_MAX;
      uint32_t cap = g->edge_cap ? 2 * g->edge_cap : 16;
      pp_edge *edges = realloc (g->edges, (size_t) cap * sizeof *edges);
      if (!edges)
	return UINT32_MAX;
      g->edges = edges;
      g->edge_cap = cap;
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
  uint32_t *succ_start = malloc (nstart * sizeof *succ_start);
  uint32_t *pred_start = malloc (nstart * sizeof *pred_start);
  uint32_t *succ_edges = malloc (nlist * sizeof *succ_edges);
  uint32_t *pred_edges = malloc (nlist * sizeof *pred_edges);
  if (!succ_start || !pred_start || !succ_edges || !pred_edges)
    {
      free (succ_start);
      free (pred_start);
      free (succ_edges);
      free (pred_edges);
      return -1;
    }
  bucket_edges (g, true, succ_start, succ_edges);
  bucket_edges (g, false, pred_start, pred_edges);

  free (g->succ_start);
  free (g->succ_edges);
  free (g->pred_start);
  free (g->pred_edges);
  g->succ_start = succ_start;
  g->succ_edges = succ_edges;
  g->pred_start = pred_start;
  g->pred_edges = pred_edges;
  return 0;
}

void
pp_graph_free (pp_graph *g)
{
  free (g->edges);
  free (g->succ_start);
  free (g->succ_edges);
  free (g->pred_start);
  free (g->pred_edges);
  memset (g, 0, sizeof *g);
}
