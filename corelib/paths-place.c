/* Path-profiling probe placement (Ball & Larus, "Efficient Path Profiling", 1996)
   and pp_paths_plan, which only the plugin needs: event counting on the chords of a
   maximum spanning tree of the DAG, the register initialisation pushed down into
   the first increments and the count pulled up into the last ones.  It builds on
   paths.c's numbering (paths-internal.h), which never calls back here.

   Event counting: give every node a potential phi, phi(ENTRY) = 0 and, along each
   tree edge u -> v, phi(v) = phi(u) + Val(u -> v).  The increment of an edge is
   Inc(u -> v) = phi(u) + Val(u -> v) - phi(v): zero on the tree, and along any
   ENTRY -> EXIT path the increments telescope to the path's number - phi(EXIT).
   Starting the register at phi(EXIT) makes the sum exact, so no EXIT -> ENTRY
   edge is needed in the tree.

   Edges leaving ENTRY or entering EXIT carry code anyway (the initialisation or the
   count, whose constants are free), so they go on the tree last.  That choice also
   guarantees no more incremented inner edges than inner edges with a non-zero
   Ball-Larus value: each component of the forest of inner edges contains a node
   whose first successor edge (value 0) is free, so at least (components - 1) free
   edges have value 0, which is exactly how many free edges the tree needs.  */

#include <math.h>

#include "format/alloc.h"
#include "edgeprof.h"
#include "paths-internal.h"
#include "ppp.h"

static bool
is_free (const pp_graph *d, uint32_t e)
{
  return d->edges[e].src == d->entry || d->edges[e].dst == d->exit;
}

/* Maximum spanning tree of the DAG: inner edges by the caller's weights first,
   then the free edges.  */
static int
choose_tree (const struct pp_paths_build *b, const double *weights)
{
  pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  double *w = pp_paths_alloc (d->nedges, sizeof *w);
  if (!w)
    return PP_PATHS_ENOMEM;
  for (uint32_t e = 0; e < d->nedges; e++)
    {
      if (is_free (d, e))
	w[e] = -INFINITY;
      else if (!weights)
	w[e] = 1;
      else
	{
	  double x = weights[p->dag_origin[e]];
	  w[e] = x >= 0 ? x : 0;	/* NaN too */
	}
    }
  int status = pp_max_spanning_tree (d, w, p->dag_on_tree) < 0
	       ? PP_PATHS_ENOMEM : PP_PATHS_OK;
  pp_free (w);
  return status;
}

/* The walk of the potentials follows tree edges only.  */
static bool
walks_tree_edge (void *data, uint32_t e)
{
  return ((const pp_paths *) data)->dag_on_tree[e];
}

/* Potentials by an undirected walk of the tree from ENTRY (each node's potential is
   fixed by its tree path, whatever the walk), then the increments of the edge
   values VAL into INC, all modulo 2^64 like the register.  *start_value receives
   phi(EXIT), the register's value at ENTRY.  The same tree serves both registers
   of preferential profiling: their updates share the chords.  */
static int
compute_increments (const struct pp_paths_build *b, const uint64_t *val,
		    uint64_t *inc, uint64_t *start_value)
{
  pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  uint64_t *phi = pp_paths_alloc (d->nnodes, sizeof *phi);
  pp_dfs dfs;
  if (!phi || pp_dfs_init (&dfs, d, PP_DFS_BOTH, 0, walks_tree_edge, p) != 0)
    {
      pp_free (phi);
      return PP_PATHS_ENOMEM;
    }
  pp_dfs_step step;
  pp_dfs_root (&dfs, d->entry);
  while (pp_dfs_next (&dfs, &step))
    if (step.event == PP_DFS_ENTER && step.edge != PP_DFS_NONE)
      {
	/* Along the edge: phi(dst) = phi(src) + Val; against it, minus.  */
	bool along = d->edges[step.edge].dst == step.dst;
	phi[step.dst] = along ? phi[step.src] + val[step.edge]
			      : phi[step.src] - val[step.edge];
      }
  for (uint32_t e = 0; e < d->nedges; e++)
    inc[e] = phi[d->edges[e].src] + val[e] - phi[d->edges[e].dst];
  *start_value = phi[d->exit];
  pp_free (phi);
  pp_dfs_free (&dfs);
  return PP_PATHS_OK;
}

/* Whether DAG edge e needs a register update when the registers are not pending
   (an increment of either register).  */
