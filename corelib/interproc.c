/* Interprocedural path numbering, context and piecewise (interproc.h has the
   design).  */

#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "interproc.h"

#define NONE UINT32_MAX

static void
lin_init (pp_ip_lin *f)
{
  mpz_init (f->a);
  mpz_init (f->b);
}

static void
lin_clear (pp_ip_lin *f)
{
  mpz_clear (f->a);
  mpz_clear (f->b);
}

/* r = f(x).  */
static void
lin_apply (mpz_t r, const pp_ip_lin *f, const mpz_t x)
{
  mpz_mul (r, f->a, x);
  mpz_add (r, r, f->b);
}

/* An edge of a procedure's graph that the numbering follows (not EXIT -> ENTRY).  */
static bool
followed (const pp_graph *g, uint32_t e)
{
  return !(g->edges[e].flags & PP_EDGE_EXIT_ENTRY);
}

/* A leave u -> EXIT or a re-entry ENTRY -> v (PP_EDGE_FAKE): replaced by a
   surrogate, as a backedge is.  */
static bool
fake (const pp_graph *g, uint32_t e)
{
  return (g->edges[e].flags & PP_EDGE_FAKE)
	 && (g->edges[e].src == g->entry || g->edges[e].dst == g->exit);
}

/* The call sites grouped by procedure: those of procedure p (as caller, or
   as callee) are sites[start[p] .. start[p + 1]), in site order.  */
typedef struct site_index
{
  uint32_t *start, *sites;
} site_index;

static int
index_sites (const pp_ip_program *prog, bool by_callee, site_index *x)
{
  x->start = pp_calloc (prog->nprocs + 2, sizeof *x->start);
  x->sites = pp_malloc ((prog->ncalls + 1) * sizeof *x->sites);
  if (!x->start || !x->sites)
    return PP_IP_ENOMEM;
  for (uint32_t s = 0; s < prog->ncalls; s++)
    x->start[(by_callee ? prog->calls[s].callee : prog->calls[s].proc) + 2]++;
  for (uint32_t p = 0; p < prog->nprocs; p++)
    x->start[p + 2] += x->start[p + 1];
  for (uint32_t s = 0; s < prog->ncalls; s++)
    x->sites[x->start[(by_callee ? prog->calls[s].callee : prog->calls[s].proc) + 1]++] = s;
  return PP_IP_OK;
}

static void
free_index (site_index *x)
{
  pp_free (x->start);
  pp_free (x->sites);
}

#define EACH_SITE(x, p, s)						\
  for (uint32_t i_ = (x)->start[p], s; i_ < (x)->start[(p) + 1]		\
       && ((s = (x)->sites[i_]), true); i_++)

static int
check_ranges (const pp_ip_program *prog)
{
  if (prog->main >= prog->nprocs)
    return PP_IP_EGRAPH;
  for (uint32_t s = 0; s < prog->ncalls; s++)
    if (prog->calls[s].proc >= prog->nprocs || prog->calls[s].callee >= prog->nprocs)
      return PP_IP_EGRAPH;
  return PP_IP_OK;
}

/* The conventions of interproc.h, procedure by procedure (BY_PROC: the sites
   of each), a vertex being the call vertex of one site at most and the
   return vertex of one site at most (the return vertex of a call may be the
   call vertex of the next: two calls in a row).  */
static int
check_program (const pp_ip_program *prog, const site_index *by_proc)
{
  uint32_t most = 0;
  for (uint32_t p = 0; p < prog->nprocs; p++)
    if (prog->procs[p].nnodes > most)
      most = prog->procs[p].nnodes;
  /* Per vertex: 1 when it is a call vertex, 2 when a return vertex.  */
  uint8_t *taken = pp_calloc (most + 1, sizeof *taken);
  if (!taken)
    return PP_IP_ENOMEM;
  int status = PP_IP_OK;
  for (uint32_t p = 0; p < prog->nprocs && status == PP_IP_OK; p++)
    {
      const pp_graph *g = &prog->procs[p];
      for (uint32_t e = 0; e < g->nedges; e++)
	if (followed (g, e) && (g->edges[e].dst == g->entry || g->edges[e].src == g->exit
				|| ((g->edges[e].flags & PP_EDGE_FAKE) && !fake (g, e))))
	  status = PP_IP_EGRAPH;
      EACH_SITE (by_proc, p, s)
	{
	  const pp_ip_call *c = &prog->calls[s];
	  if (c->call >= g->nnodes || c->ret >= g->nnodes || c->call == c->ret
	      || c->call == g->entry || c->call == g->exit || c->ret == g->entry
	      || c->ret == g->exit || (taken[c->call] & 1) || (taken[c->ret] & 2))
	    {
	      status = PP_IP_EGRAPH;
	      break;
	    }
	  taken[c->call] |= 1;
	  taken[c->ret] |= 2;
	  for (uint32_t i = g->succ_start[c->call]; i < g->succ_start[c->call + 1]; i++)
	    if (followed (g, g->succ_edges[i]) && !fake (g, g->succ_edges[i]))
	      status = PP_IP_EGRAPH;
	  for (uint32_t i = g->pred_start[c->ret]; i < g->pred_start[c->ret + 1]; i++)
	    if (followed (g, g->pred_edges[i]) && !fake (g, g->pred_edges[i]))
	      status = PP_IP_EGRAPH;
	}
      EACH_SITE (by_proc, p, s)
	if (prog->calls[s].call < g->nnodes && prog->calls[s].ret < g->nnodes)
	  taken[prog->calls[s].call] = taken[prog->calls[s].ret] = 0;
    }
  pp_free (taken);
  return status;
}

/* The recursive call sites (backedges of a depth-first search of the call
   graph from main, the external procedures, then every other) and an order of
   the procedures in which callees of other sites come first.  */
