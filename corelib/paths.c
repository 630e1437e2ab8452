/* Ball-Larus path numbering, all the tool needs and the base of the plugin's plan:
   edge roles, the DAG, exact path counts (GMP), region cuts, pp_paths_number,
   decoding and encoding.  The probe placement and pp_paths_plan are in
   paths-place.c, which builds on this file through paths-internal.h; nothing here
   calls placement.  */

#include <gmp.h>
#include <string.h>

#include "format/alloc.h"
#include "paths.h"
#include "paths-internal.h"

static bool
is_fake (const pp_graph *g, uint32_t e)
{
  return (g->edges[e].flags & PP_EDGE_FAKE) != 0;
}

static bool
is_cut (uint8_t role)
{
  return role == PP_PATH_ROLE_BACK || role == PP_PATH_ROLE_CUT;
}

static bool
follows_conventions (const pp_graph *g)
{
  if (g->entry >= g->nnodes || g->exit >= g->nnodes || g->entry == g->exit
      || !g->succ_start || !g->pred_start)
    return false;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_edge *x = &g->edges[e];
      if (x->flags & PP_EDGE_EXIT_ENTRY)
	{
	  if (x->src != g->exit || x->dst != g->entry)
	    return false;
	  continue;
	}
      if ((x->flags & PP_EDGE_ABNORMAL) || x->dst == g->entry || x->src == g->exit)
	return false;
      /* A fake edge is a leave (-> EXIT) or a re-entry (ENTRY ->), never both.  */
      if ((x->flags & PP_EDGE_FAKE) && (x->src == g->entry) == (x->dst == g->exit))
	return false;
    }
  return true;
}

/* Roles that follow from the flags and the caller's path ends; every other edge is
   a DAG candidate until the DFS looks for backedges.  */
static void
assign_fixed_roles (struct pp_paths_build *b, const bool *path_end)
{
  const pp_graph *g = b->g;
  pp_paths *p = b->p;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (is_fake (g, e) && g->edges[e].src == g->entry)
      b->reentry[g->edges[e].dst] = true;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint32_t src = g->edges[e].src, dst = g->edges[e].dst;
      uint8_t role = PP_PATH_ROLE_DAG;
      if (g->edges[e].flags & PP_EDGE_EXIT_ENTRY)
	role = PP_PATH_ROLE_CLOSING;
      else if (is_fake (g, e) && dst == g->exit)
	/* Only a leave that is the block's only way out can be counted before the
	   leaving statement.  */
	role = pp_graph_out_degree (g, src) == 1 ? PP_PATH_ROLE_DAG : PP_PATH_ROLE_LOST;
      else if (b->reentry[dst])
	/* The register is unknown after a re-entry, so every arrival at a
	   re-entry target starts a path there and the initialisation can be
	   pushed below it.  */
	role = src == g->entry ? PP_PATH_ROLE_START : PP_PATH_ROLE_CUT;
      else if (path_end && path_end[e] && src != g->entry && dst != g->exit)
	{
	  role = PP_PATH_ROLE_CUT;
	  p->path_end[e] = true;
	}
      p->role[e] = role;
    }
}

/* The DFS walks DAG edges, starts and cuts.  */
static bool
walks_edge (void *data, uint32_t e)
{
  uint8_t role = ((const pp_paths *) data)->role[e];
  return role == PP_PATH_ROLE_DAG || role == PP_PATH_ROLE_START
	 || role == PP_PATH_ROLE_CUT;
}

/* DFS from ENTRY turning retreating edges into backedges (so irreducible loops are
   broken too).  It walks cuts like any other edge, so that the backedges do not
   depend on which edges are cut: the tool, rebuilding from the recorded path ends
   (region cuts included), finds the same ones.  reach[v]: v is reachable in the
   DAG.  */
