/* What each edge of a root's supergraph does to the root's registers
   (segments.h, "Actions"): the numbering's values moved onto the chords.

   Why it is right.  paths.h numbers a segment by the sum of dag_val along
   its DAG edges, from its start's value (0 at ENTRY, a loop head's START
   edge value elsewhere).  Take any potential phi on S's nodes and let every
   edge u -> v add val + phi (u) - phi (v), a segment that starts at v begin
   with its start's value less phi (v), and a cut u -> h end with r + val +
   phi (u): along a segment v0 .. vn the phis cancel pairwise (telescoping),
   so the end is the same number, whatever phi.  Choosing phi (v) = phi (u)
   + val along each edge of the plugin's spanning forest (PP_SEG_ROLE_TREE)
   makes those edges add 0, so they need no probe; phi is 0 at EXIT (whose
   tree then ends every segment at EXIT with r itself) and at one node of
   each other tree.  The sums are modulo 2^63 (numbers fit 63 bits), so an
   add never sets the top bit, which libprof uses to mark a cut.  The
   preferential register q moves the same way with its own potential,
   modulo 2^64 as pp_ppp's weights are.  test-segments checks, for every
   segment of random supergraphs, that these actions give its number (and,
   for the interesting ones, q its slot).  */

#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "ppp.h"
#include "segments.h"

void
pp_seg_actions_free (pp_seg_actions *a)
{
  pp_free (a->op);
  pp_free (a->val2);
  pp_free (a->start_r);
  memset (a, 0, sizeof *a);
}

/* Each edge's action and each node's start, straight from the numbering.  */
static void
from_numbering (const pp_seg_graph *s, const pp_paths *p, const pp_ppp *ppp,
		pp_seg_actions *a)
{
  const pp_graph *g = &s->g;
  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      uint32_t st = p->start_of_node[v];
      a->start_r[v] = a->start_first[v]
	= v == g->entry ? 0 : st == PP_PATH_NONE ? PP_SEG_NOSTART : p->dag_val[st];
      a->start_q[v] = ppp && st != PP_PATH_NONE ? ppp->dag_weight[st] : 0;
    }
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      pp_seg_op *o = &a->op[e];
      uint32_t d = p->dag_of_edge[e];
      uint8_t kind;
      switch (p->role[e])
	{
	case PP_PATH_ROLE_DAG:
	  kind = PP_SEG_OP_ADD;
	  break;
	case PP_PATH_ROLE_BACK:
	case PP_PATH_ROLE_CUT:
	  kind = PP_SEG_OP_CUT;
	  break;
	case PP_PATH_ROLE_START:
	  kind = PP_SEG_OP_SET;
	  break;
	case PP_PATH_ROLE_LOST:
	case PP_PATH_ROLE_DEAD:
	  kind = PP_SEG_OP_LOST;
	  break;
	default:
	  kind = PP_SEG_OP_NONE;
	}
      if (kind != PP_SEG_OP_NONE && kind != PP_SEG_OP_LOST && d == PP_PATH_NONE)
	kind = PP_SEG_OP_LOST;	/* an edge on no path */
      *o = (pp_seg_op) { .kind = kind };
      if (kind == PP_SEG_OP_ADD || kind == PP_SEG_OP_CUT)
	{
	  o->val = p->dag_val[d];
	  a->val2[e] = ppp ? ppp->dag_weight[d] : 0;
	}
      if (kind == PP_SEG_OP_CUT || kind == PP_SEG_OP_SET)
	o->to = g->edges[e].dst;
    }
  /* A leave u -> L -> EXIT is one step for the probes (the leave's edge
     u -> L): L's only way out adds 0.  */
}

/* The values off the forest (the header): potentials phi (for r) and psi
   (for q), 0 at EXIT and at one node of each other tree of the forest's
   edges.  Returns 0, or -1 when out of memory.  */
