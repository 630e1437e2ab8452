/* Maximum spanning tree (Kruskal) and the edge-counter plan built on it
   (Ball & Larus 1994, section 3.2).  */

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "format/alloc.h"
#include "edgeprof.h"

/* Kruskal order of one edge.  */
struct candidate
{
  uint8_t rank;			/* 0 EXIT -> ENTRY, 1 other pinned, 2 the rest */
  double weight;
  uint32_t edge;
};

static int
compare_candidates (const void *pa, const void *pb)
{
  const struct candidate *a = pa, *b = pb;
  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  if (a->weight != b->weight)
    return a->weight > b->weight ? -1 : 1;
  return a->edge < b->edge ? -1 : a->edge > b->edge;
}

/* Union-find with union by rank and path compression.  */
struct forest
{
  uint32_t *parent;
  uint8_t *rank;
};

static uint32_t
find_root (struct forest *f, uint32_t v)
{
  uint32_t root = v;
  while (f->parent[root] != root)
    root = f->parent[root];
  while (f->parent[v] != root)
    {
      uint32_t next = f->parent[v];
      f->parent[v] = root;
      v = next;
    }
  return root;
}

/* Joins the trees of a and b; false when they already are one tree.  */
static bool
join (struct forest *f, uint32_t a, uint32_t b)
{
  a = find_root (f, a);
  b = find_root (f, b);
  if (a == b)
    return false;
  if (f->rank[a] < f->rank[b])
    {
      uint32_t tmp = a;
      a = b;
      b = tmp;
    }
  f->parent[b] = a;
  if (f->rank[a] == f->rank[b])
    f->rank[a]++;
  return true;
}

int
pp_max_spanning_tree (const pp_graph *g, const double *w, bool *on_tree)
{
  struct candidate *order = pp_malloc ((g->nedges ? g->nedges : 1) * sizeof *order);
  struct forest f = {
    .parent = pp_malloc ((g->nnodes ? g->nnodes : 1) * sizeof *f.parent),
    .rank = pp_calloc (g->nnodes ? g->nnodes : 1, sizeof *f.rank),
  };
  if (!order || !f.parent || !f.rank)
    {
      pp_free (order);
      pp_free (f.parent);
      pp_free (f.rank);
      return -1;
    }
  for (uint32_t v = 0; v < g->nnodes; v++)
    f.parent[v] = v;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint32_t flags = g->edges[e].flags;
      /* The closing edge goes first so that, if pinned edges form a cycle, it is
	 never the one left undetermined: it counts the calls.  A NaN weight would
	 break the sort order; treat it as the lightest.  */
      order[e] = (struct candidate) {
	.rank = (flags & PP_EDGE_EXIT_ENTRY) ? 0 : (flags & PP_EDGE_PINNED) ? 1 : 2,
	.weight = isnan (w[e]) ? -INFINITY : w[e],
	.edge = e,
      };
    }
  pp_sort (order, g->nedges, sizeof *order, compare_candidates);

  int pinned_chords = 0;
  for (uint32_t i = 0; i < g->nedges; i++)
    {
      uint32_t e = order[i].edge;
      on_tree[e] = join (&f, g->edges[e].src, g->edges[e].dst);
      if (!on_tree[e] && order[i].rank < 2)
	pinned_chords++;
    }
  pp_free (order);
  pp_free (f.parent);
  pp_free (f.rank);
  return pinned_chords;
}

int
pp_plan_edge_counters (const pp_graph *g, const double *w,
		       int32_t *counter_of_edge, int *pinned_chords)
{
  if (g->nedges > INT_MAX)
    return -1;
  bool *on_tree = pp_malloc ((g->nedges ? g->nedges : 1) * sizeof *on_tree);
  if (!on_tree)
    return -1;
  int stuck = pp_max_spanning_tree (g, w, on_tree);
  if (stuck < 0)
    {
      pp_free (on_tree);
      return -1;
    }
  int ncounters = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    counter_of_edge[e] = on_tree[e] || (g->edges[e].flags & PP_EDGE_PINNED)
			 ? -1 : ncounters++;
  pp_free (on_tree);
  if (pinned_chords)
    *pinned_chords = stuck;
  return ncounters;
}
