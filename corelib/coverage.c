/* Minimum coverage instrumentation: the paper's OPTIMAL-INSTRUMENTATION (section 4),
   its subdivision reduction for edges (section 5), LOCAL-INSTRUMENTATION (section 7),
   and the inference function Psi.  See coverage.h for the execution model.

   Everything runs on an "execution model" graph built from the caller's CFG: the
   closing EXIT -> ENTRY edges dropped, edges out of blocks ENTRY cannot reach dropped,
   a stop edge to EXIT added from every block that cannot reach EXIT (so every node
   left lies on an ENTRY -> EXIT path, as the paper assumes), and, in the edge modes,
   each pinned edge between two blocks cut into a leave and a re-entry.

   The paper's analysis (section 3) of a graph K with source s and sink t:
     v is in A(u)  iff  u does not dominate v,   v is in B(u)  iff  u does not
     post-dominate v;  "open" neighbours of u are those in A(u) and B(u);
     u is ambiguous when it has an open predecessor and an open successor;
     u is forward inferable when it has no open successor and some successor it
     dominates, and then has a forward inference edge to each successor it dominates;
     backward inferable and backward edges likewise with predecessors it
     post-dominates.
   Each strongly connected component of the union of inference edges is a chain
   v1 .. vk (forward edges along it, backward edges against it, lemma 7); it is
   "closed" when v1 is not backward inferable and vk is not forward inferable (an
   ambiguous node is a closed chain of one).  Every valid probe set must probe inside
   every closed chain that holds something to infer (lemmas 2 and the proof of
   theorem 1: two sets of executions differ exactly on the chain), and one probe per
   such chain is enough (theorem 1): the optimum.

   The constraints that ENTRY, EXIT and pinned edges carry no probe and need not be
   inferred keep that optimum.  Nodes that need not be inferred may stay unknown as
   long as no inference of a target goes through them:
     blocks: K is the model graph.  ENTRY has no predecessor and EXIT no successor,
       so neither is ambiguous, and the only closed chain without a block is ENTRY,
       EXIT joined by a direct edge.  Nothing depends on it: a node inferred from
       ENTRY post-dominates ENTRY, so lies on every execution, which the direct edge
       rules out; likewise for EXIT.  Every other closed chain gets one block.
     edges: K is the model graph with a node subdividing each probe-able edge and
       pinned edges kept plain, blocks being "hubs" (the paper's section 5, without
       pinned edges).  Only hubs may stay unknown, and no edge node depends on an
       unknown one.  An edge node x = (a, b) inferred forward from b dominates b, so
       b's other predecessors lie after x and b, none is open, and b is inferred
       backward from x: x and b share a component; backward likewise.  Outside its
       component a hub is inferred only from edge nodes: its other neighbours are
       hubs joined by pinned edges, which after the cut only leave ENTRY or enter
       EXIT, and a node inferred from ENTRY is one ENTRY is inferred from (ENTRY
       infers forward from all its successors, EXIT backward from all its
       predecessors), so they share a component.  So closed chains of hubs alone
       and ambiguous hubs are never needed; every other closed chain gets one edge
       node.  (Without the cut, a hub can be inferred from an ambiguous hub joined to
       it by an abnormal edge; the oracle tests find such graphs.)
     blocks by edges: the paper's 2-approximation, its choices restricted to
       probe-able edges; a closed chain whose every choice has a pinned edge is
       uninferable (the two executions of its lower-bound argument differ only on
       the chain and on pinned edges).

   Inference (Psi) does not replay the plan's inference order: x is covered iff some
   hit probe is dominated or post-dominated by x in K.  Each such probe implies x; and
   if the probe set is valid and an execution passes x, it passes a probe that x
   dominates or post-dominates, since otherwise it could be combined with the
   executions avoiding x into a set of executions differing from them only in x.  */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "coverage.h"
#include "dominators.h"

#define NONE UINT32_MAX

static inline bool
pinned (const pp_edge *e)
{
  return (e->flags & PP_EDGE_PINNED) != 0;
}

int
pp_coverage_check_graph (const pp_graph *g)
{
  if (g->entry >= g->nnodes || g->exit >= g->nnodes || g->entry == g->exit
      || !g->succ_start || !g->pred_start || g->succ_start[g->nnodes] != g->nedges)
    return PP_COVERAGE_BAD_GRAPH;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (!(g->edges[e].flags & PP_EDGE_EXIT_ENTRY)
	&& (g->edges[e].dst == g->entry || g->edges[e].src == g->exit))
      return PP_COVERAGE_BAD_GRAPH;
  return 0;
}

/* ------------------------------------------------------------------------- */
/* The execution model.  */

struct model
{
  pp_graph g;
  uint32_t *orig;		/* model edge -> caller's edge; NONE for stop edges */
  uint32_t *model_of;		/* caller's edge -> its (first) model edge, or NONE */
};

static void
model_free (struct model *m)
{
  pp_graph_free (&m->g);
  pp_free (m->orig);
  pp_free (m->model_of);
}

static bool
model_add (struct model *m, uint32_t src, uint32_t dst, uint32_t flags,
	   uint32_t orig)
{
  uint32_t j = pp_graph_add_edge (&m->g, src, dst, flags);
  if (j == NONE)
    return false;
  m->orig[j] = orig;
  if (orig != NONE && m->model_of[orig] == NONE)
    m->model_of[orig] = j;
  return true;
}

