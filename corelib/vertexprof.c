/* Vertex profiling with edge counters, Vprof(Ecnt) (Ball & Larus 1994, section
   3.3): fewer counters than edge profiling when only block (and line) counts are
   wanted.

   Characterisation (the paper's theorem): a set of edge counters Ecnt determines
   every vertex count iff every simple cycle of E - Ecnt, taken undirected, is
   pipeless: its edges alternate direction, so every vertex on it is a fork (both
   cycle edges leave it) or a join (both enter it).  Around such a cycle, adding c
   to every other edge and subtracting it from the rest keeps each vertex's inflow
   and outflow, so the edges stay unknown while the vertices do not; a pipe would
   pass the change through its vertex.

   The heuristic (figure 11).  Start from the chords of a maximum spanning tree, as
   edge counting does; then, costliest chord first, drop the counter of chord e
   when the cycle C_e that e closes in the tree is pipeless, none of its vertices
   is marked, and none of its edges is one the caller must keep exact; then mark
   C_e's vertices.  Marking keeps the counter-free cycles vertex-disjoint, so no two
   pipeless ones combine into a piped simple cycle: the result satisfies the
   theorem.  The tree cycles are found from parent pointers of the tree, each in
   time proportional to its length.

   Propagation (figure 8).  Break every cycle of unmeasured edges by giving one of
   its edges the count 0 (any choice), then derive the rest on the tree that is
   left: the edges come out "vertex-frequency equivalent" to the true ones, every
   vertex's inflow and outflow exact.  Around a pipeless cycle the stand-in counts
   may be negative; they are kept modulo 2^64, so sums over a vertex's edges are
   still exact.  Which edge counts are exact themselves is what edge propagation
   of the counters alone can determine (pp_propagate_counts: the bridges of the
   unmeasured edges).  */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "edgeprof.h"

#define NONE UINT32_MAX

/* The spanning tree as a rooted forest: parent edge and depth of every node.  */
struct rooted
{
  uint32_t *parent_edge;
  uint32_t *depth;
};

static int
root_tree (const pp_graph *g, const bool *on_tree, struct rooted *t)
{
  size_t n = g->nnodes ? g->nnodes : 1;
  t->parent_edge = pp_malloc (n * sizeof *t->parent_edge);
  t->depth = pp_malloc (n * sizeof *t->depth);
  uint32_t *queue = pp_malloc (n * sizeof *queue);
  bool *seen = pp_calloc (n, sizeof *seen);
  if (!t->parent_edge || !t->depth || !queue || !seen)
    {
      pp_free (queue);
      pp_free (seen);
      return -1;
    }
  for (uint32_t root = 0; root < g->nnodes; root++)
    {
      if (seen[root])
	continue;
      uint32_t head = 0, tail = 0;
      seen[root] = true;
      t->parent_edge[root] = NONE;
      t->depth[root] = 0;
      queue[tail++] = root;
      while (head < tail)
	{
	  uint32_t v = queue[head++];
	  for (int dir = 0; dir < 2; dir++)
	    {
	      const uint32_t *start = dir ? g->pred_start : g->succ_start;
	      const uint32_t *list = dir ? g->pred_edges : g->succ_edges;
	      for (uint32_t i = start[v]; i < start[v + 1]; i++)
		{
		  uint32_t e = list[i];
		  uint32_t w = dir ? g->edges[e].src : g->edges[e].dst;
		  if (!on_tree[e] || seen[w])
		    continue;
		  seen[w] = true;
		  t->parent_edge[w] = e;
		  t->depth[w] = t->depth[v] + 1;
		  queue[tail++] = w;
		}
	    }
	}
    }
  pp_free (queue);
  pp_free (seen);
  return 0;
}

static uint32_t
parent_of (const pp_graph *g, const struct rooted *t, uint32_t v)
{
  const pp_edge *e = &g->edges[t->parent_edge[v]];
  return e->src == v ? e->dst : e->src;
}

/* Whether chord C's tree cycle may lose its counter: no vertex marked, no edge to
   keep, and pipeless.  The cycle is walked from C's source up the tree to the
   common ancestor, down to C's destination, and back over C (against its
   direction); it is pipeless iff consecutive edges are walked in opposite
   directions all the way round.  DOWN is scratch room for one direction per
   node.  */
static bool
removable (const pp_graph *g, const struct rooted *t, uint32_t c,
	   const bool *marked, const bool *keep, uint8_t *down)
{
  const pp_edge *chord = &g->edges[c];
  if ((keep && keep[c]) || chord->src == chord->dst)
    return false;
  uint32_t a = chord->src, b = chord->dst, ndown = 0;
  if (marked[a] || marked[b])
    return false;
  int first = -1, prev = -1;	/* directions walked: 1 forwards, 0 backwards */
  while (a != b)
    {
      bool from_a = t->depth[a] >= t->depth[b];
      uint32_t v = from_a ? a : b;
      uint32_t e = t->parent_edge[v];
      if (e == NONE || (keep && keep[e]))
	return false;
      uint32_t p = parent_of (g, t, v);
      if (marked[p])
	return false;
      bool v_to_p = g->edges[e].src == v;
      if (from_a)
	{
	  /* Walked v -> p, in path order.  */
	  int dir = v_to_p;
	  if (prev == dir)
	    return false;
	  if (first < 0)
	    first = dir;
	  prev = dir;
	  a = p;
	}
      else
	{
	  /* Walked p -> v, after the source side, in reverse order.  */
	  down[ndown++] = !v_to_p;
	  b = p;
	}
    }
  while (ndown > 0)
    {
      int dir = down[--ndown];
      if (prev == dir)
	return false;
      if (first < 0)
	first = dir;
      prev = dir;
    }
  /* The chord, walked from its destination to its source: backwards (0).  */
  return prev == 1 && first == 1;
}