static int
find_backedges (struct pp_paths_build *b, bool *reach)
{
  const pp_graph *g = b->g;
  pp_paths *p = b->p;
  pp_dfs d;
  if (pp_dfs_init (&d, g, PP_DFS_SUCCS, 0, walks_edge, p) != 0)
    return PP_PATHS_ENOMEM;
  pp_dfs_step step;
  pp_dfs_root (&d, g->entry);
  while (pp_dfs_next (&d, &step))
    if (step.event == PP_DFS_BACK && p->role[step.edge] == PP_PATH_ROLE_DAG
	&& !b->given)
      p->role[step.edge] = PP_PATH_ROLE_BACK;
  for (uint32_t v = 0; v < g->nnodes; v++)
    reach[v] = d.pre[v] != PP_DFS_NONE;
  pp_dfs_free (&d);
  return PP_PATHS_OK;
}

/* Keeps only what lies on some ENTRY -> EXIT path of the DAG: sets useful[] and
   head[], and makes every other edge DEAD.  */
static int
find_useful (struct pp_paths_build *b, bool *reach)
{
  const pp_graph *g = b->g;
  pp_paths *p = b->p;
  bool *coreach = pp_paths_alloc (g->nnodes, sizeof *coreach);
  uint32_t *queue = pp_paths_alloc (g->nnodes, sizeof *queue);
  if (!coreach || !queue)
    {
      pp_free (coreach);
      pp_free (queue);
      return PP_PATHS_ENOMEM;
    }
  for (uint32_t v = 0; v < g->nnodes; v++)
    b->head[v] = b->reentry[v];
  for (uint32_t e = 0; e < g->nedges; e++)
    if (is_cut (p->role[e]))
      {
	if (reach[g->edges[e].src])
	  {
	    b->head[g->edges[e].dst] = true;
	    reach[g->exit] = true;	/* through the cut's end edge */
	  }
	else
	  p->role[e] = PP_PATH_ROLE_DEAD;
      }

  /* Backwards from EXIT: DAG edges, the end edges of cuts, start edges.  */
  uint32_t head = 0, tail = 0;
  coreach[g->exit] = true;
  queue[tail++] = g->exit;
  while (head < tail)
    {
      uint32_t v = queue[head++];
      for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
	{
	  uint32_t e = g->pred_edges[k], s = g->edges[e].src;
	  if (p->role[e] == PP_PATH_ROLE_DAG && reach[s] && !coreach[s])
	    {
	      coreach[s] = true;
	      queue[tail++] = s;
	    }
	}
      if (v == g->exit)
	for (uint32_t e = 0; e < g->nedges; e++)
	  {
	    uint32_t s = g->edges[e].src;
	    if (is_cut (p->role[e]) && !coreach[s])
	      {
		coreach[s] = true;
		queue[tail++] = s;
	      }
	  }
      if (b->head[v] && !coreach[g->entry])
	{
	  coreach[g->entry] = true;
	  queue[tail++] = g->entry;
	}
    }

  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      b->useful[v] = reach[v] && coreach[v];
      b->head[v] = b->head[v] && b->useful[v];
    }
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint32_t s = g->edges[e].src, t = g->edges[e].dst;
      if ((p->role[e] == PP_PATH_ROLE_DAG && !(b->useful[s] && b->useful[t]))
	  || (p->role[e] == PP_PATH_ROLE_START && !b->useful[t]))
	p->role[e] = PP_PATH_ROLE_DEAD;
    }
  pp_free (coreach);
  pp_free (queue);
  return PP_PATHS_OK;
}

static void
free_dag (pp_paths *p)
{
  pp_graph_free (&p->dag);
  pp_free (p->dag_kind);
  pp_free (p->dag_origin);
  pp_free (p->dag_val);
  p->dag_kind = NULL;
  p->dag_origin = NULL;
  p->dag_val = NULL;
}

/* The DAG from the roles: DAG edges and cut end edges in original edge order, then
   one start edge per head in node order (after ENTRY's own edges, so paths from
   the function entry get the low numbers).  */