/* The nodes reachable from ENTRY (FROM_ENTRY->pre[v] != PP_DFS_NONE) and
   those that reach EXIT (TO_EXIT->pre[v]), ignoring the closing edges.
   Returns 0, or PP_COVERAGE_NOMEM with nothing to free.  */
static int
walk_entry_exit (const pp_graph *g, pp_dfs *from_entry, pp_dfs *to_exit)
{
  if (pp_dfs_init (from_entry, g, PP_DFS_SUCCS, PP_EDGE_EXIT_ENTRY, NULL, NULL))
    return PP_COVERAGE_NOMEM;
  if (pp_dfs_init (to_exit, g, PP_DFS_PREDS, PP_EDGE_EXIT_ENTRY, NULL, NULL))
    {
      pp_dfs_free (from_entry);
      return PP_COVERAGE_NOMEM;
    }
  pp_dfs_run (from_entry, g->entry);
  pp_dfs_run (to_exit, g->exit);
  return 0;
}

/* Whether a block ENTRY reaches cannot reach EXIT: the model gives it a stop
   edge, a run may stop there.  */
static bool
may_stop_at (const pp_dfs *from_entry, const pp_dfs *to_exit, uint32_t v)
{
  return from_entry->pre[v] != PP_DFS_NONE && to_exit->pre[v] == PP_DFS_NONE;
}

int
pp_coverage_may_stop (const pp_graph *g)
{
  pp_dfs from_entry, to_exit;
  if (walk_entry_exit (g, &from_entry, &to_exit))
    return PP_COVERAGE_NOMEM;
  int stops = 0;
  for (uint32_t v = 0; v < g->nnodes && !stops; v++)
    stops = may_stop_at (&from_entry, &to_exit, v);
  pp_dfs_free (&from_entry);
  pp_dfs_free (&to_exit);
  return stops;
}

/* Builds the execution model of g; CUT_PINNED cuts pinned edges between two blocks
   into a leave and a re-entry.  */
static int
build_model (const pp_graph *g, bool cut_pinned, struct model *m)
{
  int status = pp_coverage_check_graph (g);
  if (status != 0)
    return status;
  memset (m, 0, sizeof *m);
  size_t n = g->nnodes;
  pp_dfs from_entry, to_exit;
  bool walked = walk_entry_exit (g, &from_entry, &to_exit) == 0;
  const uint32_t *reached = from_entry.pre;
  /* Each edge gives at most two model edges, each node at most one stop edge.  */
  m->orig = pp_malloc ((2 * (size_t) g->nedges + n) * sizeof *m->orig);
  m->model_of = pp_malloc ((g->nedges ? g->nedges : 1) * sizeof *m->model_of);
  status = PP_COVERAGE_NOMEM;
  if (!walked || !m->orig || !m->model_of
      || pp_graph_init (&m->g, g->nnodes, g->entry, g->exit) != 0)
    goto out;
  for (uint32_t e = 0; e < g->nedges; e++)
    m->model_of[e] = NONE;

  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_edge *edge = &g->edges[e];
      if ((edge->flags & PP_EDGE_EXIT_ENTRY) || reached[edge->src] == PP_DFS_NONE)
	continue;
      if (cut_pinned && pinned (edge) && edge->src != g->entry
	  && edge->dst != g->exit)
	{
	  if (!model_add (m, edge->src, g->exit, edge->flags, e)
	      || !model_add (m, g->entry, edge->dst, edge->flags, e))
	    goto out;
	}
      else if (!model_add (m, edge->src, edge->dst, edge->flags, e))
	goto out;
    }
  for (uint32_t v = 0; v < n; v++)
    if (may_stop_at (&from_entry, &to_exit, v)
	&& !model_add (m, v, g->exit, PP_EDGE_FAKE, NONE))
      goto out;
  if (pp_graph_finish (&m->g) != 0)
    goto out;
  status = 0;

out:
  if (walked)
    {
      pp_dfs_free (&from_entry);
      pp_dfs_free (&to_exit);
    }
  if (status != 0)
    model_free (m);
  return status;
}

/* ------------------------------------------------------------------------- */
/* The edge modes' graph: blocks as hubs, a node per probe-able model edge.  */

struct hub_graph
{
  pp_graph g;
  uint32_t *node_of;		/* model edge -> its node, NONE if pinned */
  uint32_t *edge_of;		/* node -> model edge, NONE for hubs */
};

static void
hub_graph_free (struct hub_graph *h)
{
  pp_graph_free (&h->g);
  pp_free (h->node_of);
  pp_free (h->edge_of);
}

static int
build_hub_graph (const struct model *m, struct hub_graph *h)
{
  const pp_graph *mg = &m->g;
  memset (h, 0, sizeof *h);
  uint32_t nodes = mg->nnodes;
  for (uint32_t j = 0; j < mg->nedges; j++)
    if (!pinned (&mg->edges[j]))
      nodes++;
  h->node_of = pp_malloc ((mg->nedges ? mg->nedges : 1) * sizeof *h->node_of);
  h->edge_of = pp_malloc ((size_t) nodes * sizeof *h->edge_of);
  if (!h->node_of || !h->edge_of
      || pp_graph_init (&h->g, nodes, mg->entry, mg->exit) != 0)
    goto fail;
  for (uint32_t v = 0; v < mg->nnodes; v++)
    h->edge_of[v] = NONE;
  uint32_t next = mg->nnodes;
  for (uint32_t j = 0; j < mg->nedges; j++)
    {
      const pp_edge *e = &mg->edges[j];
      if (pinned (e))
	{
	  h->node_of[j] = NONE;
	  if (pp_graph_add_edge (&h->g, e->src, e->dst, e->flags) == NONE)
	    goto fail;
	  continue;
	}
      h->node_of[j] = next;
      h->edge_of[next] = j;
      if (pp_graph_add_edge (&h->g, e->src, next, 0) == NONE
	  || pp_graph_add_edge (&h->g, next, e->dst, 0) == NONE)
	goto fail;
      next++;
    }
  if (pp_graph_finish (&h->g) == 0)
    return 0;
fail:
  hub_graph_free (h);
  return PP_COVERAGE_NOMEM;
}