static int
classify_calls (const pp_ip_program *prog, bool *recursive, uint32_t *order)
{
  pp_graph cg;
  pp_dfs d;
  if (pp_graph_init (&cg, prog->nprocs, prog->main, prog->main))
    return PP_IP_ENOMEM;
  for (uint32_t s = 0; s < prog->ncalls; s++)
    if (pp_graph_add_edge (&cg, prog->calls[s].proc, prog->calls[s].callee, 0)
	== UINT32_MAX)
      {
	pp_graph_free (&cg);
	return PP_IP_ENOMEM;
      }
  if (pp_graph_finish (&cg) || pp_dfs_init (&d, &cg, PP_DFS_SUCCS, 0, NULL, NULL))
    {
      pp_graph_free (&cg);
      return PP_IP_ENOMEM;
    }
  for (uint32_t pass = 0; pass < 3; pass++)
    for (uint32_t p = 0; p < prog->nprocs; p++)
      {
	bool root = pass == 0 ? p == prog->main
		    : pass == 1 ? prog->external && prog->external[p] : true;
	if (!root || !pp_dfs_root (&d, p))
	  continue;
	pp_dfs_step st;
	while (pp_dfs_next (&d, &st))
	  if (st.event == PP_DFS_BACK)
	    recursive[st.edge] = true;
      }
  memcpy (order, d.postorder, prog->nprocs * sizeof *order);
  pp_dfs_free (&d);
  pp_graph_free (&cg);
  return PP_IP_OK;
}

/* What the backedge walk of a procedure found, which cuts of its calls do
   not change (the walk takes c -> r whether or not the call is cut): kept
   for the procedure's next build.  */
struct walked
{
  bool done;
  bool *cut;			/* per edge: replaced by its surrogates */
  int32_t *back;		/* per edge: back_of_edge */
  /* topo holds the order of the first build, which stays one: a cut call's
     c -> r becomes its summary edge c -> r, and no other edge changes.  */
  bool ordered;
};

/* G*_fin inside procedure p: backedges, surrogates, summary edges, and the
   vertices in reverse topological order (into topo, nnodes + 1 entries).
   WK holds the backedge walk, made at the procedure's first build.  */