static int
build_dag (struct pp_paths_build *b)
{
  const pp_graph *g = b->g;
  pp_paths *p = b->p;
  free_dag (p);
  uint32_t m = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    m += p->role[e] == PP_PATH_ROLE_DAG || is_cut (p->role[e]);
  for (uint32_t v = 0; v < g->nnodes; v++)
    m += b->head[v];
  p->dag_kind = pp_paths_alloc (m, sizeof *p->dag_kind);
  p->dag_origin = pp_paths_alloc (m, sizeof *p->dag_origin);
  p->dag_val = pp_paths_alloc (m, sizeof *p->dag_val);
  if (!p->dag_kind || !p->dag_origin || !p->dag_val
      || pp_graph_init (&p->dag, g->nnodes, g->entry, g->exit) != 0
      || pp_graph_reserve (&p->dag, m) != 0)
    return PP_PATHS_ENOMEM;

  for (uint32_t e = 0; e < g->nedges; e++)
    {
      p->dag_of_edge[e] = PP_PATH_NONE;
      uint8_t kind;
      uint32_t dst;
      if (p->role[e] == PP_PATH_ROLE_DAG)
	kind = PP_DAG_EDGE, dst = g->edges[e].dst;
      else if (is_cut (p->role[e]))
	kind = PP_DAG_END, dst = g->exit;
      else
	continue;
      uint32_t d = pp_graph_add_edge (&p->dag, g->edges[e].src, dst, 0);
      if (d == UINT32_MAX)
	return PP_PATHS_ENOMEM;
      p->dag_kind[d] = kind;
      p->dag_origin[d] = e;
      p->dag_of_edge[e] = d;
    }
  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      p->start_of_node[v] = PP_PATH_NONE;
      if (!b->head[v])
	continue;
      uint32_t d = pp_graph_add_edge (&p->dag, g->entry, v, 0);
      if (d == UINT32_MAX)
	return PP_PATHS_ENOMEM;
      p->dag_kind[d] = PP_DAG_START;
      p->dag_origin[d] = v;
      p->start_of_node[v] = d;
    }
  for (uint32_t e = 0; e < g->nedges; e++)
    if (p->role[e] == PP_PATH_ROLE_START)
      p->dag_of_edge[e] = p->start_of_node[g->edges[e].dst];
  return pp_graph_finish (&p->dag) == 0 ? PP_PATHS_OK : PP_PATHS_ENOMEM;
}

/* Kahn's algorithm from ENTRY.  Region cuts only replace edges by edges from ENTRY
   and into EXIT, so the order stays valid after them.  */
static int
order_topologically (struct pp_paths_build *b)
{
  const pp_graph *d = &b->p->dag;
  uint32_t *indegree = pp_paths_alloc (d->nnodes, sizeof *indegree);
  if (!indegree)
    return PP_PATHS_ENOMEM;
  for (uint32_t v = 0; v < d->nnodes; v++)
    indegree[v] = pp_graph_in_degree (d, v);
  b->ntopo = 0;
  if (b->useful[d->entry])
    b->topo[b->ntopo++] = d->entry;
  for (uint32_t i = 0; i < b->ntopo; i++)
    {
      uint32_t v = b->topo[i];
      for (uint32_t k = d->succ_start[v]; k < d->succ_start[v + 1]; k++)
	{
	  uint32_t t = d->edges[d->succ_edges[k]].dst;
	  if (--indegree[t] == 0)
	    b->topo[b->ntopo++] = t;
	}
    }
  pp_free (indegree);
  return PP_PATHS_OK;
}

static uint64_t
saturated_u64 (const mpz_t x)
{
  uint64_t v = 0;
  if (mpz_sizeinbase (x, 2) > 64)
    return UINT64_MAX;
  mpz_export (&v, NULL, -1, sizeof v, 0, 0, x);
  return v;
}

/* count_paths in 64 bits, with *FITS false as soon as a count does not fit,
   as the uncut counts of big functions do; most graphs, and every graph
   after its region cuts, fit.  */