/* ------------------------------------------------------------------------- */
/* The paper's analysis of a graph K (sections 3 and 4).  */

enum
{
  OPEN_PRED = 1,		/* a predecessor in A(u) and B(u) */
  OPEN_SUCC = 2,		/* a successor in A(u) and B(u) */
  FORWARD = 4,			/* forward inferable */
  BACKWARD = 8,			/* backward inferable */
};

struct analysis
{
  pp_domtree dom, pdom;
  uint8_t *kind;
  /* Strongly connected components of the inference graph, each in chain order
     v1 .. vk: nodes comp_nodes[comp_start[c] .. comp_start[c+1]-1].  */
  uint32_t ncomps;
  uint32_t *comp_start, *comp_nodes;
};

static void
analysis_free (struct analysis *a)
{
  pp_domtree_free (&a->dom);
  pp_domtree_free (&a->pdom);
  pp_free (a->kind);
  pp_free (a->comp_start);
  pp_free (a->comp_nodes);
  memset (a, 0, sizeof *a);
}

static inline bool
open_to (const struct analysis *a, uint32_t u, uint32_t v)
{
  return !pp_dominates (&a->dom, u, v) && !pp_dominates (&a->pdom, u, v);
}

static inline bool
is_reached (const struct analysis *a, uint32_t u)
{
  return a->dom.pre[u] != PP_DOM_NONE;
}

static void
classify (const pp_graph *k, struct analysis *a)
{
  for (uint32_t u = 0; u < k->nnodes; u++)
    {
      if (!is_reached (a, u))
	continue;
      bool dominated_succ = false, postdominated_pred = false;
      uint8_t kind = 0;
      for (uint32_t i = k->succ_start[u]; i < k->succ_start[u + 1]; i++)
	{
	  uint32_t y = k->edges[k->succ_edges[i]].dst;
	  if (y == u)
	    continue;
	  if (pp_dominates (&a->dom, u, y))
	    dominated_succ = true;
	  else if (open_to (a, u, y))
	    kind |= OPEN_SUCC;
	}
      for (uint32_t i = k->pred_start[u]; i < k->pred_start[u + 1]; i++)
	{
	  uint32_t x = k->edges[k->pred_edges[i]].src;
	  if (x == u)
	    continue;
	  if (pp_dominates (&a->pdom, u, x))
	    postdominated_pred = true;
	  else if (open_to (a, u, x))
	    kind |= OPEN_PRED;
	}
      if (dominated_succ && !(kind & OPEN_SUCC))
	kind |= FORWARD;
      if (postdominated_pred && !(kind & OPEN_PRED))
	kind |= BACKWARD;
      a->kind[u] = kind;
    }
}

/* Adds the inference edges of u to INF, in a fixed order: forward ones to the
   successors u dominates, then backward ones to the predecessors u post-dominates.
   Returns false on allocation failure.  */
static bool
add_inference_edges (const pp_graph *k, const struct analysis *a, uint32_t u,
		     pp_graph *inf)
{
  bool ok = true;
  if (a->kind[u] & FORWARD)
    for (uint32_t i = k->succ_start[u]; i < k->succ_start[u + 1] && ok; i++)
      {
	uint32_t y = k->edges[k->succ_edges[i]].dst;
	if (y != u && pp_dominates (&a->dom, u, y))
	  ok = pp_graph_add_edge (inf, u, y, 0) != UINT32_MAX;
      }
  if (a->kind[u] & BACKWARD)
    for (uint32_t i = k->pred_start[u]; i < k->pred_start[u + 1] && ok; i++)
      {
	uint32_t x = k->edges[k->pred_edges[i]].src;
	if (x != u && pp_dominates (&a->pdom, u, x))
	  ok = pp_graph_add_edge (inf, u, x, 0) != UINT32_MAX;
      }
  return ok;
}

/* Tarjan's strongly connected components of the inference graph INF, on a pp_dfs
   walk from each reached node in turn; comp[u] receives the component of every
   reached node.  LOW and STACK are work arrays of INF's size.  Returns the number
   of components, or NONE on allocation failure.  */
static uint32_t
strong_components (const struct analysis *a, const pp_graph *inf, uint32_t *comp,
		   uint32_t *low, uint32_t *stack)
{
  pp_dfs dfs;
  if (pp_dfs_init (&dfs, inf, PP_DFS_SUCCS, 0, NULL, NULL) != 0)
    return NONE;
  const uint32_t *index = dfs.pre;
  uint32_t ncomps = 0, depth = 0;
  for (uint32_t u = 0; u < inf->nnodes; u++)
    comp[u] = NONE;
  for (uint32_t root = 0; root < inf->nnodes; root++)
    {
      if (!is_reached (a, root) || !pp_dfs_root (&dfs, root))
	continue;
      pp_dfs_step step;
      while (pp_dfs_next (&dfs, &step))
	{
	  uint32_t u = step.dst, w;
	  switch (step.event)
	    {
	    case PP_DFS_ENTER:
	      low[u] = index[u];
	      stack[depth++] = u;
	      break;
	    case PP_DFS_BACK:
	    case PP_DFS_CROSS:
	      if (comp[u] == NONE && index[u] < low[step.src])
		low[step.src] = index[u];
	      break;
	    case PP_DFS_LEAVE:
	      if (low[u] == index[u])
		{
		  do
		    {
		      w = stack[--depth];
		      comp[w] = ncomps;
		    }
		  while (w != u);
		  ncomps++;
		}
	      if (step.src != PP_DFS_NONE && low[u] < low[step.src])
		low[step.src] = low[u];
	      break;
	    }
	}
    }
  pp_dfs_free (&dfs);
  return ncomps;
}