static int
move_to_chords (const pp_seg_graph *s, pp_seg_actions *a)
{
  const pp_graph *g = &s->g;
  const uint8_t *role = s->role;
  uint64_t *phi = pp_calloc (2 * (size_t) g->nnodes + 1, sizeof *phi);
  uint64_t *psi = phi + g->nnodes;
  bool *seen = pp_calloc (g->nnodes + 1, sizeof *seen);
  uint32_t *queue = pp_malloc ((g->nnodes + 1) * sizeof *queue);
  if (!phi || !seen || !queue)
    {
      pp_free (phi);
      pp_free (seen);
      pp_free (queue);
      return -1;
    }
  for (uint32_t i = 0; i <= g->nnodes; i++)
    {
      uint32_t from = i == 0 ? g->exit : i - 1;
      if (from >= g->nnodes || seen[from])
	continue;
      uint32_t n = 0;
      seen[from] = true;
      queue[n++] = from;
      for (uint32_t h = 0; h < n; h++)
	{
	  uint32_t u = queue[h];
	  for (int dir = 0; dir < 2; dir++)
	    {
	      const uint32_t *start = dir ? g->pred_start : g->succ_start;
	      const uint32_t *edges = dir ? g->pred_edges : g->succ_edges;
	      for (uint32_t k = start[u]; k < start[u + 1]; k++)
		{
		  uint32_t e = edges[k];
		  uint32_t v = dir ? g->edges[e].src : g->edges[e].dst;
		  if (role[e] != PP_SEG_ROLE_TREE || seen[v])
		    continue;
		  const pp_seg_op *o = &a->op[e];
		  uint64_t val = o->kind == PP_SEG_OP_ADD ? o->val : 0;
		  uint64_t val2 = o->kind == PP_SEG_OP_ADD ? a->val2[e] : 0;
		  /* Forwards phi (v) = phi (u) + val, backwards less.  */
		  phi[v] = dir ? phi[u] - val : phi[u] + val;
		  psi[v] = dir ? psi[u] - val2 : psi[u] + val2;
		  seen[v] = true;
		  queue[n++] = v;
		}
	    }
	}
    }
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      pp_seg_op *o = &a->op[e];
      uint32_t src = g->edges[e].src, dst = g->edges[e].dst;
      if (o->kind == PP_SEG_OP_ADD)
	{
	  o->val = (o->val + phi[src] - phi[dst]) & PP_SEG_LOW;
	  a->val2[e] += psi[src] - psi[dst];
	}
      else if (o->kind == PP_SEG_OP_CUT)
	{
	  o->val = (o->val + phi[src]) & PP_SEG_LOW;
	  a->val2[e] += psi[src];
	}
    }
  for (uint32_t v = 0; v < g->nnodes; v++)
    if (a->start_r[v] != PP_SEG_NOSTART)
      {
	a->start_r[v] = (a->start_r[v] - phi[v]) & PP_SEG_LOW;
	a->start_q[v] -= psi[v];
      }
  pp_free (phi);
  pp_free (seen);
  pp_free (queue);
  return 0;
}

int
pp_seg_actions_make (const pp_seg_graph *s, const pp_paths *p, const pp_ppp *ppp,
		     pp_seg_actions *a)
{
  const pp_graph *g = &s->g;
  memset (a, 0, sizeof *a);
  a->op = pp_calloc (g->nedges + 1, sizeof *a->op);
  a->val2 = pp_calloc (g->nedges + 1, sizeof *a->val2);
  a->start_r = pp_calloc (3 * (size_t) g->nnodes + 1, sizeof *a->start_r);
  if (!a->op || !a->val2 || !a->start_r)
    goto fail;
  a->start_q = a->start_r + g->nnodes;
  a->start_first = a->start_q + g->nnodes;
  from_numbering (s, p, ppp, a);
  if (s->role && move_to_chords (s, a))
    goto fail;
  return 0;
fail:
  pp_seg_actions_free (a);
  return -1;
}