static int
build_proc (const pp_ip_program *prog, const site_index *by_proc,
	    const bool *recursive, bool piecewise, uint32_t p, pp_ip_proc *ip,
	    uint32_t *topo, struct walked *wk)
{
  const pp_graph *g = &prog->procs[p];
  uint32_t n = g->nnodes, nv = n + 1 + piecewise;
  int status = PP_IP_ENOMEM;
  pp_graph w = { 0 }, f = { 0 };
  pp_dfs d = { 0 };
  bool dfs_ready = false;
  bool *cut = wk->done ? wk->cut : pp_calloc (g->nedges + 1, sizeof *cut);
  uint32_t *summary_at = pp_malloc (nv * sizeof *summary_at);
  ip->nnodes = nv;
  ip->entry = g->entry;
  ip->exit = g->exit;
  ip->gexit = n;
  ip->gentry = piecewise ? n + 1 : NONE;
  uint32_t surrogate_src = piecewise ? ip->gentry : g->entry;
  ip->call_at = pp_malloc (nv * sizeof *ip->call_at);
  ip->back_of_edge = pp_calloc (g->nedges + 1, sizeof *ip->back_of_edge);
  ip->out_start = pp_calloc (nv + 1, sizeof *ip->out_start);
  if (!cut || !summary_at || !ip->call_at || !ip->back_of_edge || !ip->out_start)
    goto out;
  for (uint32_t v = 0; v < nv; v++)
    ip->call_at[v] = summary_at[v] = NONE;
  EACH_SITE (by_proc, p, s)
    {
      if (recursive[s])
	summary_at[prog->calls[s].call] = s;
      else
	ip->call_at[prog->calls[s].call] = s;
    }
  if (wk->done)
    {
      memcpy (ip->back_of_edge, wk->back, g->nedges * sizeof *wk->back);
      goto walked;
    }

  /* Backedges: a walk of the graph with c -> r as an edge.  Those reached from
     ENTRY become surrogates; in code ENTRY never reaches, backedges are only
     dropped (no path runs there).  Every fake edge is cut too.  */
  if (pp_graph_init (&w, n, g->entry, g->exit))
    goto out;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (fake (g, e))
      ip->back_of_edge[e] = 2, cut[e] = true;
  /* The walk's edges: the graph's first (their indices are the graph's;
     the fake ones too, which reach the code only re-entries reach, and
     are never backedges), then c -> r.  */
  for (uint32_t e = 0; e < g->nedges; e++)
    if (pp_graph_add_edge (&w, g->edges[e].src, g->edges[e].dst,
			   followed (g, e) ? 0 : 1) == UINT32_MAX)
      goto out;
  EACH_SITE (by_proc, p, s)
    if (pp_graph_add_edge (&w, prog->calls[s].call, prog->calls[s].ret, 0)
	== UINT32_MAX)
      goto out;
  if (pp_graph_finish (&w) || pp_dfs_init (&d, &w, PP_DFS_SUCCS, 1, NULL, NULL))
    goto out;
  dfs_ready = true;
  for (uint32_t r = 0; r <= n; r++)
    {
      uint32_t root = r == 0 ? g->entry : r - 1;
      if (!pp_dfs_root (&d, root))
	continue;
      pp_dfs_step st;
      while (pp_dfs_next (&d, &st))
	if (st.event == PP_DFS_BACK && st.edge < g->nedges)
	  {
	    ip->back_of_edge[st.edge] = 1;
	    cut[st.edge] = r == 0;
	  }
    }
  pp_dfs_free (&d);
  dfs_ready = false;
  wk->back = pp_malloc ((g->nedges + 1) * sizeof *wk->back);
  if (!wk->back)
    goto out;
  memcpy (wk->back, ip->back_of_edge, g->nedges * sizeof *wk->back);
  wk->cut = cut;
  wk->done = true;

walked:;
  /* The edges of G*_fin, by source vertex in successor order: a vertex's
     edges, then the surrogates to GEXIT of the cuts leaving it (backedges,
     fake leaves); from ENTRY (GENTRY), the surrogates into the cuts'
     targets (backedges, re-entries), one per cut edge, so that the paths
     tell each cut edge's count.  */
  uint32_t m = 0;
  for (uint32_t v = 0; v < n; v++)
    for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
      m += followed (g, g->succ_edges[i]) && !ip->back_of_edge[g->succ_edges[i]];
  for (uint32_t e = 0; e < g->nedges; e++)
    m += 2 * cut[e];
  for (uint32_t v = 0; v < n; v++)
    m += summary_at[v] != NONE;
  ip->edges = pp_calloc (m ? m : 1, sizeof *ip->edges);
  if (!ip->edges)
    goto out;
  for (uint32_t v = 0; v < nv; v++)
    {
      ip->out_start[v] = ip->nedges;
#define ADD(dst_, kind_, arg_) do {					\
	pp_ip_edge *x_ = &ip->edges[ip->nedges++];			\
	x_->src = v; x_->dst = (dst_); x_->kind = (kind_); x_->arg = (arg_); \
	lin_init (&x_->rho);						\
      } while (0)
      for (uint32_t i = v < n ? g->succ_start[v] : 0;
	   v < n && i < g->succ_start[v + 1]; i++)
	{
	  uint32_t e = g->succ_edges[i];
	  if (followed (g, e) && !ip->back_of_edge[e])
	    ADD (g->edges[e].dst, PP_IP_EDGE, e);
	}
      /* v's cut edges, in edge order (succ_edges lists them so).  */
      for (uint32_t i = v < n ? g->succ_start[v] : 0;
	   v < n && i < g->succ_start[v + 1]; i++)
	{
	  uint32_t e = g->succ_edges[i];
	  if (cut[e] && !(ip->back_of_edge[e] == 2 && v == g->entry))
	    ADD (n, PP_IP_SURROGATE_GEXIT, e);
	}
      if (v == surrogate_src)
	for (uint32_t e = 0; e < g->nedges; e++)
	  if (cut[e] && !(ip->back_of_edge[e] == 2 && g->edges[e].dst == g->exit))
	    ADD (g->edges[e].dst, PP_IP_SURROGATE_ENTRY, e);
      if (summary_at[v] != NONE)
	ADD (prog->calls[summary_at[v]].ret, PP_IP_SUMMARY, summary_at[v]);
#undef ADD
    }
  ip->out_start[nv] = ip->nedges;
  ip->fin_of_edge = pp_malloc ((g->nedges + 1) * sizeof *ip->fin_of_edge);
  ip->exit_of_edge = pp_malloc ((g->nedges + 1) * sizeof *ip->exit_of_edge);
  ip->entry_of_edge = pp_malloc ((g->nedges + 1) * sizeof *ip->entry_of_edge);
  ip->leave_of = pp_malloc (nv * sizeof *ip->leave_of);
  ip->reentry_of = pp_malloc (nv * sizeof *ip->reentry_of);
  if (!ip->fin_of_edge || !ip->exit_of_edge || !ip->entry_of_edge
      || !ip->leave_of || !ip->reentry_of)
    goto out;
  for (uint32_t e = 0; e < g->nedges; e++)
    ip->fin_of_edge[e] = ip->exit_of_edge[e] = ip->entry_of_edge[e] = NONE;
  for (uint32_t v = 0; v < nv; v++)
    ip->leave_of[v] = ip->reentry_of[v] = NONE;
  for (uint32_t k = 0; k < ip->nedges; k++)
    {
      const pp_ip_edge *x = &ip->edges[k];
      if (x->kind == PP_IP_EDGE)
	ip->fin_of_edge[x->arg] = k;
      else if (x->kind == PP_IP_SURROGATE_GEXIT)
	{
	  ip->exit_of_edge[x->arg] = k;
	  if (ip->back_of_edge[x->arg] == 2)
	    ip->leave_of[x->src] = k;
	}
      else if (x->kind == PP_IP_SURROGATE_ENTRY)
	{
	  ip->entry_of_edge[x->arg] = k;
	  if (ip->back_of_edge[x->arg] == 2)
	    ip->reentry_of[x->dst] = k;
	}
    }

  /* Reverse topological order: postorder of G*_fin with c -> r.  */
  if (wk->ordered)
    {
      status = PP_IP_OK;
      goto out;
    }
  if (pp_graph_init (&f, nv, g->entry, g->exit))
    goto out;
  for (uint32_t k = 0; k < ip->nedges; k++)
    if (pp_graph_add_edge (&f, ip->edges[k].src, ip->edges[k].dst, 0) == UINT32_MAX)
      goto out;
  EACH_SITE (by_proc, p, s)
    if (!recursive[s]
	&& pp_graph_add_edge (&f, prog->calls[s].call, prog->calls[s].ret, 0)
	   == UINT32_MAX)
      goto out;
  if (pp_graph_finish (&f) || pp_dfs_init (&d, &f, PP_DFS_SUCCS, 0, NULL, NULL))
    goto out;
  dfs_ready = true;
  status = PP_IP_OK;
  for (uint32_t v = 0; v < nv && status == PP_IP_OK; v++)
    {
      if (!pp_dfs_root (&d, v))
	continue;
      pp_dfs_step st;
      while (pp_dfs_next (&d, &st))
	if (st.event == PP_DFS_BACK)
	  status = PP_IP_EGRAPH;	/* cannot happen: the backedges are gone */
    }
  memcpy (topo, d.postorder, nv * sizeof *topo);
  wk->ordered = status == PP_IP_OK;
out:
  if (dfs_ready)
    pp_dfs_free (&d);
  pp_graph_free (&w);
  pp_graph_free (&f);
  if (!wk->done)
    pp_free (cut);			/* else wk's */
  pp_free (summary_at);
  return status;
}

/* psi of every vertex of p into PSI (per vertex), on the G*_fin that IP
   holds (its edges, call_at), the callees' psi known; a site marked in
   nb->recursive since IP was built is taken as its summary edge c -> r.
   With SET_RHO, each edge's rho too (the solve); without, a cut search's
   try (find_cuts).  */
static void
solve_psi (const pp_ip_program *prog, const pp_ip_numbering *nb, uint32_t p,
	   pp_ip_proc *ip, const uint32_t *topo, pp_ip_lin *psi, bool set_rho)
{
  const pp_graph *g = &prog->procs[p];
  for (uint32_t i = 0; i < ip->nnodes; i++)
    {
      uint32_t v = topo[i];
      pp_ip_lin *f = &psi[v];
      mpz_set_ui (f->a, v == g->exit);
      mpz_set_ui (f->b, v == ip->gexit);
      if (v == g->exit || v == ip->gexit)
	continue;
      /* A call vertex: the call first, then a leave's surrogate, if any.  */
      uint32_t s = ip->call_at[v];
      if (s != NONE)
	{
	  const pp_ip_call *c = &prog->calls[s];
	  const pp_ip_lin *r = &psi[c->ret];
	  if (nb->recursive[s])
	    {
	      mpz_set (f->a, r->a);
	      mpz_set (f->b, r->b);
	    }
	  else
	    {
	      const pp_ip_lin *q = &nb->procs[c->callee].psi[prog->procs[c->callee].entry];
	      mpz_mul (f->a, q->a, r->a);
	      mpz_mul (f->b, q->a, r->b);
	      mpz_add (f->b, f->b, q->b);
	    }
	}
      for (uint32_t k = ip->out_start[v]; k < ip->out_start[v + 1]; k++)
	{
	  pp_ip_edge *e = &ip->edges[k];
	  if (set_rho)
	    {
	      mpz_set (e->rho.a, f->a);
	      mpz_set (e->rho.b, f->b);
	    }
	  mpz_add (f->a, f->a, psi[e->dst].a);
	  mpz_add (f->b, f->b, psi[e->dst].b);
	}
    }
}

