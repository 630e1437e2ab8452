/* The depth-k supergraph of a root procedure (segments.h).  */

#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "format/hash.h"
#include "paths-internal.h"
#include "segments.h"

/* A growable array of uint32_t.  */
struct vec
{
  uint32_t *v;
  uint32_t n, cap;
};

static int
push (struct vec *a, uint32_t x)
{
  if (PP_RESERVE (a->v, a->cap, (size_t) a->n + 1, 16))
    return -1;
  a->v[a->n++] = x;
  return 0;
}

void
pp_seg_free (pp_seg_graph *s)
{
  pp_graph_free (&s->g);
  pp_free (s->copies);
  pp_free (s->kind);
  pp_free (s->copy_of);
  pp_free (s->arg);
  pp_free (s->edge_of);
  pp_free (s->site_start);
  pp_free (s->sites);
  pp_free (s->first_call);
  pp_free (s->child);
  pp_free (s->call_edge);
  pp_free (s->return_edge);
  pp_free (s->role);
  memset (s, 0, sizeof *s);
}

uint32_t
pp_seg_site_index (const pp_seg_graph *s, uint32_t c, uint32_t site)
{
  uint32_t p = s->copies[c].proc;
  for (uint32_t j = s->site_start[p]; j < s->site_start[p + 1]; j++)
    if (pp_seg_site (s, j) == site)
      return j - s->site_start[p];
  return UINT32_MAX;
}

/* Per procedure, its call sites in program order (a counting sort, unless
   the program has them grouped already).  */
static int
sort_sites (const pp_ip_program *prog, pp_seg_graph *s)
{
  if (prog->call_start)
    {
      s->site_start = pp_malloc ((prog->nprocs + 1) * sizeof *s->site_start);
      if (!s->site_start)
	return PP_SEG_ENOMEM;
      memcpy (s->site_start, prog->call_start, (prog->nprocs + 1) * sizeof *s->site_start);
      return PP_SEG_OK;
    }
  s->site_start = pp_calloc (prog->nprocs + 1, sizeof *s->site_start);
  s->sites = pp_malloc ((prog->ncalls ? prog->ncalls : 1) * sizeof *s->sites);
  if (!s->site_start || !s->sites)
    return PP_SEG_ENOMEM;
  for (uint32_t i = 0; i < prog->ncalls; i++)
    s->site_start[prog->calls[i].proc + 1]++;
  for (uint32_t p = 0; p < prog->nprocs; p++)
    s->site_start[p + 1] += s->site_start[p];
  uint32_t *at = pp_malloc ((prog->nprocs ? prog->nprocs : 1) * sizeof *at);
  if (!at)
    return PP_SEG_ENOMEM;
  memcpy (at, s->site_start, prog->nprocs * sizeof *at);
  for (uint32_t i = 0; i < prog->ncalls; i++)
    s->sites[at[prog->calls[i].proc]++] = i;
  pp_free (at);
  return PP_SEG_OK;
}

/* The copies, breadth-first from the root, and which of them each call site
   of each copy inlines (s->child, by s->first_call).  */
static int
make_copies (const pp_ip_program *prog, uint32_t root, uint32_t k,
	     pp_seg_graph *s)
{
  uint32_t cap = 16, nodes = prog->procs[root].nnodes,
	   slots = prog->procs[root].nedges;
  struct vec child = { 0 };
  s->copies = pp_malloc (cap * sizeof *s->copies);
  if (!s->copies)
    return PP_SEG_ENOMEM;
  s->copies[0] = (pp_seg_copy) { .proc = root, .parent = UINT32_MAX,
				 .site = UINT32_MAX, .depth = 0 };
  s->ncopies = 1;
  struct vec first_call = { 0 };
  for (uint32_t i = 0; i < s->ncopies; i++)
    {
      pp_seg_copy c = s->copies[i];
      if (push (&first_call, child.n))
	goto nomem;
      for (uint32_t j = s->site_start[c.proc]; j < s->site_start[c.proc + 1]; j++)
	{
	  const pp_ip_call *site = &prog->calls[pp_seg_site (s, j)];
	  if (site->proc != c.proc || site->callee >= prog->nprocs
	      || site->call >= prog->procs[c.proc].nnodes
	      || site->ret >= prog->procs[c.proc].nnodes)
	    {
	      pp_free (first_call.v);
	      pp_free (child.v);
	      return PP_SEG_EGRAPH;
	    }
	  const pp_graph *q = &prog->procs[site->callee];
	  if (c.depth >= k || s->ncopies >= PP_SEG_MAX_COPIES
	      || q->nnodes > PP_SEG_MAX_NODES - nodes)
	    {
	      if (push (&child, UINT32_MAX))
		goto nomem;
	      continue;
	    }
	  if (PP_RESERVE (s->copies, cap, (size_t) s->ncopies + 1, 16))
	    goto nomem;
	  s->copies[s->ncopies] = (pp_seg_copy) {
	    .proc = site->callee, .parent = i, .site = pp_seg_site (s, j),
	    .depth = c.depth + 1, .first_node = nodes, .first_slot = slots };
	  nodes += q->nnodes;
	  slots += q->nedges;
	  if (push (&child, s->ncopies++))
	    goto nomem;
	}
    }
  if (push (&first_call, child.n))
    goto nomem;
  s->first_call = first_call.v;
  s->child = child.v;
  return PP_SEG_OK;
nomem:
  pp_free (first_call.v);
  pp_free (child.v);
  return PP_SEG_ENOMEM;
}

