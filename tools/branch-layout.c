/* The branch streams' machine (branch-layout.h).  */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int
by_string (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

int
branch_names_init (branch_names *b, const char *const *names, size_t n)
{
  b->n = n;
  b->names = malloc ((n + 1) * sizeof *b->names);
  if (!b->names)
    return -1;
  memcpy (b->names, names, n * sizeof *names);
  qsort (b->names, n, sizeof *b->names, by_string);
  return 0;
}

void
branch_names_free (branch_names *b)
{
  free (b->names);
  b->names = NULL;
}

void
branch_function_name (const branch_names *b, const char *name, const char *unit,
		      char *buf, size_t len)
{
  size_t lo = 0, hi = b->n;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (strcmp (b->names[mid], name) < 0)
	lo = mid + 1;
      else
	hi = mid;
    }
  bool twice = lo + 1 < b->n && strcmp (b->names[lo + 1], name) == 0;
  const char *base = strrchr (unit, '/');
  if (twice)
    snprintf (buf, len, "%s[%s]", name, base ? base + 1 : unit);
  else
    snprintf (buf, len, "%s", name);
}