static int
count_paths_u64 (struct pp_paths_build *b, mpz_t total, bool *fits)
{
  pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  uint64_t *npaths = pp_paths_alloc (d->nnodes, sizeof *npaths);
  if (!npaths)
    return PP_PATHS_ENOMEM;
  *fits = true;
  for (uint32_t i = b->ntopo; i-- > 0 && *fits;)
    {
      uint32_t v = b->topo[i];
      uint64_t n = v == d->exit;
      for (uint32_t k = d->succ_start[v]; k < d->succ_start[v + 1]; k++)
	{
	  uint32_t e = d->succ_edges[k], t = d->edges[e].dst;
	  p->dag_val[e] = n;
	  if (n > UINT64_MAX - npaths[t])
	    {
	      *fits = false;
	      break;
	    }
	  n += npaths[t];
	}
      npaths[v] = n;
    }
  uint64_t n = b->ntopo ? npaths[d->entry] : 0;
  mpz_import (total, 1, -1, sizeof n, 0, 0, &n);
  pp_free (npaths);
  return PP_PATHS_OK;
}

/* Ball and Larus's numPaths (paths from a node to EXIT), exactly, in reverse
   topological order, and the value of each DAG edge: the number of paths through
   the earlier successors of its source.  A node's count is freed once its last
   predecessor has read it, so chains with astronomically many paths stay cheap.
   *total receives numPaths(ENTRY); the values are meaningful when it is at most
   limit (every count is then at most the total).  In 64 bits when they fit
   (count_paths_u64), which sets the values; else only the total, in GMP:
   some count, so the total, is then past any limit, and the values are
   never read.  */
static int
count_paths (struct pp_paths_build *b, mpz_t total, bool exact)
{
  pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  bool fits;
  int status = count_paths_u64 (b, total, &fits);
  if (status != PP_PATHS_OK || fits)
    return status;
  if (!exact)
    {
      mpz_set_ui (total, 1);
      mpz_mul_2exp (total, total, 64);	/* past any limit */
      return PP_PATHS_OK;
    }
  mpz_t *npaths = pp_paths_alloc (d->nnodes, sizeof *npaths);
  uint32_t *readers = pp_paths_alloc (d->nnodes, sizeof *readers);
  if (!npaths || !readers)
    {
      pp_free (npaths);
      pp_free (readers);
      return PP_PATHS_ENOMEM;
    }
  for (uint32_t v = 0; v < d->nnodes; v++)
    readers[v] = pp_graph_in_degree (d, v);
  mpz_set_ui (total, 0);
  for (uint32_t i = b->ntopo; i-- > 0;)
    {
      uint32_t v = b->topo[i];
      mpz_init_set_ui (npaths[v], v == d->exit);
      for (uint32_t k = d->succ_start[v]; k < d->succ_start[v + 1]; k++)
	{
	  uint32_t t = d->edges[d->succ_edges[k]].dst;
	  mpz_add (npaths[v], npaths[v], npaths[t]);
	  if (--readers[t] == 0)
	    mpz_clear (npaths[t]);
	}
    }
  if (b->ntopo)
    {
      mpz_swap (total, npaths[d->entry]);
      mpz_clear (npaths[d->entry]);
    }
  pp_free (npaths);
  pp_free (readers);
  return PP_PATHS_OK;
}