/* The roots in ENTRY_global's edge order: main, the external procedures,
   the callees of recursive sites.  */
static void
find_roots (const pp_ip_program *prog, const site_index *by_callee,
	    pp_ip_numbering *nb, bool *is_root)
{
  is_root[prog->main] = true;
  nb->roots[nb->nroots++] = prog->main;
  for (uint32_t pass = 0; pass < 2; pass++)
    for (uint32_t p = 0; p < prog->nprocs; p++)
      {
	bool want = pass == 0 && prog->external && prog->external[p];
	if (pass == 1)
	  EACH_SITE (by_callee, p, s)
	    want |= nb->recursive[s];
	if (want && !is_root[p])
	  {
	    is_root[p] = true;
	    nb->roots[nb->nroots++] = p;
	  }
      }
}

/* Piecewise: unbal[P] and EXIT_P's successors, callers before callees (the
   reverse of ORDER).  */
static int
solve_exits (const pp_ip_program *prog, const site_index *by_callee,
	     pp_ip_numbering *nb, const uint32_t *order, const bool *is_root)
{
  for (uint32_t i = prog->nprocs; i-- > 0;)
    {
      uint32_t p = order[i];
      pp_ip_proc *ip = &nb->procs[p];
      uint32_t k = by_callee->start[p + 1] - by_callee->start[p] + 1;
      ip->exit_site = pp_malloc (k * sizeof *ip->exit_site);
      ip->exit_value = pp_malloc (k * sizeof *ip->exit_value);
      if (!ip->exit_site || !ip->exit_value)
	return PP_IP_ENOMEM;
      EACH_SITE (by_callee, p, s)
	if (!nb->recursive[s])
	  {
	    const pp_ip_call *c = &prog->calls[s];
	    const pp_ip_proc *caller = &nb->procs[c->proc];
	    nb->exit_of_site[s] = ip->nexits;
	    ip->exit_site[ip->nexits] = s;
	    mpz_init_set (ip->exit_value[ip->nexits++], ip->unbal);
	    mpz_addmul (ip->unbal, caller->psi[c->ret].a, caller->unbal);
	    mpz_add (ip->unbal, ip->unbal, caller->psi[c->ret].b);
	  }
      if (is_root[p])
	{
	  ip->exit_site[ip->nexits] = NONE;
	  mpz_init_set (ip->exit_value[ip->nexits++], ip->unbal);
	  mpz_add_ui (ip->unbal, ip->unbal, 1);
	}
    }
  return PP_IP_OK;
}

/* What build_proc made of a procedure, freed.  */
static void
free_built (pp_ip_proc *ip)
{
  for (uint32_t k = 0; k < ip->nedges; k++)
    lin_clear (&ip->edges[k].rho);
  pp_free (ip->edges);
  pp_free (ip->out_start);
  pp_free (ip->call_at);
  pp_free (ip->back_of_edge);
  pp_free (ip->fin_of_edge);
  pp_free (ip->exit_of_edge);
  pp_free (ip->entry_of_edge);
  pp_free (ip->leave_of);
  pp_free (ip->reentry_of);
  ip->edges = NULL;
  ip->out_start = ip->call_at = NULL;
  ip->back_of_edge = NULL;
  ip->fin_of_edge = ip->exit_of_edge = ip->entry_of_edge = NULL;
  ip->leave_of = ip->reentry_of = NULL;
  ip->nedges = 0;
}

/* A procedure built and solved, back to before build_proc (its psi zero).  */
static void
reset_proc (pp_ip_proc *ip)
{
  free_built (ip);
  for (uint32_t v = 0; v < ip->nnodes; v++)
    {
      mpz_set_ui (ip->psi[v].a, 0);
      mpz_set_ui (ip->psi[v].b, 0);
    }
}

/* Whether psi = <a, b> fits max_bits bits.  */
static bool
fits (const pp_ip_lin *psi, uint32_t max_bits)
{
  return mpz_sizeinbase (psi->a, 2) <= max_bits && mpz_sizeinbase (psi->b, 2) <= max_bits;
}

/* The cuts of procedure p, whose paths from ENTRY need more than max_bits
   bits (its first build and solve say so).  What it must give: the calls
   of the most paths of their own made summary edges one at a time (the
   callee's psi at ENTRY in bits, a + b; the first site of p in site order
   among equals), until the paths fit or no call is left.  That order does
   not depend on the cuts made, so the answer is the shortest prefix of the
   sites in that order whose cuts make p fit (all of them if none does).

   Searching it: cutting a site whose callee returns (psi_ENTRY_Q = <a, b>,
   a >= 1) takes its call vertex from Q o psi_r down to psi_r, which is no
   more in a and in b, and every psi of p is a sum of products of
   nonnegative terms that grow with it: along a run of such sites, whether
   p fits can only go from no to yes.  Over a run the search gallops
   (prefixes 1, 2, 4, ... sites longer) and then halves; a site whose
   callee never returns (a = 0: its cut may add paths) is taken alone.  So
   SQLite's sqlite3VdbeExec, cut at hundreds of calls, is solved a few
   dozen times, not once per cut.  Each try computes p's psi only
   (solve_psi without rho, on the first build's edges); the answer is then built and solved
   once.  With prog->cut_one_by_one, the reference: one cut, a build and a
   solve at a time (test-interproc compares the two).  */

struct by_paths
{
  size_t bits;
  uint32_t at, site;
  bool returns;
};

