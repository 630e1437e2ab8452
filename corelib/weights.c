/* Edge weightings for the maximum spanning tree: the Ball-Larus structural
   heuristic (Ball & Larus 1994, section 5) and the uniform weighting.  */

#include <stdlib.h>

#include "format/alloc.h"
#include "edgeprof.h"

/* Each loop is assumed to iterate this many times per entry.  */
#define LOOP_MULTIPLIER 10.0
/* Deeply nested loops multiply weights by 10 per level; clamping keeps every weight
   finite (and sums of a few of them too) so that comparisons stay meaningful.  */
#define WEIGHT_CAP 1e300

static double
capped (double x)
{
  return x > WEIGHT_CAP ? WEIGHT_CAP : x;
}

static bool
is_closing_edge (const pp_graph *g, uint32_t e)
{
  return (g->edges[e].flags & PP_EDGE_EXIT_ENTRY) != 0;
}

/* Everything the heuristic derives from the graph before weighting it.  */
struct structure
{
  bool *reached;			/* reached from ENTRY */
  bool *is_back;		/* DFS back edge */
  bool *is_loop_exit;		/* in loop-exits(y) for some loop-entry y */
  uint32_t *rpo;		/* reached nodes in reverse DFS postorder */
  uint32_t nreached;
  /* loop-exits(y) is loop_exits[exits_begin[y] .. exits_end[y]-1]; empty ranges for
     nodes that are not loop entries.  */
  size_t *exits_begin, *exits_end;
  uint32_t *loop_exits;
  size_t nloop_exits, loop_exits_cap;
};

/* DFS from ENTRY for the back edges and the reverse postorder.  The closing
   EXIT -> ENTRY edge is not followed: the paper fixes its weight and does not treat
   it as a back edge.  */
static int
find_back_edges (const pp_graph *g, struct structure *s)
{
  pp_dfs d;
  if (pp_dfs_init (&d, g, PP_DFS_SUCCS, PP_EDGE_EXIT_ENTRY, NULL, NULL) != 0)
    return -1;
  pp_dfs_step step;
  pp_dfs_root (&d, g->entry);
  while (pp_dfs_next (&d, &step))
    if (step.event == PP_DFS_BACK)
      s->is_back[step.edge] = true;
  s->nreached = d.npost;
  for (uint32_t i = 0; i < d.npost; i++)
    {
      s->rpo[i] = d.postorder[d.npost - 1 - i];
      s->reached[s->rpo[i]] = true;
    }
  pp_dfs_free (&d);
  return 0;
}

static int
append_loop_exit (struct structure *s, uint32_t e)
{
  if (PP_RESERVE (s->loop_exits, s->loop_exits_cap, s->nloop_exits + 1, 64))
    return -1;
  s->loop_exits[s->nloop_exits++] = e;
  return 0;
}

/* nat-loop(y) = {y} + every node with a directed path to the source of a back edge
   into y that avoids y, found by walking predecessors backwards from those sources.
   Only nodes reached from ENTRY take part: unreachable code is not in any loop.  The
   cost is the total size of all loops, O(|V| * nesting depth).  */
static int
find_loop_exits (const pp_graph *g, struct structure *s)
{
  uint32_t *in_loop_of = pp_calloc (g->nnodes, sizeof *in_loop_of);
  uint32_t *members = pp_malloc ((size_t) g->nnodes * sizeof *members);
  if (!in_loop_of || !members)
    {
      pp_free (in_loop_of);
      pp_free (members);
      return -1;
    }
  int status = 0;
  for (uint32_t i = 0; i < s->nreached && status == 0; i++)
    {
      uint32_t y = s->rpo[i];
      /* Loops are stamped with 1 + the header's rpo position, so no reset needed.  */
      uint32_t stamp = i + 1;
      uint32_t nmembers = 0;
      for (uint32_t k = g->pred_start[y]; k < g->pred_start[y + 1]; k++)
	{
	  uint32_t e = g->pred_edges[k];
	  if (!s->is_back[e])
	    continue;
	  if (nmembers == 0)
	    {
	      in_loop_of[y] = stamp;
	      members[nmembers++] = y;
	    }
	  uint32_t x = g->edges[e].src;
	  if (in_loop_of[x] != stamp)
	    {
	      in_loop_of[x] = stamp;
	      members[nmembers++] = x;
	    }
	}
      if (nmembers == 0)
	continue;		/* y is not a loop entry */
      /* members[0] is y, whose predecessors must not be walked.  */
      for (uint32_t m = 1; m < nmembers; m++)
	{
	  uint32_t w = members[m];
	  for (uint32_t k = g->pred_start[w]; k < g->pred_start[w + 1]; k++)
	    {
	      uint32_t e = g->pred_edges[k];
	      uint32_t p = g->edges[e].src;
	      if (is_closing_edge (g, e) || !s->reached[p]
		  || in_loop_of[p] == stamp)
		continue;
	      in_loop_of[p] = stamp;
	      members[nmembers++] = p;
	    }
	}
      s->exits_begin[y] = s->nloop_exits;
      for (uint32_t m = 0; m < nmembers && status == 0; m++)
	{
	  uint32_t a = members[m];
	  for (uint32_t k = g->succ_start[a]; k < g->succ_start[a + 1]; k++)
	    {
	      uint32_t e = g->succ_edges[k];
	      if (is_closing_edge (g, e) || in_loop_of[g->edges[e].dst] == stamp)
		continue;
	      s->is_loop_exit[e] = true;
	      if (append_loop_exit (s, e) != 0)
		{
		  status = -1;
		  break;
		}
	    }
	}
      s->exits_end[y] = s->nloop_exits;
    }
  pp_free (in_loop_of);
  pp_free (members);
  return status;
}