static bool
has_increment (const pp_paths *p, uint32_t e)
{
  return p->dag_inc[e] != 0 || (p->dag_inc2 && p->dag_inc2[e] != 0);
}

/* Where the initialisation goes.  A node with a single DAG in-edge can receive a
   "pending" register value: no code on the way in, the value known at compile time,
   so its out-edges set r (or count a constant) instead of adding.  cost_set[v] and
   cost_pending[v] count the inner edges that need code in the subtree of single-
   in-edge nodes hanging from v, when r is set on arrival at v or pending there.  */
struct pushdown
{
  const struct pp_paths_build *b;
  uint64_t *cost_set, *cost_pending;
};

static bool
has_single_in_edge (const pp_graph *d, uint32_t v)
{
  return pp_graph_in_degree (d, v) == 1;
}

static void
estimate_costs (struct pushdown *pd)
{
  const struct pp_paths_build *b = pd->b;
  const pp_graph *d = &b->p->dag;
  for (uint32_t i = b->ntopo; i-- > 0;)
    {
      uint32_t v = b->topo[i];
      uint64_t set = 0, pending = 0;
      for (uint32_t k = d->succ_start[v]; k < d->succ_start[v + 1]; k++)
	{
	  uint32_t e = d->succ_edges[k], t = d->edges[e].dst;
	  if (t == d->exit)
	    continue;		/* the count is there either way */
	  set += has_increment (b->p, e);
	  if (has_single_in_edge (d, t))
	    {
	      set += pd->cost_set[t];
	      pending += pd->cost_pending[t] < 1 + pd->cost_set[t]
			 ? pd->cost_pending[t] : 1 + pd->cost_set[t];
	    }
	  else
	    pending += 1;
	}
      pd->cost_set[v] = set;
      pd->cost_pending[v] = pending;
    }
}

/* Whether a pending value crosses edge e (from a pending node) without code.  Ties
   go to pushing: the code moves to edges executed no more often.  A re-entry target
   must receive a pending value: nothing can run at the re-entry.  Any other start
   edge's "r = c" rides on the cuts' counts, so pushing past it must not add code.  */
static bool
pushes_initialisation (const struct pushdown *pd, uint32_t e)
{
  const pp_graph *d = &pd->b->p->dag;
  uint32_t t = d->edges[e].dst;
  if (t == d->exit || !has_single_in_edge (d, t))
    return false;
  if (pd->b->p->dag_kind[e] == PP_DAG_START)
    return pd->b->reentry[t] || pd->cost_pending[t] <= pd->cost_set[t];
  return pd->cost_pending[t] <= 1 + pd->cost_set[t];
}

/* The action of every DAG edge, in topological order.  START_VALUE and START2
   are the registers' values at ENTRY.  */
static int
place_dag_actions (struct pushdown *pd, uint64_t start_value, uint64_t start2,
		   pp_path_action *act)
{
  const struct pp_paths_build *b = pd->b;
  const pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  bool *pending = pp_paths_alloc (d->nnodes, sizeof *pending);
  uint64_t *known = pp_paths_alloc (d->nnodes, sizeof *known);
  uint64_t *known2 = pp_paths_alloc (d->nnodes, sizeof *known2);
  if (!pending || !known || !known2)
    {
      pp_free (pending);
      pp_free (known);
      pp_free (known2);
      return PP_PATHS_ENOMEM;
    }
  pending[d->entry] = true;
  known[d->entry] = start_value;
  known2[d->entry] = start2;
  for (uint32_t i = 0; i < b->ntopo; i++)
    {
      uint32_t v = b->topo[i];
      for (uint32_t k = d->succ_start[v]; k < d->succ_start[v + 1]; k++)
	{
	  uint32_t e = d->succ_edges[k], t = d->edges[e].dst;
	  uint64_t inc = p->dag_inc[e], inc2 = p->dag_inc2 ? p->dag_inc2[e] : 0;
	  if (pending[v])
	    {
	      uint64_t value = known[v] + inc, value2 = known2[v] + inc2;
	      if (t == d->exit)
		act[e] = (pp_path_action) { .count = PP_PATH_COUNT_CONST,
					    .count_offset = value,
					    .count_offset2 = value2 };
	      else if (pushes_initialisation (pd, e))
		{
		  pending[t] = true;
		  known[t] = value;
		  known2[t] = value2;
		}
	      else
		act[e] = (pp_path_action) { .reg = PP_PATH_REG_SET,
					    .reg_value = value,
					    .reg_value2 = value2 };
	    }
	  else if (t == d->exit)
	    act[e] = (pp_path_action) { .count = PP_PATH_COUNT_REG,
					.count_offset = inc, .count_offset2 = inc2 };
	  else if (has_increment (p, e))
	    act[e] = (pp_path_action) { .reg = PP_PATH_REG_ADD, .reg_value = inc,
					.reg_value2 = inc2 };
	}
    }
  pp_free (pending);
  pp_free (known);
  pp_free (known2);
  return PP_PATHS_OK;
}