static int
most_paths_first (const void *x, const void *y)
{
  const struct by_paths *a = x, *b = y;
  if (a->bits != b->bits)
    return a->bits > b->bits ? -1 : 1;
  return a->at < b->at ? -1 : a->at > b->at;
}

/* A try first computes p's psi in floating point, and in GMP only where
   that cannot tell (SQLite's and csmith's numbering spent most of its time
   in the tries' GMP sums of 1,000-bit numbers).  A number is m 2^e, m in
   [0.5, 1) or 0 (the exponent apart, so nothing overflows).  Each add and
   multiply rounds once, a relative error of at most 2^-53 (an addend below
   2^-60 of the other is dropped, a smaller one), and a callee's psi
   converts with an error below 2^-52; a value that T such steps made is
   within a factor (1 + 2^-52)^T of exact, less than 1 + 2^-21 for T below
   2^30.  So whether psi fits max_bits bits (is below 2^max_bits) is sure
   where the value is 2^-20 or more away from 2^max_bits, and a try whose
   answer falls inside that margin is solved exactly: the cuts are the
   exact search's, bit for bit.  */
typedef struct
{
  double m;
  long e;
} approx;

enum { APPROX_NO, APPROX_YES, APPROX_UNSURE };

/* m 2^e normalised: the exponent of m's bits moved into e (m > 0 finite,
   normal: sums and products of numbers in [2^-61, 2) are).  */
static approx
approx_norm (double m, long e)
{
  uint64_t bits;
  memcpy (&bits, &m, sizeof bits);
  long k = (long) (bits >> 52 & 0x7ff) - 1022;
  bits = (bits & ~(UINT64_C (0x7ff) << 52)) | UINT64_C (1022) << 52;
  memcpy (&m, &bits, sizeof m);
  return (approx) { m, e + k };
}

static approx
approx_add (approx x, approx y)
{
  if (y.m == 0)
    return x;
  if (x.m == 0)
    return y;
  if (x.e < y.e)
    {
      approx t = x;
      x = y;
      y = t;
    }
  long d = x.e - y.e;
  if (d > 60)
    return x;
  double scale;		/* 2^-d, exactly */
  uint64_t bits = (uint64_t) (1023 - d) << 52;
  memcpy (&scale, &bits, sizeof scale);
  return approx_norm (x.m + y.m * scale, x.e);
}

static approx
approx_mul (approx x, approx y)
{
  if (x.m == 0 || y.m == 0)
    return (approx) { 0, 0 };
  return approx_norm (x.m * y.m, x.e + y.e);
}

static approx
approx_of (const mpz_t z)
{
  long e;
  double m = mpz_get_d_2exp (&e, z);
  return (approx) { m, m == 0 ? 0 : e };
}

/* Whether x is below 2^max_bits, sure within the margin above.  */
static int
approx_fits (approx x, uint32_t max_bits)
{
  long b = (long) max_bits;
  if (x.m == 0 || x.e < b || (x.e == b && x.m < 1 - 0x1p-20))
    return APPROX_YES;
  if (x.e > b + 1 || (x.e == b + 1 && x.m >= 0.5 + 0x1p-20))
    return APPROX_NO;
  return APPROX_UNSURE;
}

/* solve_psi's psi of p, without rho, in floating point: PSI per vertex
   (a, b); CALLEE per call vertex, its callee's psi at ENTRY.  Whether the
   psi at ENTRY fits max_bits, or APPROX_UNSURE.  */
static int
approx_try (const pp_ip_program *prog, const pp_ip_numbering *nb, uint32_t p,
	    const uint32_t *topo, approx (*psi)[2], const approx (*callee)[2],
	    uint32_t max_bits)
{
  const pp_graph *g = &prog->procs[p];
  const pp_ip_proc *ip = &nb->procs[p];
  if ((uint64_t) 4 * ip->nnodes + 2 * (uint64_t) ip->nedges >= (UINT64_C (1) << 30))
    return APPROX_UNSURE;
  for (uint32_t i = 0; i < ip->nnodes; i++)
    {
      uint32_t v = topo[i];
      approx *f = psi[v];
      f[0] = (approx) { v == g->exit ? 0.5 : 0, v == g->exit };
      f[1] = (approx) { v == ip->gexit ? 0.5 : 0, v == ip->gexit };
      if (v == g->exit || v == ip->gexit)
	continue;
      uint32_t s = ip->call_at[v];
      if (s != NONE)
	{
	  const approx *r = psi[prog->calls[s].ret];
	  if (nb->recursive[s])
	    f[0] = r[0], f[1] = r[1];
	  else
	    {
	      const approx *q = callee[v];
	      f[0] = approx_mul (q[0], r[0]);
	      f[1] = approx_add (approx_mul (q[0], r[1]), q[1]);
	    }
	}
      for (uint32_t k = ip->out_start[v]; k < ip->out_start[v + 1]; k++)
	{
	  const approx *d = psi[ip->edges[k].dst];
	  f[0] = approx_add (f[0], d[0]);
	  f[1] = approx_add (f[1], d[1]);
	}
    }
  const approx *f = psi[g->entry];
  int a = approx_fits (f[0], max_bits), b = approx_fits (f[1], max_bits);
  if (a == APPROX_NO || b == APPROX_NO)
    return APPROX_NO;
  return a == APPROX_YES && b == APPROX_YES ? APPROX_YES : APPROX_UNSURE;
}

/* Marks in nb->recursive the first k of the n sites of order (and not the
   rest); whether p fits with those cuts: approx_try's answer where it is
   sure, else p's psi into PSI (GMP, on the first build).  */
static bool
try_cuts (const pp_ip_program *prog, pp_ip_numbering *nb, uint32_t p,
	  const uint32_t *topo, pp_ip_lin *psi, approx (*fpsi)[2],
	  const approx (*callee)[2], uint32_t max_bits,
	  const struct by_paths *order, uint32_t n, uint32_t k)
{
  for (uint32_t i = 0; i < n; i++)
    nb->recursive[order[i].site] = i < k;
  int sure = approx_try (prog, nb, p, topo, fpsi, callee, max_bits);
  if (sure != APPROX_UNSURE)
    return sure == APPROX_YES;
  solve_psi (prog, nb, p, &nb->procs[p], topo, psi, false);
  return fits (&psi[prog->procs[p].entry], max_bits);
}