/* Lists each component's nodes in chain order: from the node with no forward edge
   from inside its component, along forward edges (lemma 7).  Nodes are first listed
   in any order so that the list stays a list of the component's nodes whatever the
   graph.  */
static void
order_chains (const pp_graph *k, struct analysis *a, const uint32_t *comp,
	      uint32_t *next, bool *has_prev)
{
  uint32_t n = k->nnodes;
  memset (a->comp_start, 0, ((size_t) a->ncomps + 1) * sizeof *a->comp_start);
  for (uint32_t u = 0; u < n; u++)
    {
      next[u] = NONE;
      has_prev[u] = false;
      if (comp[u] != NONE)
	a->comp_start[comp[u] + 1]++;
    }
  for (uint32_t c = 0; c < a->ncomps; c++)
    a->comp_start[c + 1] += a->comp_start[c];
  for (uint32_t u = 0; u < n; u++)
    if (comp[u] != NONE)
      a->comp_nodes[a->comp_start[comp[u]]++] = u;
  memmove (a->comp_start + 1, a->comp_start,
	   (size_t) a->ncomps * sizeof *a->comp_start);
  a->comp_start[0] = 0;

  for (uint32_t u = 0; u < n; u++)
    {
      if (comp[u] == NONE || !(a->kind[u] & FORWARD))
	continue;
      for (uint32_t i = k->succ_start[u];
	   i < k->succ_start[u + 1] && next[u] == NONE; i++)
	{
	  uint32_t y = k->edges[k->succ_edges[i]].dst;
	  if (y != u && comp[y] == comp[u] && pp_dominates (&a->dom, u, y))
	    {
	      next[u] = y;
	      has_prev[y] = true;
	    }
	}
    }
  for (uint32_t c = 0; c < a->ncomps; c++)
    {
      uint32_t begin = a->comp_start[c], end = a->comp_start[c + 1];
      uint32_t v = NONE;
      for (uint32_t i = begin; i < end && v == NONE; i++)
	if (!has_prev[a->comp_nodes[i]])
	  v = a->comp_nodes[i];
      for (uint32_t i = begin; i < end && v != NONE; i++, v = next[v])
	a->comp_nodes[i] = v;
    }
}

static int
analyse (const pp_graph *k, struct analysis *a)
{
  uint32_t n = k->nnodes;
  memset (a, 0, sizeof *a);
  if (pp_dominators (k, k->entry, false, 0, &a->dom) != 0
      || pp_dominators (k, k->exit, true, 0, &a->pdom) != 0)
    {
      analysis_free (a);
      return PP_COVERAGE_NOMEM;
    }
  pp_graph inf;
  pp_graph_init (&inf, n, k->entry, k->exit);
  a->kind = pp_calloc (n ? n : 1, sizeof *a->kind);
  uint32_t *work = pp_malloc ((3 * (size_t) n + 1) * sizeof *work);
  bool *has_prev = pp_malloc ((n ? n : 1) * sizeof *has_prev);
  if (!a->kind || !work || !has_prev)
    goto fail;
  classify (k, a);

  for (uint32_t u = 0; u < n; u++)
    if (is_reached (a, u) && !add_inference_edges (k, a, u, &inf))
      goto fail;
  if (pp_graph_finish (&inf) != 0)
    goto fail;
  uint32_t *comp = work + 2 * n;
  a->ncomps = strong_components (a, &inf, comp, work, work + n);
  if (a->ncomps == NONE)
    goto fail;
  a->comp_start = pp_malloc (((size_t) a->ncomps + 1) * sizeof *a->comp_start);
  a->comp_nodes = pp_malloc ((n ? n : 1) * sizeof *a->comp_nodes);
  if (!a->comp_start || !a->comp_nodes)
    goto fail;
  order_chains (k, a, comp, work, has_prev);
  pp_graph_free (&inf);
  pp_free (work);
  pp_free (has_prev);
  return 0;

fail:
  pp_graph_free (&inf);
  pp_free (work);
  pp_free (has_prev);
  analysis_free (a);
  return PP_COVERAGE_NOMEM;
}

static inline bool
is_block (const pp_graph *g, uint32_t v)
{
  return v != g->entry && v != g->exit;
}

static inline bool
closed_chain (const struct analysis *a, uint32_t c)
{
  uint32_t first = a->comp_nodes[a->comp_start[c]];
  uint32_t last = a->comp_nodes[a->comp_start[c + 1] - 1];
  return !(a->kind[first] & BACKWARD) && !(a->kind[last] & FORWARD);
}

/* The chains a plan must see into when only the blocks in TARGET (NULL: all)
   need exact coverage: each chain holding a target, and each chain a needed
   chain that is not closed is inferred from (the inference edges leaving
   it), and so on.  By induction from the closed ones, a probe in every
   needed closed chain makes every needed chain inferable, as theorem 1 does
   for all of them; a chain nothing needed depends on may stay unknown.
   Fills NEEDED[c] (all true without TARGET); false on allocation failure.  */
