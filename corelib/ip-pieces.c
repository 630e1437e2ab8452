/* A procedure's pieces of interprocedural paths (interproc.h, "Pieces").

   Why.  libprof counts a context or piecewise path as a chain of nodes,
   each the sums A and B of the Melski-Reps values <a, b> of the edges the
   path took in one activation since its last node.  Those values are
   whole-program numbers: SQLite's pass 64 bits on most edges of the
   procedures that matter, which then cannot be added in place.  A piece
   number names the same edges with a number of the procedure alone: a
   Ball-Larus number of the piece graph below, which fits 62 bits wherever
   the procedure's own paths between calls do, so the code adds it in place;
   the dump decodes each piece into its edges and sums their values in GMP.

   The piece graph of procedure p: its G*_fin edges (interproc.h), with a
   source SRC and a sink SINK.  SRC's edges, in this order: to ENTRY (value
   0: an activation starts with its sums at 0), to GENTRY (piecewise), to the
   return vertex of each non-recursive site of p in vertex order (where the
   caller goes on after a callee's segment).  SINK's edges: from EXIT, from
   GEXIT, and from the call vertex of each non-recursive site (where the
   callee continues the path), each the first edge out of its vertex, so of
   value 0: a piece ends without an add.  Every other vertex keeps its G*_fin
   edges in their order, so the first edge out of a vertex that is no call
   vertex has value 0 here as in G*_fin (ip-notes.h pp_ip_zero_edges: the
   planner puts no probe there).  G*_fin within a procedure is acyclic, and
   so is the piece graph.

   A piece is a path from SRC to SINK; its number is the sum of its edges'
   values (Ball and Larus: an edge's value is the number of pieces from the
   targets of the edges before it out of its source), so the pieces are
   numbered 0 .. npieces - 1, once each, and a prefix's sum never exceeds
   its piece's number.  */

#include <string.h>

#include "format/alloc.h"
#include "interproc.h"

#define NONE UINT32_MAX
#define LIMIT ((uint64_t) 1 << 62)

/* Whether v has an edge to SINK (the first out of it).  */
static bool
ends_piece (const pp_ip_proc *ip, uint32_t v)
{
  return v == ip->exit || v == ip->gexit || ip->call_at[v] != NONE;
}

/* count[v]: pieces from v to SINK (LIMIT when LIMIT or more); val[k] of
   each edge out of v.  Reverse topological order by an iterative depth-first
   search.  Returns PP_IP_OK, PP_IP_ENOMEM, or PP_IP_EGRAPH for a cycle.  */
static int
count_from (const pp_ip_proc *ip, uint64_t *count, uint64_t *val)
{
  uint32_t nv = ip->nnodes;
  uint8_t *state = pp_calloc (nv + 1, 1);	/* 0 new, 1 open, 2 done */
  uint32_t *stack = pp_malloc ((nv + 1) * sizeof *stack);
  uint32_t *next = pp_malloc ((nv + 1) * sizeof *next);
  int rc = state && stack && next ? PP_IP_OK : PP_IP_ENOMEM;
  for (uint32_t root = 0; rc == PP_IP_OK && root < nv; root++)
    {
      if (state[root])
	continue;
      uint32_t depth = 0;
      stack[depth++] = root;
      state[root] = 1;
      next[root] = ip->out_start[root];
      while (depth > 0 && rc == PP_IP_OK)
	{
	  uint32_t v = stack[depth - 1];
	  if (next[v] < ip->out_start[v + 1])
	    {
	      uint32_t w = ip->edges[next[v]++].dst;
	      if (state[w] == 1)
		rc = PP_IP_EGRAPH;
	      else if (state[w] == 0)
		{
		  state[w] = 1;
		  next[w] = ip->out_start[w];
		  stack[depth++] = w;
		}
	      continue;
	    }
	  uint64_t c = ends_piece (ip, v);
	  for (uint32_t k = ip->out_start[v]; k < ip->out_start[v + 1]; k++)
	    {
	      val[k] = c;
	      c += count[ip->edges[k].dst];
	      if (c > LIMIT)
		c = LIMIT;
	    }
	  count[v] = c;
	  state[v] = 2;
	  depth--;
	}
    }
  pp_free (state);
  pp_free (stack);
  pp_free (next);
  return rc;
}

int
pp_ip_pieces_number (const pp_ip_numbering *n, uint32_t p, pp_ip_pieces *out)
{
  const pp_ip_proc *ip = &n->procs[p];
  memset (out, 0, sizeof *out);
  out->val = pp_malloc ((ip->nedges + 1) * sizeof *out->val);
  out->count = pp_malloc ((ip->nnodes + 1) * sizeof *out->count);
  out->start = pp_malloc ((ip->nnodes + 1) * sizeof *out->start);
  out->starts = pp_malloc ((ip->nnodes + 1) * sizeof *out->starts);
  if (!out->val || !out->count || !out->start || !out->starts)
    {
      pp_ip_pieces_free (out);
      return PP_IP_ENOMEM;
    }
  int rc = count_from (ip, out->count, out->val);
  if (rc != PP_IP_OK)
    {
      pp_ip_pieces_free (out);
      return rc;
    }
  for (uint32_t v = 0; v < ip->nnodes; v++)
    out->start[v] = UINT64_MAX;
  /* SRC's edges in their order: ENTRY, GENTRY, the return vertices.  */
  uint64_t total = 0;
  for (uint32_t v = 0; v < ip->nnodes + 2 && total < LIMIT; v++)
    {
      uint32_t u = v == 0 ? ip->entry : v == 1 ? ip->gentry
		   : ip->call_at[v - 2] != NONE ? n->calls[ip->call_at[v - 2]].ret : NONE;
      if (u == NONE)
	continue;
      out->starts[out->nstarts++] = u;
      out->start[u] = total;
      total += out->count[u];
    }
  out->npieces = total < LIMIT ? total : 0;
  return PP_IP_OK;
}

void
pp_ip_pieces_free (pp_ip_pieces *pc)
{
  pp_free (pc->val);
  pp_free (pc->count);
  pp_free (pc->start);
  pp_free (pc->starts);
  memset (pc, 0, sizeof *pc);
}

int
pp_ip_piece_decode (const pp_ip_numbering *n, uint32_t p, const pp_ip_pieces *pc,
		    uint64_t piece, pp_ip_piece_fn *fn, void *ctx)
{
  const pp_ip_proc *ip = &n->procs[p];
  if (piece >= pc->npieces)
    return -1;
  /* The last start at or below PIECE (ENTRY's is 0).  */
  uint32_t lo = 0, hi = pc->nstarts;
  while (hi - lo > 1)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (pc->start[pc->starts[mid]] <= piece)
	lo = mid;
      else
	hi = mid;
    }
  uint32_t v = pc->starts[lo];
  piece -= pc->start[v];
  for (;;)
    {
      if (ends_piece (ip, v) && piece == 0)
	return 0;
      uint32_t next = NONE;
      for (uint32_t k = ip->out_start[v]; k < ip->out_start[v + 1] && next == NONE; k++)
	if (pc->val[k] <= piece && piece - pc->val[k] < pc->count[ip->edges[k].dst])
	  next = k;
      if (next == NONE)
	return -1;
      piece -= pc->val[next];
      fn (ctx, next);
      v = ip->edges[next].dst;
    }
}