/* Procedure p built and solved, and too many paths from its ENTRY: marks
   its cuts in nb->recursive (see above).  */
static int
find_cuts (const pp_ip_program *prog, const site_index *by_proc,
	   pp_ip_numbering *nb, uint32_t p, const uint32_t *topo, uint32_t max_bits)
{
  uint32_t n = 0, at = 0;
  EACH_SITE (by_proc, p, s)
    n += !nb->recursive[s];
  const pp_ip_proc *ip = &nb->procs[p];
  struct by_paths *order = pp_malloc ((n + 1) * sizeof *order);
  pp_ip_lin *psi = pp_malloc (ip->nnodes * sizeof *psi);
  approx (*fpsi)[2] = pp_malloc (2 * ip->nnodes * sizeof *fpsi);
  if (!order || !psi || !fpsi)
    {
      pp_free (order);
      pp_free (psi);
      pp_free (fpsi);
      return PP_IP_ENOMEM;
    }
  for (uint32_t v = 0; v < ip->nnodes; v++)
    lin_init (&psi[v]);
  /* The callees' psi at ENTRY, at their call vertices (fpsi's second half).  */
  approx (*callee)[2] = fpsi + ip->nnodes;
  for (uint32_t v = 0; v < ip->nnodes; v++)
    if (ip->call_at[v] != NONE)
      {
	uint32_t q = prog->calls[ip->call_at[v]].callee;
	const pp_ip_lin *e = &nb->procs[q].psi[prog->procs[q].entry];
	callee[v][0] = approx_of (e->a);
	callee[v][1] = approx_of (e->b);
      }
  n = 0;
  EACH_SITE (by_proc, p, s)
    {
      if (nb->recursive[s])
	continue;
      const pp_ip_lin *q = &nb->procs[prog->calls[s].callee]
			     .psi[prog->procs[prog->calls[s].callee].entry];
      order[n].bits = mpz_sizeinbase (q->a, 2) + mpz_sizeinbase (q->b, 2);
      order[n].at = at++;
      order[n].site = s;
      order[n++].returns = mpz_sgn (q->a) > 0;
    }
  pp_sort (order, n, sizeof *order, most_paths_first);
  /* k: no prefix up to k sites long fits.  */
  uint32_t k = 0, answer = n;
  while (k < n)
    {
      if (!order[k].returns)
	{
	  if (try_cuts (prog, nb, p, topo, psi, fpsi, callee, max_bits, order, n, ++k))
	    {
	      answer = k;
	      break;
	    }
	  continue;
	}
      uint32_t end = k;
      while (end < n && order[end].returns)
	end++;
      /* Over k .. end whether p fits only goes from no to yes.  */
      uint32_t no = k, yes = NONE, step = 1;
      while (yes == NONE)
	{
	  uint32_t t = end - no > step ? no + step : end;
	  if (try_cuts (prog, nb, p, topo, psi, fpsi, callee, max_bits, order, n, t))
	    yes = t;
	  else if (t == end)
	    break;
	  else
	    no = t, step *= 2;
	}
      if (yes == NONE)
	{
	  k = end;
	  continue;
	}
      while (yes - no > 1)
	{
	  uint32_t mid = no + (yes - no) / 2;
	  if (try_cuts (prog, nb, p, topo, psi, fpsi, callee, max_bits, order, n, mid))
	    yes = mid;
	  else
	    no = mid;
	}
      answer = yes;
      break;
    }
  for (uint32_t i = 0; i < n; i++)
    nb->recursive[order[i].site] = i < answer;
  for (uint32_t v = 0; v < ip->nnodes; v++)
    lin_clear (&psi[v]);
  pp_free (psi);
  pp_free (fpsi);
  pp_free (order);
  return PP_IP_OK;
}

/* The reference search: the non-recursive site of p whose callee has the
   most paths from its ENTRY (NONE when p has none left, or fits).  */
static uint32_t
too_many (const pp_ip_program *prog, const pp_ip_numbering *nb,
	  const site_index *by_proc, uint32_t p, uint32_t max_bits)
{
  if (fits (&nb->procs[p].psi[prog->procs[p].entry], max_bits))
    return NONE;
  uint32_t best = NONE;
  size_t most = 0;
  EACH_SITE (by_proc, p, s)
    if (!nb->recursive[s])
      {
	const pp_ip_lin *q = &nb->procs[prog->calls[s].callee]
			       .psi[prog->procs[prog->calls[s].callee].entry];
	size_t bits = mpz_sizeinbase (q->a, 2) + mpz_sizeinbase (q->b, 2);
	if (best == NONE || bits > most)
	  best = s, most = bits;
      }
  return best;
}