static uint64_t
saturating_add (uint64_t a, uint64_t b)
{
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* What paths_after_cuts reads, per useful node in topological order (its
   position): its predecessors' positions, each marked CUTTABLE where its
   edge may be cut (not from ENTRY, not into EXIT, not kept), and whether a
   cut there starts a path that was not one (FRESH); and what it computes,
   the counts of paths from ENTRY and where it cuts.  Laid out once, so
   that an evaluation reads one word per edge.  */
#define CUTTABLE 0x80000000u	/* positions are below: PP_SEG_MAX_NODES and
				   GCC's blocks are far fewer */
struct cut_search
{
  uint32_t n, entry_at, exit_at;
  uint32_t *start, *pred;
  bool *fresh, *cut_here;
  uint64_t *prefix;
};

/* May DAG edge E into node V be a region cut: not from ENTRY, not into
   EXIT, an edge of the graph (not a start or an end), not kept?  */
static bool
cuttable_edge (const struct pp_paths_build *b, uint32_t v, uint32_t e)
{
  const pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  return v != d->exit && d->edges[e].src != d->entry && p->dag_kind[e] == PP_DAG_EDGE
	 && !(b->keep && b->keep[p->dag_origin[e]]);
}

static void
cut_search_free (struct cut_search *c)
{
  pp_free (c->start);
  pp_free (c->pred);
  pp_free (c->fresh);
  pp_free (c->cut_here);
  pp_free (c->prefix);
}

static int
cut_search_init (struct cut_search *c, const struct pp_paths_build *b)
{
  const pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  memset (c, 0, sizeof *c);
  c->n = b->ntopo;
  uint32_t *at = pp_paths_alloc (d->nnodes, sizeof *at);
  c->start = pp_paths_alloc ((size_t) c->n + 1, sizeof *c->start);
  c->pred = pp_paths_alloc (d->nedges, sizeof *c->pred);
  c->fresh = pp_paths_alloc (c->n, sizeof *c->fresh);
  c->cut_here = pp_paths_alloc (c->n, sizeof *c->cut_here);
  c->prefix = pp_paths_alloc (c->n, sizeof *c->prefix);
  if (!at || !c->start || !c->pred || !c->fresh || !c->cut_here || !c->prefix)
    {
      pp_free (at);
      cut_search_free (c);
      return PP_PATHS_ENOMEM;
    }
  memset (at, 0xff, d->nnodes * sizeof *at);	/* not useful: no position */
  for (uint32_t i = 0; i < c->n; i++)
    at[b->topo[i]] = i;
  c->entry_at = at[d->entry];
  c->exit_at = at[d->exit];
  uint32_t m = 0;
  for (uint32_t i = 0; i < c->n; i++)
    {
      uint32_t v = b->topo[i];
      c->start[i] = m;
      c->fresh[i] = p->start_of_node[v] == PP_PATH_NONE;
      if (v == d->entry)
	continue;
      for (uint32_t k = d->pred_start[v]; k < d->pred_start[v + 1]; k++)
	{
	  uint32_t e = d->pred_edges[k], s = d->edges[e].src;
	  if (at[s] != UINT32_MAX)	/* (the DAG's edges are all on paths) */
	    c->pred[m++] = at[s] | (cuttable_edge (b, v, e) ? CUTTABLE : 0);
	}
    }
  c->start[c->n] = m;
  pp_free (at);
  return PP_PATHS_OK;
}

/* The number of paths (saturated) when every node whose count of paths from
   ENTRY exceeds threshold has its cuttable in-edges cut: the paths
   reaching it then end on the cuts and it starts afresh.  Counting forwards
   decides each node from final counts of its predecessors only.  Sets
   c->cut_here[].  */
static uint64_t
paths_after_cuts (struct cut_search *c, uint64_t threshold)
{
  uint64_t ended = 0;
  for (uint32_t i = 0; i < c->n; i++)
    {
      c->cut_here[i] = false;
      if (i == c->entry_at)
	{
	  c->prefix[i] = 1;
	  continue;
	}
      uint64_t sum[2] = { 0, 0 };	/* fixed, cuttable */
      for (uint32_t k = c->start[i]; k < c->start[i + 1]; k++)
	{
	  uint32_t w = c->pred[k];
	  sum[w >> 31] = saturating_add (sum[w >> 31], c->prefix[w & ~CUTTABLE]);
	}
      if (sum[1] && saturating_add (sum[1], sum[0]) > threshold)
	{
	  c->cut_here[i] = true;
	  ended = saturating_add (ended, sum[1]);
	  c->prefix[i] = saturating_add (sum[0], c->fresh[i]);
	}
      else
	c->prefix[i] = saturating_add (sum[1], sum[0]);
    }
  return saturating_add (c->prefix[c->exit_at], ended);
}

/* Cuts the function into regions of at most limit paths in all: a
   threshold of the halving sequence limit >> i (i = 0 .. the last, where
   it is 1) whose cuts fit, the largest where the paths after cuts shrink
   with the threshold, as they nearly always do: found by bisection over
   i, from i = 0 (which most functions take) and the last (which cuts
   everything it can, and is taken even if its cuts do not fit), so that
   a supergraph whose threshold is far down evaluates about eight
   thresholds, not each in turn.  Where the paths do not shrink, a
   threshold whose cuts fit is still taken, never one whose cuts do not.  */
static int
cut_regions (struct pp_paths_build *b, uint64_t limit)
{
  pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  struct cut_search c;
  if (cut_search_init (&c, b) != PP_PATHS_OK)
    return PP_PATHS_ENOMEM;
  uint32_t last = 0;
  while (limit >> last > 1)
    last++;
  /* cut_here is left by the last evaluation: good's, once it ends.  */
  uint32_t good = 0, at = 0;
  if (paths_after_cuts (&c, limit) > limit && last > 0)
    {
      uint32_t bad = 0;
      good = at = last;
      if (paths_after_cuts (&c, limit >> last) <= limit)
	while (good - bad > 1)
	  {
	    at = (good + bad) / 2;
	    if (paths_after_cuts (&c, limit >> at) <= limit)
	      good = at;
	    else
	      bad = at;
	  }
      if (at != good)
	paths_after_cuts (&c, limit >> good);
    }
  for (uint32_t i = 0; i < b->ntopo; i++)
    {
      uint32_t v = b->topo[i];
      if (!c.cut_here[i])
	continue;
      for (uint32_t k = d->pred_start[v]; k < d->pred_start[v + 1]; k++)
	{
	  uint32_t e = d->pred_edges[k];
	  if (!cuttable_edge (b, v, e))
	    continue;
	  p->role[p->dag_origin[e]] = PP_PATH_ROLE_CUT;
	  p->path_end[p->dag_origin[e]] = true;
	  p->nregion_cuts++;
	}
      b->head[v] = true;
    }
  cut_search_free (&c);
  return build_dag (b);
}

static char *
decimal (const mpz_t x)
{
  char *s = pp_malloc (mpz_sizeinbase (x, 10) + 2);
  if (s)
    mpz_get_str (s, 10, x);
  return s;
}

/* Whether the topological order holds every useful node (none is on a
   cycle of the DAG).  */
static bool
acyclic (const struct pp_paths_build *b)
{
  uint32_t n = 0;
  for (uint32_t v = 0; v < b->g->nnodes; v++)
    n += b->useful[v];
  return b->ntopo == n;
}

/* Roles, DAG, numbering; region cuts and the count before them as FLAGS
   say (pp_paths_build_number).  */
static int
number_paths (struct pp_paths_build *b, const bool *path_end, uint64_t limit,
	      unsigned flags)
{
  pp_paths *p = b->p;
  bool *reach = pp_paths_alloc (b->g->nnodes, sizeof *reach);
  if (!reach)
    return PP_PATHS_ENOMEM;
  assign_fixed_roles (b, path_end);
  int status = find_backedges (b, reach);
  if (status == PP_PATHS_OK)
    status = find_useful (b, reach);
  pp_free (reach);
  if (status == PP_PATHS_OK)
    status = build_dag (b);
  if (status == PP_PATHS_OK)
    status = order_topologically (b);
  if (status == PP_PATHS_OK && b->given && !acyclic (b))
    status = PP_PATHS_EGRAPH;	/* the given cuts leave a cycle */
  if (status != PP_PATHS_OK)
    return status;

  mpz_t total, max;
  mpz_init (total);
  mpz_init (max);
  mpz_import (max, 1, -1, sizeof limit, 0, 0, &limit);
  bool exact = !(flags & PP_PATHS_ROUGH);
  status = count_paths (b, total, exact);
  if (status == PP_PATHS_OK && (exact || mpz_sizeinbase (total, 2) <= 64))
    {
      p->npaths_uncut = decimal (total);
      if (!p->npaths_uncut)
	status = PP_PATHS_ENOMEM;
    }
  if (status == PP_PATHS_OK && (flags & PP_PATHS_MAY_CUT) && mpz_cmp (total, max) > 0)
    {
      status = cut_regions (b, limit);
      if (status == PP_PATHS_OK)
	status = count_paths (b, total, false);
    }
  if (status == PP_PATHS_OK && mpz_cmp (total, max) > 0)
    status = PP_PATHS_ERANGE;
  p->npaths = saturated_u64 (total);
  p->max_path_edges = b->ntopo ? b->ntopo : 1;
  mpz_clear (total);
  mpz_clear (max);
  return status;
}

static pp_paths *
new_paths (const pp_graph *g)
{
  pp_paths *p = pp_calloc (1, sizeof *p);
  if (!p)
    return NULL;
  p->nedges = g->nedges;
  p->role = pp_paths_alloc (g->nedges, sizeof *p->role);
  p->path_end = pp_paths_alloc (g->nedges, sizeof *p->path_end);
  p->dag_of_edge = pp_paths_alloc (g->nedges, sizeof *p->dag_of_edge);
  p->start_of_node = pp_paths_alloc (g->nnodes, sizeof *p->start_of_node);
  if (!p->role || !p->path_end || !p->dag_of_edge || !p->start_of_node)
    {
      pp_paths_free (p);
      return NULL;
    }
  return p;
}

static int
build_number (struct pp_paths_build *b, const pp_graph *g, const bool *path_end,
	      uint64_t limit, unsigned flags)
{
  if (!follows_conventions (g))
    return PP_PATHS_EGRAPH;
  b->g = g;
  b->p = new_paths (g);
  b->reentry = pp_paths_alloc (g->nnodes, sizeof *b->reentry);
  b->useful = pp_paths_alloc (g->nnodes, sizeof *b->useful);
  b->head = pp_paths_alloc (g->nnodes, sizeof *b->head);
  b->topo = pp_paths_alloc (g->nnodes, sizeof *b->topo);
  if (!b->p || !b->reentry || !b->useful || !b->head || !b->topo)
    return PP_PATHS_ENOMEM;
  return number_paths (b, path_end, limit, flags);
}

int
pp_paths_build_number (struct pp_paths_build *b, const pp_graph *g,
		       const bool *path_end, uint64_t limit, unsigned flags)
{
  memset (b, 0, sizeof *b);
  return build_number (b, g, path_end, limit, flags);
}

int
pp_paths_build_number_given (struct pp_paths_build *b, const pp_graph *g,
			     const bool *cuts, const bool *keep, uint64_t limit)
{
  memset (b, 0, sizeof *b);
  b->given = true;
  b->keep = keep;
  return build_number (b, g, cuts, limit, PP_PATHS_MAY_CUT | PP_PATHS_ROUGH);
}

void
pp_paths_build_free (struct pp_paths_build *b)
{
  pp_paths_free (b->p);
  pp_free (b->reentry);
  pp_free (b->useful);
  pp_free (b->head);
  pp_free (b->topo);
  memset (b, 0, sizeof *b);
}

int
pp_paths_number (const pp_graph *g, const bool *path_end, pp_paths **out)
{
  struct pp_paths_build b;
  int status = pp_paths_build_number (&b, g, path_end, PP_PATHS_MAX, 0);
  *out = NULL;
  if (status == PP_PATHS_OK)
    {
      *out = b.p;
      b.p = NULL;
    }
  pp_paths_build_free (&b);
  return status;
}

void
pp_paths_free (pp_paths *p)
{
  if (!p)
    return;
  free_dag (p);
  pp_free (p->role);
  pp_free (p->path_end);
  pp_free (p->action);
  pp_free (p->npaths_uncut);
  pp_free (p->dag_of_edge);
  pp_free (p->start_of_node);
  pp_free (p->dag_on_tree);
  pp_free (p->dag_inc);
  pp_free (p->dag_inc2);
  if (p->ppp)
    p->free_ppp (p->ppp);
  pp_free (p->ppp);
  pp_free (p);
}

uint32_t
pp_paths_dag_step (const pp_paths *p, uint32_t v, uint64_t *number)
{
  /* Values increase along a successor list and the first is 0: find the last
     one not above number.  */
  const pp_graph *d = &p->dag;
  uint32_t lo = d->succ_start[v], hi = d->succ_start[v + 1];
  while (hi - lo > 1)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (p->dag_val[d->succ_edges[mid]] <= *number)
	lo = mid;
      else
	hi = mid;
    }
  uint32_t e = d->succ_edges[lo];
  *number -= p->dag_val[e];
  return e;
}