/* Appends S edge SRC -> DST with what it is, into arrays of CAP edges
   (make_copies_edges' bound, which holds every edge it adds: past it,
   UINT32_MAX rather than a write out of bounds).  */
static uint32_t
add_edge (pp_seg_graph *s, uint32_t src, uint32_t dst, uint32_t flags,
	  uint8_t kind, uint32_t copy, uint32_t arg, uint32_t cap)
{
  if (s->g.nedges >= cap)
    return UINT32_MAX;
  uint32_t e = pp_graph_add_edge (&s->g, src, dst, flags);
  if (e == UINT32_MAX)
    return e;
  s->kind[e] = kind;
  s->copy_of[e] = copy;
  s->arg[e] = arg;
  s->role[e] = 0;
  return e;
}

/* Sets CALLV[v] to ON for each call vertex v of procedure P (a vertex that
   gets a CALL or SUMMARY edge in S).  */
static void
mark_call_vertices (const pp_ip_program *prog, const pp_seg_graph *s, uint32_t p,
		    bool *callv, bool on)
{
  for (uint32_t j = s->site_start[p]; j < s->site_start[p + 1]; j++)
    callv[prog->calls[pp_seg_site (s, j)].call] = on;
}

/* Whether edge X of procedure P is a leave whose source has another way out
   in S (a call vertex, CALLV as mark_call_vertices left it: its call's
   edge; a block with successors).  */
static bool
is_shared_leave (const pp_ip_program *prog, const bool *callv, uint32_t p,
		 const pp_edge *x)
{
  const pp_graph *g = &prog->procs[p];
  return (x->flags & PP_EDGE_FAKE) && x->dst == g->exit && x->src != g->entry
	 && pp_graph_out_degree (g, x->src) + callv[x->src] > 1;
}

/* make_edges' second half, once S's nodes are counted: NNODES, the first
   leave node LEAVE_NODE; CALLV all false, for is_shared_leave.  */
