/* The branch streams' machine (branch-layout.h).  */

#include <stdbool.h>
#include <stdlib.h>

#include "branch-layout.h"
#include "trace.h"

uint32_t *
branch_layout_order (const pp_graph *g)
{
  uint32_t *rpo = malloc ((g->nnodes + 1) * sizeof *rpo);
  uint32_t *stack = malloc ((g->nnodes + 1) * sizeof *stack);
  uint32_t *next = calloc (g->nnodes + 1, sizeof *next);
  bool *seen = calloc (g->nnodes + 1, sizeof *seen);
  if (!rpo || !stack || !next || !seen)
    {
      free (rpo);
      rpo = NULL;
      goto out;
    }
  uint32_t n = g->nnodes, top = 0;
  for (uint32_t v = 0; v < g->nnodes; v++)
    rpo[v] = UINT32_MAX;
  stack[top++] = g->entry;
  seen[g->entry] = true;
  while (top)
    {
      uint32_t v = stack[top - 1];
      if (next[v] < pp_graph_out_degree (g, v))
	{
	  uint32_t e = g->succ_edges[g->succ_start[v] + next[v]++];
	  uint32_t w = g->edges[e].dst;
	  if (pp_trace_real_edge (g, e) && !seen[w])
	    {
	      seen[w] = true;
	      stack[top++] = w;
	    }
	  continue;
	}
      rpo[v] = --n;
      top--;
    }
  /* Blocks reached only by re-entries go after the others.  */
  uint32_t k = g->nnodes - n;
  for (uint32_t v = 0; v < g->nnodes; v++)
    rpo[v] = rpo[v] == UINT32_MAX ? k++ : rpo[v] - n;
out:
  free (stack);
  free (next);
  free (seen);
  return rpo;
}

enum branch_kind
branch_layout_kind (const pp_graph *g, const uint32_t *order, uint32_t e)
{
  uint32_t src = g->edges[e].src, dst = g->edges[e].dst;
  if (src == g->entry || dst == g->exit || !pp_trace_real_edge (g, e))
    return BRANCH_NONE;
  uint32_t n = pp_trace_real_out_degree (g, src);
  bool next = order[dst] == order[src] + 1;
  if (n > 2)
    return BRANCH_INDIRECT;
  if (n == 2)
    return next ? BRANCH_COND_NOT_TAKEN : BRANCH_COND_TAKEN;
  return next ? BRANCH_NONE : BRANCH_JUMP;
}

const char *
branch_kind_name (enum branch_kind k)
{
  static const char *const names[] = { "", "ct", "cn", "j", "ij" };
  return names[k];
}