int
pp_paths_decode (const pp_paths *p, uint64_t number, pp_path *path)
{
  if (number >= p->npaths)
    return PP_PATHS_ERANGE;
  const pp_graph *d = &p->dag;
  uint32_t v = d->entry, n = 0;
  path->start_node = d->entry;
  path->end_edge = PP_PATH_NONE;
  while (v != d->exit)
    {
      uint32_t e = pp_paths_dag_step (p, v, &number);
      if (p->dag_kind[e] == PP_DAG_START)
	path->start_node = p->dag_origin[e];
      else if (p->dag_kind[e] == PP_DAG_END)
	path->end_edge = p->dag_origin[e];
      else
	path->edges[n++] = p->dag_origin[e];
      v = d->edges[e].dst;
    }
  path->nedges = n;
  return PP_PATHS_OK;
}

int
pp_paths_encode (const pp_paths *p, const pp_path *path, uint64_t *number)
{
  const pp_graph *d = &p->dag;
  uint32_t v = d->entry;
  uint64_t sum = 0;
  if (path->start_node != d->entry)
    {
      if (path->start_node >= d->nnodes
	  || p->start_of_node[path->start_node] == PP_PATH_NONE)
	return PP_PATHS_EINVAL;
      sum = p->dag_val[p->start_of_node[path->start_node]];
      v = path->start_node;
    }
  for (uint32_t i = 0; i < path->nedges; i++)
    {
      uint32_t e = path->edges[i];
      if (e >= p->nedges || p->role[e] != PP_PATH_ROLE_DAG
	  || d->edges[p->dag_of_edge[e]].src != v)
	return PP_PATHS_EINVAL;
      sum += p->dag_val[p->dag_of_edge[e]];
      v = d->edges[p->dag_of_edge[e]].dst;
    }
  if (path->end_edge == PP_PATH_NONE)
    {
      if (v != d->exit)
	return PP_PATHS_EINVAL;
    }
  else
    {
      uint32_t e = path->end_edge;
      if (e >= p->nedges || !is_cut (p->role[e]) || d->edges[p->dag_of_edge[e]].src != v)
	return PP_PATHS_EINVAL;
      sum += p->dag_val[p->dag_of_edge[e]];
    }
  *number = sum;
  return PP_PATHS_OK;
}

const char *
pp_paths_strerror (int status)
{
  switch (status)
    {
    case PP_PATHS_OK:
      return "success";
    case PP_PATHS_ENOMEM:
      return "out of memory";
    case PP_PATHS_EGRAPH:
      return "the graph does not follow the ENTRY/EXIT and fake-edge conventions";
    case PP_PATHS_ERANGE:
      return "too many paths";
    case PP_PATHS_EINVAL:
      return "not a path of this function";
    default:
      return "unknown status";
    }
}