static bool
needed_chains (const pp_graph *k, const struct analysis *a, const bool *target,
	       bool *needed)
{
  for (uint32_t c = 0; c < a->ncomps; c++)
    needed[c] = target == NULL;
  if (!target)
    return true;
  uint32_t n = k->nnodes;
  uint32_t *comp_of = pp_malloc ((n ? n : 1) * sizeof *comp_of);
  uint32_t *stack = pp_malloc (((size_t) a->ncomps + 1) * sizeof *stack);
  if (!comp_of || !stack)
    {
      pp_free (comp_of);
      pp_free (stack);
      return false;
    }
  for (uint32_t v = 0; v < n; v++)
    comp_of[v] = NONE;
  uint32_t top = 0;
  for (uint32_t c = 0; c < a->ncomps; c++)
    for (uint32_t i = a->comp_start[c]; i < a->comp_start[c + 1]; i++)
      {
	uint32_t v = a->comp_nodes[i];
	comp_of[v] = c;
	if (target[v] && !needed[c])
	  {
	    needed[c] = true;
	    stack[top++] = c;
	  }
      }
  while (top)
    {
      uint32_t c = stack[--top];
      for (uint32_t i = a->comp_start[c]; i < a->comp_start[c + 1]; i++)
	{
	  uint32_t u = a->comp_nodes[i];
	  /* The inference edges of u (add_inference_edges).  */
	  for (int backward = 0; backward < 2; backward++)
	    {
	      if (!(a->kind[u] & (backward ? BACKWARD : FORWARD)))
		continue;
	      const uint32_t *start = backward ? k->pred_start : k->succ_start;
	      const uint32_t *list = backward ? k->pred_edges : k->succ_edges;
	      for (uint32_t j = start[u]; j < start[u + 1]; j++)
		{
		  const pp_edge *e = &k->edges[list[j]];
		  uint32_t y = backward ? e->src : e->dst;
		  if (y == u || !pp_dominates (backward ? &a->pdom : &a->dom, u, y))
		    continue;
		  uint32_t d = comp_of[y];
		  if (d != NONE && !needed[d])
		    {
		      needed[d] = true;
		      stack[top++] = d;
		    }
		}
	    }
	}
    }
  pp_free (comp_of);
  pp_free (stack);
  return true;
}

/* Marks the blocks of the chains no plan needs (needed_chains) in INEXACT:
   their coverage is reported only when surely covered.  */
static void
mark_unneeded (const pp_graph *g, const struct analysis *a, const bool *needed,
	       bool *inexact)
{
  for (uint32_t c = 0; c < a->ncomps; c++)
    if (!needed[c])
      for (uint32_t i = a->comp_start[c]; i < a->comp_start[c + 1]; i++)
	if (is_block (g, a->comp_nodes[i]))
	  inexact[a->comp_nodes[i]] = true;
}

/* ------------------------------------------------------------------------- */
/* Plans.  */

/* Turns a mark per id into an ascending list.  */
static int
collect (const bool *mark, uint32_t n, uint32_t *count, uint32_t **list)
{
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++)
    c += mark[i];
  *count = c;
  *list = pp_malloc ((c ? c : 1) * sizeof **list);
  if (!*list)
    return PP_COVERAGE_NOMEM;
  c = 0;
  for (uint32_t i = 0; i < n; i++)
    if (mark[i])
      (*list)[c++] = i;
  return 0;
}

/* The estimated cost of a probe (coverage.h): a block's, the sum of the weights
   of its incoming edges; an edge's, its weight; 1 each without weights.  */
static double
block_cost (const pp_graph *g, const double *w, uint32_t v)
{
  if (!w)
    return 1;
  double sum = 0;
  for (uint32_t i = g->pred_start[v]; i < g->pred_start[v + 1]; i++)
    sum += w[g->pred_edges[i]];
  return sum;
}

static double
edge_cost (const double *w, uint32_t e)
{
  return w ? w[e] : 1;
}

/* Section 4: one block in every closed chain that holds a block, the cheapest
   (the first of the cheapest in chain order).  */
static int
plan_blocks (const pp_graph *g, const double *w, const bool *target, bool *probe,
	     bool *inexact)
{
  struct model m;
  struct analysis a = { 0 };
  int status = build_model (g, false, &m);
  if (status != 0)
    return status;
  status = analyse (&m.g, &a);
  bool *needed = status == 0 ? pp_calloc (a.ncomps + 1, sizeof *needed) : NULL;
  if (status == 0 && (!needed || !needed_chains (&m.g, &a, target, needed)))
    {
      status = PP_COVERAGE_NOMEM;
      analysis_free (&a);
    }
  if (status == 0)
    {
      mark_unneeded (g, &a, needed, inexact);
      for (uint32_t c = 0; c < a.ncomps; c++)
	{
	  if (!closed_chain (&a, c) || !needed[c])
	    continue;
	  uint32_t best = NONE;
	  double best_cost = 0;
	  for (uint32_t i = a.comp_start[c]; i < a.comp_start[c + 1]; i++)
	    {
	      uint32_t v = a.comp_nodes[i];
	      double cost = is_block (g, v) ? block_cost (g, w, v) : 0;
	      if (is_block (g, v) && (best == NONE || cost < best_cost))
		{
		  best = v;
		  best_cost = cost;
		}
	    }
	  if (best != NONE)
	    probe[best] = true;
	}
      analysis_free (&a);
    }
  pp_free (needed);
  model_free (&m);
  return status;
}