int
pp_ip_number (const pp_ip_program *prog, bool piecewise, pp_ip_numbering *nb)
{
  uint32_t max_bits = prog->max_bits ? prog->max_bits : PP_IP_MAX_BITS;
  memset (nb, 0, sizeof *nb);
  mpz_init (nb->npaths);
  nb->piecewise = piecewise;
  site_index by_proc = { 0 }, by_callee = { 0 };
  int status = check_ranges (prog);
  if (status == PP_IP_OK)
    status = index_sites (prog, false, &by_proc);
  if (status == PP_IP_OK)
    status = index_sites (prog, true, &by_callee);
  if (status == PP_IP_OK)
    status = check_program (prog, &by_proc);
  if (status)
    {
      free_index (&by_proc);
      free_index (&by_callee);
      return status;
    }
  status = PP_IP_ENOMEM;
  uint32_t *order = pp_malloc ((prog->nprocs + 1) * sizeof *order);
  uint32_t *topo = NULL;
  bool *is_root = pp_calloc (prog->nprocs + 1, sizeof *is_root);
  uint32_t most_roots = 2 * prog->nprocs + 1;
  nb->ncalls = prog->ncalls;
  nb->procs = pp_calloc (prog->nprocs + 1, sizeof *nb->procs);
  nb->recursive = pp_calloc (prog->ncalls + 1, sizeof *nb->recursive);
  nb->calls = pp_malloc ((prog->ncalls + 1) * sizeof *nb->calls);
  nb->exit_of_site = pp_malloc ((prog->ncalls + 1) * sizeof *nb->exit_of_site);
  nb->roots = pp_malloc (most_roots * sizeof *nb->roots);
  nb->root_gentry = pp_calloc (most_roots, sizeof *nb->root_gentry);
  nb->root_value = pp_malloc (most_roots * sizeof *nb->root_value);
  if (!order || !is_root || !nb->procs || !nb->recursive || !nb->calls
      || !nb->exit_of_site || !nb->roots
      || !nb->root_gentry || !nb->root_value)
    goto out;
  for (uint32_t p = 0; p < prog->nprocs; p++)
    mpz_init (nb->procs[p].unbal);
  nb->nprocs = prog->nprocs;	/* what pp_ip_numbering_free walks */
  memcpy (nb->calls, prog->calls, prog->ncalls * sizeof *nb->calls);
  memset (nb->exit_of_site, 0xff, prog->ncalls * sizeof *nb->exit_of_site);
  if (classify_calls (prog, nb->recursive, order))
    goto out;
  for (uint32_t i = 0; i < prog->nprocs; i++)
    {
      uint32_t p = order[i];
      pp_ip_proc *ip = &nb->procs[p];
      uint32_t n = prog->procs[p].nnodes + 1 + piecewise;
      pp_free (topo);
      topo = pp_malloc (n * sizeof *topo);
      ip->psi = pp_malloc (n * sizeof *ip->psi);
      if (!topo || !ip->psi)
	goto out;
      for (uint32_t v = 0; v < n; v++)
	lin_init (&ip->psi[v]);
      ip->nnodes = n;
      struct walked wk = { 0 };
      bool cuts_done = false;
      for (;;)
	{
	  int rc = build_proc (prog, &by_proc, nb->recursive, piecewise, p, ip, topo,
			       &wk);
	  if (rc)
	    {
	      pp_free (wk.cut);
	      pp_free (wk.back);
	      status = rc;
	      goto out;
	    }
	  solve_psi (prog, nb, p, ip, topo, ip->psi, true);
	  /* Too many paths from here: calls with the most paths of their own
	     become summary edges (their callees roots), as recursive calls
	     are (find_cuts).  */
	  if (prog->cut_one_by_one)
	    {
	      uint32_t cut = too_many (prog, nb, &by_proc, p, max_bits);
	      if (cut == NONE)
		break;
	      nb->recursive[cut] = true;
	    }
	  else if (cuts_done || fits (&ip->psi[prog->procs[p].entry], max_bits))
	    break;
	  else if ((rc = find_cuts (prog, &by_proc, nb, p, topo, max_bits)))
	    {
	      pp_free (wk.cut);
	      pp_free (wk.back);
	      status = rc;
	      goto out;
	    }
	  else
	    cuts_done = true;
	  reset_proc (ip);
	}
      pp_free (wk.cut);
      pp_free (wk.back);
    }
  find_roots (prog, &by_callee, nb, is_root);
  if (piecewise && solve_exits (prog, &by_callee, nb, order, is_root))
    goto out;
  uint32_t nentry = nb->nroots;
  for (uint32_t p = 0; piecewise && p < prog->nprocs; p++)
    {
      nb->root_gentry[nb->nroots] = true;
      nb->roots[nb->nroots++] = p;
    }
  mpz_t count;
  mpz_init (count);
  for (uint32_t i = 0; i < nb->nroots; i++)
    {
      const pp_ip_proc *ip = &nb->procs[nb->roots[i]];
      const pp_ip_lin *psi = &ip->psi[i < nentry ? ip->entry : ip->gentry];
      lin_apply (count, psi, ip->unbal);
      if (i < nentry)		/* x = 1 */
	{
	  mpz_set (count, psi->a);
	  mpz_add (count, count, psi->b);
	}
      mpz_init_set (nb->root_value[i], nb->npaths);
      mpz_add (nb->npaths, nb->npaths, count);
    }
  mpz_clear (count);
  status = PP_IP_OK;
out:
  pp_free (order);
  pp_free (topo);
  pp_free (is_root);
  free_index (&by_proc);
  free_index (&by_callee);
  if (status)
    pp_ip_numbering_free (nb);
  return status;
}

void
pp_ip_numbering_free (pp_ip_numbering *nb)
{
  for (uint32_t p = 0; nb->procs && p < nb->nprocs; p++)
    {
      pp_ip_proc *ip = &nb->procs[p];
      for (uint32_t v = 0; ip->psi && v < ip->nnodes; v++)
	lin_clear (&ip->psi[v]);
      pp_free (ip->psi);
      free_built (ip);
      for (uint32_t k = 0; k < ip->nexits; k++)
	mpz_clear (ip->exit_value[k]);
      pp_free (ip->exit_site);
      pp_free (ip->exit_value);
      mpz_clear (ip->unbal);
    }
  for (uint32_t i = 0; nb->root_value && i < nb->nroots; i++)
    mpz_clear (nb->root_value[i]);
  pp_free (nb->root_gentry);
  pp_free (nb->root_value);
  pp_free (nb->roots);
  pp_free (nb->procs);
  pp_free (nb->recursive);
  pp_free (nb->calls);
  pp_free (nb->exit_of_site);
  mpz_clear (nb->npaths);
  memset (nb, 0, sizeof *nb);
  mpz_init (nb->npaths);
}

/* ------------------------------------------------------------------------- */
/* Numbers of paths.  */

int
pp_ip_cursor_init (pp_ip_cursor *c)
{
  memset (c, 0, sizeof *c);
  mpz_init (c->num);
  mpz_init (c->x);
  return 0;
}

void
pp_ip_cursor_free (pp_ip_cursor *c)
{
  for (uint32_t i = 0; i < c->cap; i++)
    mpz_clear (c->stack[i]);
  pp_free (c->stack);
  mpz_clear (c->num);
  mpz_clear (c->x);
  memset (c, 0, sizeof *c);
}

void
pp_ip_start (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t root)
{
  mpz_set (c->num, n->root_value[root]);
  c->rooted = !n->root_gentry[root];
  if (c->rooted)
    mpz_set_ui (c->x, 1);
  else
    mpz_set (c->x, n->procs[n->roots[root]].unbal);
  c->depth = 0;
}

void
pp_ip_step (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t p, uint32_t k)
{
  const pp_ip_lin *rho = &n->procs[p].edges[k].rho;
  mpz_addmul (c->num, rho->a, c->x);
  mpz_add (c->num, c->num, rho->b);
}