/* Folds the count of f into the action of an edge e entering f's source: the
   path ends there, so e's register update is only needed inside the count.  */
static void
merge_count (pp_path_action *e, const pp_path_action *f)
{
  if (f->count == PP_PATH_COUNT_CONST)
    e->count = PP_PATH_COUNT_CONST, e->count_offset = f->count_offset,
      e->count_offset2 = f->count_offset2;
  else if (e->reg == PP_PATH_REG_SET)
    e->count = PP_PATH_COUNT_CONST, e->count_offset = e->reg_value + f->count_offset,
      e->count_offset2 = e->reg_value2 + f->count_offset2;
  else if (e->reg == PP_PATH_REG_ADD)
    e->count = PP_PATH_COUNT_REG, e->count_offset = e->reg_value + f->count_offset,
      e->count_offset2 = e->reg_value2 + f->count_offset2;
  else
    e->count = PP_PATH_COUNT_REG, e->count_offset = f->count_offset,
      e->count_offset2 = f->count_offset2;
  e->reg = PP_PATH_REG_NONE;
  e->reg_value = e->reg_value2 = 0;
}

/* Moves a count up from a node's only way out into the edges entering it, to merge
   with their code (the count pushed up to the last increments), when the node
   cannot end any other way (one successor in the original graph, so no call in it
   can leave).  The count runs as often either way (each run through the node
   takes one edge in and the way out), and the update of every entering edge that
   has one merges into it, so the move never adds work; it adds code to the
   entering edges that had none.  With G of those (the way out counted too if it
   keeps a start's "r = c") and M entering edges whose update merges, the move is
   made when G <= 1 (no edge more carries code) or G <= M (at most one count
   copy more per update removed: test-paths allows that much over the naive
   placement).  On xz, ppp 1,271.2M -> 1,263.6M instructions and paths
   1,354.2M -> 1,347.5M (rc_encode, hc_find_func), .text +0.1%; SQLite's
   interpreter latch (310 edges in, 280 merging) moves into the cases, where
   GCC merges the copies back into one: no change there.  In reverse
   topological order, so counts climb whole chains.  Start edges keep their
   place: a cut has room for one count only.  */
static void
pull_counts_up (const struct pp_paths_build *b, pp_path_action *act)
{
  const pp_graph *g = b->g;
  const pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  for (uint32_t i = b->ntopo; i-- > 0;)
    {
      uint32_t v = b->topo[i];
      if (v == d->entry || v == d->exit || pp_graph_out_degree (g, v) != 1)
	continue;
      uint32_t f = d->succ_edges[d->succ_start[v]];
      if (act[f].count == PP_PATH_COUNT_NONE)
	continue;
      unsigned gaining = 0, merging = 0;
      if (p->dag_kind[f] == PP_DAG_END)
	{
	  uint32_t start = p->start_of_node[g->edges[p->dag_origin[f]].dst];
	  gaining = start != PP_PATH_NONE && act[start].reg != PP_PATH_REG_NONE;
	}
      bool movable = true;
      for (uint32_t k = d->pred_start[v]; k < d->pred_start[v + 1]; k++)
	{
	  uint32_t e = d->pred_edges[k];
	  movable = movable && p->dag_kind[e] == PP_DAG_EDGE;
	  bool bare = act[e].count == PP_PATH_COUNT_NONE && act[e].reg == PP_PATH_REG_NONE;
	  gaining += bare;
	  merging += !bare;
	}
      if (!movable || (gaining > 1 && gaining > merging))
	continue;
      for (uint32_t k = d->pred_start[v]; k < d->pred_start[v + 1]; k++)
	merge_count (&act[d->pred_edges[k]], &act[f]);
      act[f].count = PP_PATH_COUNT_NONE;
      act[f].count_offset = act[f].count_offset2 = 0;
    }
}

/* Original edges: a DAG edge has its own action (a fake one, the count of a leave
   that is its block's only successor, goes before the block's last statement); a
   cut has its end edge's count, then its head's start, if not pushed down.  */