/* Section 5: the same on the subdivided graph, one edge node per closed chain that
   holds one, the cheapest (blocks and pinned edges are never inferred, so chains
   of hubs alone need nothing).  */
static int
plan_edges (const pp_graph *g, const double *w, bool *probe)
{
  struct model m;
  struct hub_graph h;
  struct analysis a;
  int status = build_model (g, true, &m);
  if (status != 0)
    return status;
  status = build_hub_graph (&m, &h);
  if (status == 0)
    {
      status = analyse (&h.g, &a);
      if (status == 0)
	{
	  for (uint32_t c = 0; c < a.ncomps; c++)
	    {
	      if (!closed_chain (&a, c))
		continue;
	      uint32_t best = NONE;
	      double best_cost = 0;
	      for (uint32_t i = a.comp_start[c]; i < a.comp_start[c + 1]; i++)
		{
		  uint32_t j = h.edge_of[a.comp_nodes[i]];
		  if (j == NONE)
		    continue;
		  double cost = edge_cost (w, m.orig[j]);
		  if (best == NONE || cost < best_cost)
		    {
		      best = m.orig[j];
		      best_cost = cost;
		    }
		}
	      if (best != NONE)
		probe[best] = true;
	    }
	  analysis_free (&a);
	}
      hub_graph_free (&h);
    }
  model_free (&m);
  return status;
}

/* One of section 7's ways of seeing into a closed chain: a set of model edges, all of
   which get probes.  */
enum choice_kind { ENTERING, LEAVING, LINK };

/* The cost of the model edges of choice KIND for the chain node(s) at position I
   (for LINK, the edges from chain[i] to chain[i+1]), marking them in PROBE when
   MARK.  Returns HUGE_VAL when there is none or one of them is pinned.  */
static double
choice_edges (const struct model *m, const struct analysis *a, const double *w,
	      const uint32_t *chain, uint32_t len, enum choice_kind kind,
	      uint32_t i, bool mark, bool *probe)
{
  const pp_graph *k = &m->g;
  uint32_t u = kind == LEAVING ? chain[len - 1] : chain[i];
  bool preds = kind == ENTERING;
  uint32_t begin = preds ? k->pred_start[u] : k->succ_start[u];
  uint32_t end = preds ? k->pred_start[u + 1] : k->succ_start[u + 1];
  uint32_t count = 0;
  double cost = 0;
  for (uint32_t p = begin; p < end; p++)
    {
      uint32_t j = preds ? k->pred_edges[p] : k->succ_edges[p];
      const pp_edge *e = &k->edges[j];
      uint32_t other = preds ? e->src : e->dst;
      bool chosen = kind == LINK ? other == chain[i + 1]
		    : other != u && open_to (a, u, other);
      if (!chosen)
	continue;
      if (pinned (e))
	return HUGE_VAL;
      if (mark)
	probe[m->orig[j]] = true;
      count++;
      cost += edge_cost (w, m->orig[j]);
    }
  return count ? cost : HUGE_VAL;
}

/* Section 7: for each closed chain that holds a block, the cheapest of: every edge
   entering v1 from an open predecessor, every edge leaving vk to an open successor,
   or every edge of one link v_i -> v_i+1.  Any valid probe set contains one of these
   sets entirely (the lower-bound executions of theorem 1 can take any edge of each),
   and they all lie next to the chain: hence the factor 2.  The cheapest is the one
   of least total cost (the first in that order of the cheapest): every edge is
   next to at most two chains, so the union costs at most twice any valid set, in
   cost as in size (with no weights, cost is size).  Blocks of a chain with no
   choice free of pinned edges are marked in INEXACT.  */
static int
plan_blocks_by_edges (const pp_graph *g, const double *w, bool *probe,
		      bool *inexact)
{
  struct model m;
  struct analysis a;
  int status = build_model (g, true, &m);
  if (status != 0)
    return status;
  status = analyse (&m.g, &a);
  if (status == 0)
    {
      for (uint32_t c = 0; c < a.ncomps; c++)
	{
	  const uint32_t *chain = a.comp_nodes + a.comp_start[c];
	  uint32_t len = a.comp_start[c + 1] - a.comp_start[c];
	  bool holds_block = false;
	  for (uint32_t i = 0; i < len; i++)
	    holds_block |= is_block (g, chain[i]);
	  if (!holds_block || !closed_chain (&a, c))
	    continue;
	  enum choice_kind best_kind = ENTERING;
	  uint32_t best_at = 0;
	  double best_cost = choice_edges (&m, &a, w, chain, len, ENTERING, 0,
					   false, NULL);
	  double cost = choice_edges (&m, &a, w, chain, len, LEAVING, 0, false,
				      NULL);
	  if (cost < best_cost)
	    {
	      best_cost = cost;
	      best_kind = LEAVING;
	    }
	  for (uint32_t at = 0; at + 1 < len; at++)
	    {
	      cost = choice_edges (&m, &a, w, chain, len, LINK, at, false, NULL);
	      if (cost < best_cost)
		{
		  best_cost = cost;
		  best_kind = LINK;
		  best_at = at;
		}
	    }
	  if (best_cost != HUGE_VAL)
	    choice_edges (&m, &a, w, chain, len, best_kind, best_at, true, probe);
	  else
	    for (uint32_t i = 0; i < len; i++)
	      if (is_block (g, chain[i]))
		inexact[chain[i]] = true;
	}
      analysis_free (&a);
    }
  model_free (&m);
  return status;
}