static int
make_copies_edges (const pp_ip_program *prog, pp_seg_graph *s, uint32_t nnodes,
		   uint32_t leave_node, bool *callv)
{
  const pp_seg_copy *last = &s->copies[s->ncopies - 1];
  uint32_t nslots = last->first_slot + prog->procs[last->proc].nedges;
  const pp_graph *rg = &prog->procs[s->copies[0].proc];
  uint32_t ncalls = s->first_call[s->ncopies];
  /* At most an edge a procedure edge, one more a shared leave (a node
     past LEAVE_NODE each) and two a call: allocated once.  */
  uint64_t most = (uint64_t) nslots + (nnodes - leave_node) + 2 * (uint64_t) ncalls;
  if (most >= UINT32_MAX / 2)
    return PP_SEG_ENOMEM;	/* as pp_graph_add_edge would fail */
  uint32_t cap = most ? most : 1;
  s->kind = pp_malloc (cap * sizeof *s->kind);
  s->copy_of = pp_malloc (cap * sizeof *s->copy_of);
  s->arg = pp_malloc (cap * sizeof *s->arg);
  s->role = pp_malloc (cap * sizeof *s->role);
  s->edge_of = pp_malloc ((nslots ? nslots : 1) * sizeof *s->edge_of);
  s->call_edge = pp_malloc ((ncalls ? ncalls : 1) * sizeof *s->call_edge);
  s->return_edge = pp_malloc ((ncalls ? ncalls : 1) * sizeof *s->return_edge);
  if (!s->kind || !s->copy_of || !s->arg || !s->role || !s->edge_of || !s->call_edge
      || !s->return_edge
      || pp_graph_init (&s->g, nnodes, rg->entry, rg->exit)
      || pp_graph_reserve (&s->g, cap))
    return PP_SEG_ENOMEM;
  for (uint32_t i = 0; i < s->ncopies; i++)
    {
      const pp_seg_copy *c = &s->copies[i];
      const pp_graph *g = &prog->procs[c->proc];
      mark_call_vertices (prog, s, c->proc, callv, true);
      for (uint32_t e = 0; e < g->nedges; e++)
	{
	  const pp_edge *x = &g->edges[e];
	  uint32_t src = c->first_node + x->src, dst = c->first_node + x->dst;
	  s->edge_of[c->first_slot + e] = UINT32_MAX;
	  if (i != 0 && (x->flags & PP_EDGE_EXIT_ENTRY))
	    continue;
	  if (is_shared_leave (prog, callv, c->proc, x))
	    {
	      uint32_t l = leave_node++;
	      uint32_t se = add_edge (s, src, l, x->flags & ~PP_EDGE_FAKE,
				      PP_SEG_EDGE, i, e, cap);
	      if (se == UINT32_MAX
		  || add_edge (s, l, s->g.exit, x->flags, PP_SEG_LEAVE, i, e,
			       cap) == UINT32_MAX)
		return PP_SEG_ENOMEM;
	      s->edge_of[c->first_slot + e] = se;
	      continue;
	    }
	  if (i != 0 && (x->flags & PP_EDGE_FAKE))
	    {
	      if (x->src == g->entry)
		src = s->g.entry;
	      else
		dst = s->g.exit;
	    }
	  uint32_t se = add_edge (s, src, dst, x->flags, PP_SEG_EDGE, i, e, cap);
	  if (se == UINT32_MAX)
	    return PP_SEG_ENOMEM;
	  s->edge_of[c->first_slot + e] = se;
	  if (prog->edge_role && !(x->flags & PP_EDGE_EXIT_ENTRY))
	    s->role[se] = prog->edge_role[c->proc][e];
	}
      mark_call_vertices (prog, s, c->proc, callv, false);
      for (uint32_t j = s->site_start[c->proc]; j < s->site_start[c->proc + 1]; j++)
	{
	  uint32_t site = pp_seg_site (s, j), slot = s->first_call[i] + j - s->site_start[c->proc];
	  const pp_ip_call *call = &prog->calls[site];
	  uint32_t cv = c->first_node + call->call, rv = c->first_node + call->ret;
	  uint32_t child = s->child[slot];
	  if (child == UINT32_MAX)
	    {
	      s->call_edge[slot] = add_edge (s, cv, rv, 0, PP_SEG_SUMMARY, i, site, cap);
	      s->return_edge[slot] = UINT32_MAX;
	      if (s->call_edge[slot] == UINT32_MAX)
		return PP_SEG_ENOMEM;
	      continue;
	    }
	  const pp_seg_copy *q = &s->copies[child];
	  const pp_graph *qg = &prog->procs[q->proc];
	  s->call_edge[slot] = add_edge (s, cv, q->first_node + qg->entry, 0,
					 PP_SEG_CALL, i, site, cap);
	  s->return_edge[slot] = add_edge (s, q->first_node + qg->exit, rv, 0,
					   PP_SEG_RETURN, i, site, cap);
	  if (s->call_edge[slot] == UINT32_MAX || s->return_edge[slot] == UINT32_MAX)
	    return PP_SEG_ENOMEM;
	}
    }
  return pp_graph_finish (&s->g) ? PP_SEG_ENOMEM : PP_SEG_OK;
}

/* S's edges, copy by copy: the copy's graph edges in order (the fake ones of
   an inlined copy from S's ENTRY or to S's EXIT; a leave whose source has
   another way out u -> L, then L -> EXIT), then its call sites'.  */
static int
make_edges (const pp_ip_program *prog, pp_seg_graph *s)
{
  const pp_seg_copy *last = &s->copies[s->ncopies - 1];
  uint32_t nnodes = last->first_node + prog->procs[last->proc].nnodes;
  uint32_t leave_node = nnodes, most = 1;
  for (uint32_t i = 0; i < s->ncopies; i++)
    if (prog->procs[s->copies[i].proc].nnodes > most)
      most = prog->procs[s->copies[i].proc].nnodes;
  bool *callv = pp_calloc (most, sizeof *callv);	/* all false between copies */
  if (!callv)
    return PP_SEG_ENOMEM;
  for (uint32_t i = 0; i < s->ncopies; i++)
    {
      uint32_t p = s->copies[i].proc;
      const pp_graph *g = &prog->procs[p];
      mark_call_vertices (prog, s, p, callv, true);
      for (uint32_t e = 0; e < g->nedges; e++)
	nnodes += is_shared_leave (prog, callv, p, &g->edges[e]);
      mark_call_vertices (prog, s, p, callv, false);
    }
  int status = make_copies_edges (prog, s, nnodes, leave_node, callv);
  pp_free (callv);
  return status;
}