static int
push (pp_ip_cursor *c, const mpz_t x)
{
  if (c->depth == c->cap)
    {
      uint32_t cap = c->cap ? 2 * c->cap : 16;
      mpz_t *s = pp_realloc (c->stack, cap * sizeof *s);
      if (!s)
	return -1;
      for (uint32_t i = c->cap; i < cap; i++)
	mpz_init (s[i]);
      c->stack = s;
      c->cap = cap;
    }
  mpz_set (c->stack[c->depth++], x);
  return 0;
}

int
pp_ip_call_site (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t s)
{
  const pp_ip_call *site = &n->calls[s];
  if (push (c, c->x))
    return -1;
  const pp_ip_lin *psi = &n->procs[site->proc].psi[site->ret];
  mpz_mul (c->x, c->x, psi->a);
  mpz_add (c->x, c->x, psi->b);
  return 0;
}

void
pp_ip_return (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t s)
{
  if (c->depth)
    {
      mpz_set (c->x, c->stack[--c->depth]);
      return;
    }
  /* Piecewise, no call open: the value of this return among EXIT's
     successors.  */
  mpz_add (c->num, c->num, n->procs[n->calls[s].callee].exit_value[n->exit_of_site[s]]);
  mpz_set (c->x, n->procs[n->calls[s].proc].unbal);
}

void
pp_ip_exit_global (const pp_ip_numbering *n, pp_ip_cursor *c, uint32_t p)
{
  const pp_ip_proc *ip = &n->procs[p];	/* EXIT_global comes last */
  if (ip->nexits && ip->exit_site[ip->nexits - 1] == NONE)
    mpz_add (c->num, c->num, ip->exit_value[ip->nexits - 1]);
}

/* ------------------------------------------------------------------------- */
/* Paths of numbers.  */

int
pp_ip_decode (const pp_ip_numbering *n, const mpz_t number, pp_ip_step_fn *fn,
	      void *ctx)
{
  if (mpz_sgn (number) < 0 || mpz_cmp (number, n->npaths) >= 0)
    return -2;
  pp_ip_cursor c;
  pp_ip_cursor_init (&c);
  uint32_t *sites = NULL, cap = 0;
  mpz_t num, val, cnt;
  mpz_inits (num, val, cnt, NULL);
  mpz_set (num, number);
  int status = -2;
  /* The root: the last whose value is at most num.  */
  uint32_t root = 0;
  while (root + 1 < n->nroots && mpz_cmp (n->root_value[root + 1], num) <= 0)
    root++;
  uint32_t p = n->roots[root];
  uint32_t v = n->root_gentry[root] ? n->procs[p].gentry : n->procs[p].entry;
  fn (ctx, PP_IP_STEP_ROOT, p, n->root_gentry[root]);
  pp_ip_start (n, &c, root);
  mpz_sub (num, num, n->root_value[root]);
  for (;;)
    {
      const pp_ip_proc *ip = &n->procs[p];
      if (v == ip->gexit || (v == ip->exit && c.depth == 0 && c.rooted))
	{
	  fn (ctx, PP_IP_STEP_END, 0, 0);
	  status = 0;
	  break;
	}
      if (v == ip->exit && c.depth == 0)
	{
	  /* Piecewise, no call open: any successor of EXIT.  */
	  uint32_t k = 0;
	  for (; k < ip->nexits; k++)
	    {
	      uint32_t s = ip->exit_site[k];
	      mpz_set_ui (cnt, 1);
	      if (s != NONE)
		lin_apply (cnt, &n->procs[n->calls[s].proc].psi[n->calls[s].ret],
			   n->procs[n->calls[s].proc].unbal);
	      mpz_add (cnt, cnt, ip->exit_value[k]);
	      if (mpz_cmp (ip->exit_value[k], num) <= 0 && mpz_cmp (num, cnt) < 0)
		break;
	    }
	  if (k == ip->nexits)
	    break;
	  mpz_sub (num, num, ip->exit_value[k]);
	  uint32_t s = ip->exit_site[k];
	  if (s == NONE)
	    {
	      fn (ctx, PP_IP_STEP_END, 0, 0);
	      status = 0;
	      break;
	    }
	  pp_ip_return (n, &c, s);
	  fn (ctx, PP_IP_STEP_RETURN, s, 0);
	  p = n->calls[s].proc;
	  v = n->calls[s].ret;
	  continue;
	}
      if (v == ip->exit)
	{
	  uint32_t s = sites[c.depth - 1];
	  pp_ip_return (n, &c, s);
	  fn (ctx, PP_IP_STEP_RETURN, s, 0);
	  p = n->calls[s].proc;
	  v = n->calls[s].ret;
	  continue;
	}
      bool call = ip->call_at[v] != NONE;
      if (call && ip->out_start[v] < ip->out_start[v + 1])
	{
	  /* Below the leave's value, the path makes the call.  */
	  lin_apply (val, &ip->edges[ip->out_start[v]].rho, c.x);
	  call = mpz_cmp (num, val) < 0;
	}
      if (call)
	{
	  uint32_t s = ip->call_at[v];
	  if (PP_RESERVE (sites, cap, (size_t) c.depth + 1, 16))
	    {
	      status = -1;
	      break;
	    }
	  sites[c.depth] = s;
	  if (pp_ip_call_site (n, &c, s))
	    {
	      status = -1;
	      break;
	    }
	  fn (ctx, PP_IP_STEP_CALL, s, 0);
	  p = n->calls[s].callee;
	  v = n->procs[p].entry;
	  continue;
	}
      /* The successor whose values [rho, rho + psi) hold num.  */
      uint32_t k = ip->out_start[v];
      for (; k < ip->out_start[v + 1]; k++)
	{
	  lin_apply (val, &ip->edges[k].rho, c.x);
	  lin_apply (cnt, &ip->psi[ip->edges[k].dst], c.x);
	  mpz_add (cnt, cnt, val);
	  if (mpz_cmp (val, num) <= 0 && mpz_cmp (num, cnt) < 0)
	    break;
	}
      if (k == ip->out_start[v + 1])
	break;			/* cannot happen below npaths */
      fn (ctx, PP_IP_STEP_EDGE, p, k);
      mpz_sub (num, num, val);
      v = ip->edges[k].dst;
    }
  mpz_clears (num, val, cnt, NULL);
  pp_free (sites);
  pp_ip_cursor_free (&c);
  return status;
}