int
pp_coverage_plan_compute (const pp_graph *g, enum pp_coverage_mode mode,
			  pp_coverage_plan *plan)
{
  return pp_coverage_plan_weighted (g, mode, NULL, plan);
}

int
pp_coverage_plan_weighted (const pp_graph *g, enum pp_coverage_mode mode,
			   const double *weights, pp_coverage_plan *plan)
{
  return pp_coverage_plan_targets (g, mode, weights, NULL, plan);
}

/* Edge probes for the targets only: the blocks that are no target and only
   pass control on (one plain edge in, one plain edge out, not ENTRY or EXIT)
   are contracted away when they can reach EXIT, chains of them too, each
   P -> L ... -> S becoming one edge P -> S; section 7 then plans the smaller graph, where every block is a
   target, and a probe on a contracted edge goes on its first edge P -> L,
   which is taken exactly when the whole chain is.  So the two graphs have
   the same executions but for the skipped blocks, and the same dominators
   among the others, on which Psi's inference rests: Psi on the whole graph
   with these probes tells every target as exactly as section 7 does on the
   small one.  The contracted blocks are inexact.  */
static int
plan_blocks_by_edges_for (const pp_graph *g, const double *w, const bool *target,
			  bool *probe, bool *inexact)
{
  const uint32_t plain_only = PP_EDGE_FAKE | PP_EDGE_ABNORMAL | PP_EDGE_EH
			      | PP_EDGE_EXIT_ENTRY;
  uint32_t n = g->nnodes;
  bool *skip = pp_calloc (n ? n : 1, sizeof *skip);
  uint32_t *id = pp_malloc ((n ? n : 1) * sizeof *id);
  uint32_t *first = pp_malloc ((g->nedges ? g->nedges : 1) * sizeof *first);
  double *hw = w ? pp_malloc ((g->nedges ? g->nedges : 1) * sizeof *hw) : NULL;
  bool *hprobe = pp_calloc (g->nedges ? g->nedges : 1, sizeof *hprobe);
  pp_graph h;
  memset (&h, 0, sizeof h);
  int status = PP_COVERAGE_NOMEM;
  if (!skip || !id || !first || (w && !hw) || !hprobe)
    goto out;
  /* Only where the run goes on: a block that cannot reach EXIT may be where
     it stops (a loop that never ends, a signal), which its successor would
     not tell.  */
  bool *live = pp_calloc (n ? n : 1, sizeof *live);
  uint32_t *stack = pp_malloc ((n ? n : 1) * sizeof *stack), depth = 0;
  if (!live || !stack)
    {
      pp_free (live);
      pp_free (stack);
      goto out;
    }
  live[g->exit] = true;
  stack[depth++] = g->exit;
  while (depth)
    {
      uint32_t v = stack[--depth];
      for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
	{
	  const pp_edge *x = &g->edges[g->pred_edges[k]];
	  if (!(x->flags & PP_EDGE_EXIT_ENTRY) && !live[x->src])
	    {
	      live[x->src] = true;
	      stack[depth++] = x->src;
	    }
	}
    }
  pp_free (stack);
  for (uint32_t v = 0; v < n; v++)
    if (v != g->entry && v != g->exit && !target[v] && live[v]
	&& pp_graph_in_degree (g, v) == 1 && pp_graph_out_degree (g, v) == 1)
      {
	const pp_edge *in = &g->edges[g->pred_edges[g->pred_start[v]]];
	const pp_edge *out = &g->edges[g->succ_edges[g->succ_start[v]]];
	skip[v] = !(in->flags & plain_only) && !(out->flags & plain_only)
		  && in->src != v;
      }
  pp_free (live);
  uint32_t m = 0;
  for (uint32_t v = 0; v < n; v++)
    id[v] = skip[v] ? UINT32_MAX : m++;
  if (pp_graph_init (&h, m, id[g->entry], id[g->exit]))
    goto out;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_edge *x = &g->edges[e];
      if (skip[x->src])
	continue;
      uint32_t d = x->dst;
      /* A cycle of skipped blocks has no way in: none is entered here.  */
      for (uint32_t steps = 0; skip[d] && steps < n; steps++)
	d = g->edges[g->succ_edges[g->succ_start[d]]].dst;
      if (skip[d])
	continue;
      uint32_t k = pp_graph_add_edge (&h, id[x->src], id[d], x->flags);
      if (k == UINT32_MAX)
	goto out;
      first[k] = e;
      if (hw)
	hw[k] = w[e];
    }
  if (pp_graph_finish (&h))
    goto out;
  bool *hinexact = pp_calloc (m ? m : 1, sizeof *hinexact);
  if (!hinexact)
    goto out;
  status = plan_blocks_by_edges (&h, hw, hprobe, hinexact);
  if (status == 0)
    {
      for (uint32_t k = 0; k < h.nedges; k++)
	if (hprobe[k])
	  probe[first[k]] = true;
      for (uint32_t v = 0; v < n; v++)
	inexact[v] = skip[v] || hinexact[id[v]];
    }
  pp_free (hinexact);
out:
  pp_graph_free (&h);
  pp_free (skip);
  pp_free (id);
  pp_free (first);
  pp_free (hw);
  pp_free (hprobe);
  return status;
}