int
pp_seg_build (const pp_ip_program *prog, uint32_t root, uint32_t k,
	      pp_seg_graph *out)
{
  memset (out, 0, sizeof *out);
  if (root >= prog->nprocs)
    return PP_SEG_EGRAPH;
  for (uint32_t i = 0; !prog->call_start && i < prog->ncalls; i++)
    if (prog->calls[i].proc >= prog->nprocs)
      return PP_SEG_EGRAPH;	/* the sites a copy takes are checked there */
  out->depth = k;
  int rc = sort_sites (prog, out);
  if (rc == PP_SEG_OK)
    rc = make_copies (prog, root, k, out);
  if (rc == PP_SEG_OK)
    rc = make_edges (prog, out);
  if (rc == PP_SEG_OK && !prog->edge_role)
    {
      pp_free (out->role);
      out->role = NULL;
    }
  if (rc != PP_SEG_OK)
    pp_seg_free (out);
  return rc;
}

int
pp_seg_build_numbered (const pp_ip_program *prog, uint32_t root, uint32_t k,
		       pp_seg_graph *s, pp_paths **out)
{
  *out = NULL;
  int rc = pp_seg_build (prog, root, k, s);
  if (rc != PP_SEG_OK)
    return rc;
  int n = pp_seg_number (s, out);
  if (n == PP_PATHS_OK)
    return PP_SEG_OK;
  pp_seg_free (s);
  return n == PP_PATHS_ENOMEM ? PP_SEG_ENOMEM : PP_SEG_EGRAPH;
}

uint64_t
pp_seg_checksum (const pp_seg_graph *s, const uint64_t *cfg_checksum)
{
  uint64_t h = pp_hash64 (&s->depth, sizeof s->depth, PP_HASH_SEED);
  h = pp_hash64 (&s->g.nnodes, sizeof s->g.nnodes, h);
  for (uint32_t c = 0; c < s->ncopies; c++)
    {
      uint64_t x[2] = { s->copies[c].first_node | (uint64_t) s->copies[c].parent << 32,
			cfg_checksum[s->copies[c].proc] };
      h = pp_hash64 (x, sizeof x, h);
    }
  for (uint32_t e = 0; e < s->g.nedges; e++)
    {
      const pp_edge *x = &s->g.edges[e];
      uint32_t w[4] = { x->src, x->dst, (x->flags & PP_EDGE_CFG_FLAGS)
			| (uint32_t) (s->role ? s->role[e] : 0) << 24,
			s->kind[e] | s->copy_of[e] << 8 };
      h = pp_hash64 (w, sizeof w, h);
    }
  return h;
}

/* Is S edge E a leave's u -> L (L's only way out the LEAVE to EXIT)?  No
   region cut goes there: the process ends past it (in a call that does
   not return, which a compiled root's record must end with one number,
   plan.c call_leave).  */
static bool
into_leave (const pp_seg_graph *s, uint32_t e)
{
  uint32_t l = s->g.edges[e].dst;
  return s->g.succ_start[l + 1] - s->g.succ_start[l] == 1
	 && s->kind[s->g.succ_edges[s->g.succ_start[l]]] == PP_SEG_LEAVE;
}

int
pp_seg_number (const pp_seg_graph *s, pp_paths **out)
{
  return pp_seg_number_max (s, PP_PATHS_MAX, out);
}

int
pp_seg_number_max (const pp_seg_graph *s, uint64_t max_paths, pp_paths **out)
{
  struct pp_paths_build b;
  int status;
  *out = NULL;
  if (s->role)
    {
      bool *cut = pp_malloc ((s->g.nedges + 1) * sizeof *cut);
      bool *keep = pp_malloc ((s->g.nedges + 1) * sizeof *keep);
      if (!cut || !keep)
	{
	  pp_free (cut);
	  pp_free (keep);
	  return PP_PATHS_ENOMEM;
	}
      for (uint32_t e = 0; e < s->g.nedges; e++)
	{
	  cut[e] = s->role[e] == PP_SEG_ROLE_CUT;
	  keep[e] = s->role[e] == PP_SEG_ROLE_TREE || into_leave (s, e);
	}
      status = pp_paths_build_number_given (&b, &s->g, cut, keep, max_paths);
      pp_free (cut);
      pp_free (keep);
    }
  else
    status = pp_paths_build_number (&b, &s->g, NULL, max_paths,
				    PP_PATHS_MAY_CUT | PP_PATHS_ROUGH);
  if (status == PP_PATHS_OK)
    {
      *out = b.p;
      b.p = NULL;
    }
  pp_paths_build_free (&b);
  return status;
}