/* Marks the vertices of chord C's tree cycle.  */
static void
mark_cycle (const pp_graph *g, const struct rooted *t, uint32_t c, bool *marked)
{
  uint32_t a = g->edges[c].src, b = g->edges[c].dst;
  marked[a] = marked[b] = true;
  while (a != b)
    {
      if (t->depth[a] >= t->depth[b])
	a = parent_of (g, t, a);
      else
	b = parent_of (g, t, b);
      marked[a] = marked[b] = true;
    }
}

struct by_weight
{
  double weight;
  uint32_t edge;
};

static int
heavier_first (const void *pa, const void *pb)
{
  const struct by_weight *a = pa, *b = pb;
  if (a->weight != b->weight)
    return a->weight > b->weight ? -1 : 1;
  return a->edge < b->edge ? -1 : a->edge > b->edge;
}

int
pp_plan_vertex_counters (const pp_graph *g, const double *w, const bool *keep,
			 int32_t *counter_of_edge, int *pinned_chords,
			 uint32_t *removed)
{
  size_t m = g->nedges ? g->nedges : 1, n = g->nnodes ? g->nnodes : 1;
  bool *on_tree = pp_calloc (m, sizeof *on_tree);
  bool *marked = pp_calloc (n, sizeof *marked);
  uint8_t *down = pp_malloc (n);
  struct by_weight *chords = pp_malloc (m * sizeof *chords);
  struct rooted t = { NULL, NULL };
  int status = -1;
  if (!on_tree || !marked || !down || !chords)
    goto out;
  int stuck = pp_max_spanning_tree (g, w, on_tree);
  if (stuck < 0 || root_tree (g, on_tree, &t))
    goto out;
  *pinned_chords = stuck;
  *removed = 0;

  /* A pinned chord has no counter already: its cycle's vertices are taken.  */
  uint32_t nchords = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      if (on_tree[e])
	continue;
      if (g->edges[e].flags & PP_EDGE_PINNED)
	mark_cycle (g, &t, e, marked);
      else
	chords[nchords++] = (struct by_weight) { isnan (w[e]) ? -HUGE_VAL : w[e], e };
    }
  pp_sort (chords, nchords, sizeof *chords, heavier_first);
  bool *counted = on_tree;	/* reused: true = no counter */
  for (uint32_t i = 0; i < nchords; i++)
    {
      uint32_t e = chords[i].edge;
      if (removable (g, &t, e, marked, keep, down))
	{
	  mark_cycle (g, &t, e, marked);
	  counted[e] = true;
	  (*removed)++;
	}
    }
  int32_t next = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    counter_of_edge[e] = counted[e] || (g->edges[e].flags & PP_EDGE_PINNED)
			 ? -1 : next++;
  status = next;

out:
  pp_free (on_tree);
  pp_free (marked);
  pp_free (down);
  pp_free (chords);
  pp_free (t.parent_edge);
  pp_free (t.depth);
  return status;
}

int
pp_propagate_vertex_counts (const pp_graph *g, const int32_t *counter_of_edge,
			    const uint64_t *counters, uint64_t *counts)
{
  size_t m = g->nedges ? g->nedges : 1;
  double *w = pp_malloc (m * sizeof *w);
  bool *on_tree = pp_malloc (m * sizeof *on_tree);
  int32_t *with_breaks = pp_malloc (m * sizeof *with_breaks);
  uint32_t ncounters = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (counter_of_edge[e] >= 0 && (uint32_t) counter_of_edge[e] >= ncounters)
      ncounters = (uint32_t) counter_of_edge[e] + 1;
  uint64_t *values = pp_malloc ((ncounters + 1) * sizeof *values);
  int status = -1;
  if (!w || !on_tree || !with_breaks || !values)
    goto out;
  /* A spanning forest that takes every unmeasured edge it can: Kruskal with the
     measured edges lightest (NaN).  An unmeasured edge left off closes a cycle of
     unmeasured edges: it is a break, counted 0.  */
  for (uint32_t e = 0; e < g->nedges; e++)
    w[e] = counter_of_edge[e] >= 0 ? NAN : 1;
  if (pp_max_spanning_tree (g, w, on_tree) < 0)
    goto out;
  memcpy (values, counters, ncounters * sizeof *values);
  values[ncounters] = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    with_breaks[e] = counter_of_edge[e] >= 0 ? counter_of_edge[e]
		     : on_tree[e] ? -1 : (int32_t) ncounters;
  status = pp_propagate_counts_modular (g, with_breaks, values, counts);

out:
  pp_free (w);
  pp_free (on_tree);
  pp_free (with_breaks);
  pp_free (values);
  return status;
}