static void
map_actions (const struct pp_paths_build *b, const pp_path_action *act)
{
  const pp_graph *g = b->g;
  pp_paths *p = b->p;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      pp_path_action a = { 0 };
      if (p->role[e] == PP_PATH_ROLE_DAG)
	{
	  a = act[p->dag_of_edge[e]];
	  a.at_source_end = (g->edges[e].flags & PP_EDGE_FAKE) != 0;
	}
      else if (p->role[e] == PP_PATH_ROLE_BACK || p->role[e] == PP_PATH_ROLE_CUT)
	{
	  const pp_path_action *end = &act[p->dag_of_edge[e]];
	  a.count = end->count;
	  a.count_offset = end->count_offset;
	  a.count_offset2 = end->count_offset2;
	  uint32_t start = p->start_of_node[g->edges[e].dst];
	  if (start != PP_PATH_NONE)
	    {
	      a.reg = act[start].reg;
	      a.reg_value = act[start].reg_value;
	      a.reg_value2 = act[start].reg_value2;
	    }
	}
      p->action[e] = a;
    }
}

/* Fills p->dag_on_tree, p->dag_inc (and dag_inc2 with preferential numbers)
   and p->action.  Returns a pp_paths_status.  */
static int
place (const struct pp_paths_build *b, const double *weights)
{
  pp_paths *p = b->p;
  const pp_graph *d = &p->dag;
  p->dag_on_tree = pp_paths_alloc (d->nedges, sizeof *p->dag_on_tree);
  p->dag_inc = pp_paths_alloc (d->nedges, sizeof *p->dag_inc);
  if (p->ppp)
    p->dag_inc2 = pp_paths_alloc (d->nedges, sizeof *p->dag_inc2);
  p->action = pp_paths_alloc (p->nedges, sizeof *p->action);
  pp_path_action *act = pp_paths_alloc (d->nedges, sizeof *act);
  struct pushdown pd = {
    .b = b,
    .cost_set = pp_paths_alloc (d->nnodes, sizeof *pd.cost_set),
    .cost_pending = pp_paths_alloc (d->nnodes, sizeof *pd.cost_pending),
  };
  int status = PP_PATHS_ENOMEM;
  uint64_t start_value = 0, start2 = 0;
  if (p->dag_on_tree && p->dag_inc && p->action && act && pd.cost_set
      && pd.cost_pending && (!p->ppp || p->dag_inc2))
    status = choose_tree (b, weights);
  if (status == PP_PATHS_OK)
    status = compute_increments (b, p->dag_val, p->dag_inc, &start_value);
  if (status == PP_PATHS_OK && p->ppp)
    status = compute_increments (b, p->ppp->dag_weight, p->dag_inc2, &start2);
  if (status == PP_PATHS_OK)
    {
      estimate_costs (&pd);
      status = place_dag_actions (&pd, start_value, start2, act);
    }
  if (status == PP_PATHS_OK)
    pull_counts_up (b, act);
  if (status == PP_PATHS_OK)
    map_actions (b, act);
  pp_free (act);
  pp_free (pd.cost_set);
  pp_free (pd.cost_pending);
  return status;
}

int
pp_paths_plan (const pp_graph *g, const pp_paths_options *opt, pp_paths **out)
{
  static const pp_paths_options defaults;
  if (!opt)
    opt = &defaults;
  uint64_t limit = opt->max_paths;
  if (limit == 0 || limit > PP_PATHS_MAX)
    limit = PP_PATHS_MAX;
  struct pp_paths_build b;
  int status = pp_paths_build_number (&b, g, opt->path_end, limit, PP_PATHS_MAY_CUT);
  if (status == PP_PATHS_OK && opt->ninteresting)
    {
      b.p->ppp = pp_malloc (sizeof *b.p->ppp);
      b.p->free_ppp = pp_ppp_free;
      status = !b.p->ppp ? PP_PATHS_ENOMEM
	       : pp_ppp_number (b.p, opt->interesting, opt->ninteresting, b.p->ppp);
      if (status != PP_PATHS_OK)
	{
	  pp_free (b.p->ppp);
	  b.p->ppp = NULL;
	}
    }
  if (status == PP_PATHS_OK)
    status = place (&b, opt->weights);
  *out = NULL;
  if (status == PP_PATHS_OK)
    {
      *out = b.p;
      b.p = NULL;
    }
  pp_paths_build_free (&b);
  return status;
}