int
pp_coverage_plan_targets (const pp_graph *g, enum pp_coverage_mode mode,
			  const double *weights, const bool *target,
			  pp_coverage_plan *plan)
{
  memset (plan, 0, sizeof *plan);
  plan->mode = mode;
  if (mode > PP_COVER_BLOCKS_BY_EDGES)
    return PP_COVERAGE_BAD_MODE;
  int status = pp_coverage_check_graph (g);
  if (status != 0)
    return status;
  uint32_t nids = mode == PP_COVER_BLOCKS ? g->nnodes : g->nedges;
  bool *probe = pp_calloc (nids ? nids : 1, sizeof *probe);
  bool *inexact = pp_calloc (g->nnodes ? g->nnodes : 1, sizeof *inexact);
  if (!probe || !inexact)
    status = PP_COVERAGE_NOMEM;
  else if (mode == PP_COVER_BLOCKS)
    status = plan_blocks (g, weights, target, probe, inexact);
  else if (mode == PP_COVER_EDGES)
    status = plan_edges (g, weights, probe);
  else if (target)
    status = plan_blocks_by_edges_for (g, weights, target, probe, inexact);
  else
    status = plan_blocks_by_edges (g, weights, probe, inexact);
  if (status == 0)
    status = collect (probe, nids, &plan->nprobes, &plan->probes);
  if (status == 0)
    status = collect (inexact, g->nnodes, &plan->ninexact, &plan->inexact);
  pp_free (probe);
  pp_free (inexact);
  if (status != 0)
    {
      pp_coverage_plan_free (plan);
      plan->mode = mode;
    }
  return status;
}

void
pp_coverage_plan_free (pp_coverage_plan *plan)
{
  pp_free (plan->probes);
  pp_free (plan->inexact);
  memset (plan, 0, sizeof *plan);
}

/* ------------------------------------------------------------------------- */
/* Psi.  */

/* Marks v and its ancestors in T, stopping at the first one already marked: each
   node is marked once over all calls.  */
static void
mark_ancestors (const pp_domtree *t, uint32_t v, bool *mark)
{
  while (v != PP_DOM_NONE && !mark[v])
    {
      mark[v] = true;
      v = t->idom[v];
    }
}

static int
check_probes (const pp_graph *g, enum pp_coverage_mode mode, const uint32_t *probes,
	      uint32_t nprobes)
{
  for (uint32_t i = 0; i < nprobes; i++)
    {
      uint32_t p = probes[i];
      bool ok = mode == PP_COVER_BLOCKS ? p < g->nnodes && is_block (g, p)
		: p < g->nedges && !pinned (&g->edges[p]);
      if (!ok)
	return PP_COVERAGE_BAD_PROBE;
    }
  return 0;
}

int
pp_coverage_infer (const pp_graph *g, enum pp_coverage_mode mode,
		   const uint32_t *probes, uint32_t nprobes, const bool *hit,
		   bool *covered)
{
  if (mode > PP_COVER_BLOCKS_BY_EDGES)
    return PP_COVERAGE_BAD_MODE;
  int status = pp_coverage_check_graph (g);
  if (status == 0)
    status = check_probes (g, mode, probes, nprobes);
  if (status != 0)
    return status;

  struct model m;
  struct hub_graph h;
  pp_domtree dom, pdom;
  bool edges = mode == PP_COVER_EDGES;
  status = build_model (g, mode != PP_COVER_BLOCKS, &m);
  if (status != 0)
    return status;
  if (edges && (status = build_hub_graph (&m, &h)) != 0)
    {
      model_free (&m);
      return status;
    }
  const pp_graph *k = edges ? &h.g : &m.g;
  bool *under_dom = pp_calloc (k->nnodes, sizeof *under_dom);
  bool *under_pdom = pp_calloc (k->nnodes, sizeof *under_pdom);
  memset (&dom, 0, sizeof dom);
  memset (&pdom, 0, sizeof pdom);
  status = PP_COVERAGE_NOMEM;
  if (!under_dom || !under_pdom
      || pp_dominators (k, k->entry, false, 0, &dom) != 0
      || pp_dominators (k, k->exit, true, 0, &pdom) != 0)
    goto out;

  for (uint32_t i = 0; i < nprobes; i++)
    {
      if (!hit[i])
	continue;
      if (mode == PP_COVER_BLOCKS)
	{
	  mark_ancestors (&dom, probes[i], under_dom);
	  mark_ancestors (&pdom, probes[i], under_pdom);
	  continue;
	}
      uint32_t j = m.model_of[probes[i]];
      if (j == NONE)
	continue;		/* leaves a block ENTRY does not reach */
      if (edges)
	{
	  mark_ancestors (&dom, h.node_of[j], under_dom);
	  mark_ancestors (&pdom, h.node_of[j], under_pdom);
	}
      else
	{
	  /* An edge lies under x iff its source is dominated by x or its
	     destination post-dominated by x.  */
	  mark_ancestors (&dom, m.g.edges[j].src, under_dom);
	  mark_ancestors (&pdom, m.g.edges[j].dst, under_pdom);
	}
    }

  if (edges)
    for (uint32_t e = 0; e < g->nedges; e++)
      {
	uint32_t j = m.model_of[e];
	uint32_t x = j == NONE ? NONE : h.node_of[j];
	covered[e] = x != NONE && (under_dom[x] || under_pdom[x]);
      }
  else
    for (uint32_t v = 0; v < g->nnodes; v++)
      covered[v] = is_block (g, v) && (under_dom[v] || under_pdom[v]);
  status = 0;

out:
  pp_domtree_free (&dom);
  pp_domtree_free (&pdom);
  pp_free (under_dom);
  pp_free (under_pdom);
  if (edges)
    hub_graph_free (&h);
  model_free (&m);
  return status;
}