static bool
is_fake (const pp_graph *g, uint32_t e)
{
  return (g->edges[e].flags & PP_EDGE_FAKE) != 0;
}

/* The three rules of section 5, applied in one topological traversal of the
   backedge-free graph (reverse postorder).  An edge keeps the weight of the first
   rule that assigns it.  In irreducible regions a loop-exit edge can leave a node
   visited before its loop entry; it then counts as 0 until the entry assigns it, and
   the flow law does not hold exactly there (nor does it when an edge leaves several
   loops at once): the heuristic only has to rank edges.  */
static void
apply_rules (const pp_graph *g, const struct structure *s, double *w,
	     bool *exit_assigned)
{
  for (uint32_t i = 0; i < s->nreached; i++)
    {
      uint32_t v = s->rpo[i];
      /* Rule 1.  ENTRY's only non-back incoming edge is EXIT -> ENTRY, of weight 1:
	 every incoming edge from a reached node is a back edge to the DFS root.  */
      double vertex_weight = 0;
      if (v == g->entry)
	vertex_weight = 1;
      else
	for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
	  {
	    uint32_t e = g->pred_edges[k];
	    if (!s->is_back[e] && !is_closing_edge (g, e))
	      vertex_weight = capped (vertex_weight + w[e]);
	  }

      /* Rule 2.  Fake leaves (calls that might not return) are not in the
	 paper's model: they are rare, so they share only when nothing else can.  */
      size_t nexits = 0, nreal_exits = 0;
      for (size_t k = s->exits_begin[v]; k < s->exits_end[v]; k++)
	{
	  nexits++;
	  nreal_exits += !is_fake (g, s->loop_exits[k]);
	}
      for (size_t k = s->exits_begin[v]; k < s->exits_end[v]; k++)
	{
	  uint32_t e = s->loop_exits[k];
	  if (!exit_assigned[e])
	    {
	      if (nreal_exits == 0)
		w[e] = vertex_weight / nexits;
	      else
		w[e] = is_fake (g, e) ? 0 : vertex_weight / nreal_exits;
	      exit_assigned[e] = true;
	    }
	}

      /* Rule 3.  A loop entry runs LOOP_MULTIPLIER times per entry.  */
      bool is_loop_entry = false;
      for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
	if (s->is_back[g->pred_edges[k]])
	  is_loop_entry = true;
      double budget = is_loop_entry ? capped (vertex_weight * LOOP_MULTIPLIER)
				    : vertex_weight;
      double exit_weight = 0;
      uint32_t nother = 0, nreal_other = 0;
      for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	{
	  uint32_t e = g->succ_edges[k];
	  if (is_closing_edge (g, e))
	    continue;
	  if (s->is_loop_exit[e])
	    exit_weight = capped (exit_weight + w[e]);
	  else
	    {
	      nother++;
	      nreal_other += !is_fake (g, e);
	    }
	}
      if (nother == 0)
	continue;
      uint32_t nsharing = nreal_other ? nreal_other : nother;
      double share = budget > exit_weight ? (budget - exit_weight) / nsharing : 0;
      for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	{
	  uint32_t e = g->succ_edges[k];
	  if (!is_closing_edge (g, e) && !s->is_loop_exit[e])
	    w[e] = nreal_other && is_fake (g, e) ? 0 : share;
	}
    }
}

int
pp_weights_heuristic (const pp_graph *g, double *w)
{
  for (uint32_t e = 0; e < g->nedges; e++)
    w[e] = is_closing_edge (g, e) ? 1 : 0;
  if (g->entry >= g->nnodes)
    return 0;

  struct structure s = { 0 };
  size_t n = g->nnodes, m = g->nedges ? g->nedges : 1;
  s.reached = pp_calloc (n, sizeof *s.reached);
  s.is_back = pp_calloc (m, sizeof *s.is_back);
  s.is_loop_exit = pp_calloc (m, sizeof *s.is_loop_exit);
  s.rpo = pp_malloc (n * sizeof *s.rpo);
  s.exits_begin = pp_calloc (n, sizeof *s.exits_begin);
  s.exits_end = pp_calloc (n, sizeof *s.exits_end);
  bool *exit_assigned = pp_calloc (m, sizeof *exit_assigned);
  int status = -1;
  if (s.reached && s.is_back && s.is_loop_exit && s.rpo && s.exits_begin
      && s.exits_end && exit_assigned
      && find_back_edges (g, &s) == 0 && find_loop_exits (g, &s) == 0)
    {
      apply_rules (g, &s, w, exit_assigned);
      status = 0;
    }
  pp_free (s.reached);
  pp_free (s.is_back);
  pp_free (s.is_loop_exit);
  pp_free (s.rpo);
  pp_free (s.exits_begin);
  pp_free (s.exits_end);
  pp_free (s.loop_exits);
  pp_free (exit_assigned);
  return status;
}

void
pp_weights_uniform (const pp_graph *g, double *w)
{
  for (uint32_t e = 0; e < g->nedges; e++)
    w[e] = 1;
}

void
pp_weights_from_counts (const pp_graph *g, const uint64_t *counts,
			const double *est, double *w)
{
  double most = 0;
  for (uint32_t e = 0; est && e < g->nedges; e++)
    if (est[e] > most)
      most = est[e];
  for (uint32_t e = 0; e < g->nedges; e++)
    w[e] = (double) counts[e] + (most > 0 && est[e] > 0 ? est[e] / (2 * most) : 0);
}
