/* Recovering every edge count from the chord counters (Ball & Larus 1994, section
   3.2, figure 6).

   The paper's recursive post-order walk is replaced by leaf peeling: a node with
   exactly one incident edge of unknown count determines that edge from its flow
   equation (sum in = sum out); solving it may leave the edge's other end with one
   unknown, and so on.  A worklist makes this iterative, so graphs of any depth are
   fine.  On a spanning tree (or forest) of unknowns, peeling solves everything.

   When pinned edges form a cycle, the unknowns are the tree plus the pinned chords,
   and peeling stops at nodes on or between those cycles.  An unknown edge is
   determined exactly when it lies on no cycle of unknown edges, that is when it is a
   bridge of the unknown subgraph: the flow equations of all nodes on one side of it,
   summed, involve no other unknown.  An undirected depth-first search (pp_dfs, no
   recursion either) finds those bridges and solves them from subtree sums (figure
   6's post-order sums, on a general graph).
   What remains lies on cycles of unknowns and is truly undetermined.

   Fake edges may be allowed to go negative (DESIGN.md: a leave taken -1 times is a
   return through a frame entered before a fork or a counter reset); their counts
   are then stored in two's complement.  */

#include <stdlib.h>

#include "format/alloc.h"
#include "edgeprof.h"

/* Per node: inflow minus outflow over the edges known so far.  At most 2^32 edges of
   at most 2^64 each: |balance| < 2^96, far inside the signed 128-bit range, and so
   are sums of balances over sets of nodes.  */
typedef __int128 flow_balance;

struct propagation
{
  const pp_graph *g;
  uint64_t *counts;
  bool *known;
  flow_balance *balance;
  /* Incident edges of unknown count, self loops excluded: they appear on both
     sides of their node's equation, so they neither help nor hinder solving it.  */
  uint32_t *unknown_degree;
  bool signed_fakes;
  bool modular;			/* any count, kept modulo 2^64 */
};

static bool
is_open_edge (const struct propagation *p, uint32_t e)
{
  return !p->known[e] && p->g->edges[e].src != p->g->edges[e].dst;
}

static uint32_t
other_end (const pp_graph *g, uint32_t e, uint32_t v)
{
  return g->edges[e].src == v ? g->edges[e].dst : g->edges[e].src;
}

/* COUNT is in range for edge E; a negative one is stored in two's complement.  */
static void
set_count (struct propagation *p, uint32_t e, flow_balance count)
{
  const pp_edge *edge = &p->g->edges[e];
  p->counts[e] = (uint64_t) count;
  p->known[e] = true;
  p->balance[edge->src] -= count;
  p->balance[edge->dst] += count;
}

/* Solves open edge E leaving (when SIDE is its source) or entering the set of nodes
   whose known edges have net inflow SURPLUS and which no other open edge leaves.
   Returns false when the count that demands is out of range for E.  */
static bool
solve_cut (struct propagation *p, uint32_t e, uint32_t side, flow_balance surplus)
{
  flow_balance need = p->g->edges[e].src == side ? surplus : -surplus;
  bool in_range = p->modular ? true
		  : p->signed_fakes && (p->g->edges[e].flags & PP_EDGE_FAKE)
		  ? need >= INT64_MIN && need <= INT64_MAX
		  : need >= 0 && need <= (flow_balance) UINT64_MAX;
  if (!in_range)
    return false;
  set_count (p, e, need);
  p->unknown_degree[p->g->edges[e].src]--;
  p->unknown_degree[p->g->edges[e].dst]--;
  return true;
}

/* The one open edge at V, whose unknown degree is 1.  */
static uint32_t
single_open_edge (const struct propagation *p, uint32_t v)
{
  const pp_graph *g = p->g;
  for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
    if (is_open_edge (p, g->succ_edges[k]))
      return g->succ_edges[k];
  for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
    if (is_open_edge (p, g->pred_edges[k]))
      return g->pred_edges[k];
  return UINT32_MAX;
}

/* Returns 0, 1 (inconsistent counts) or -1 (allocation failure).  */
static int
peel_leaves (struct propagation *p)
{
  const pp_graph *g = p->g;
  uint32_t *queue = pp_malloc ((g->nnodes ? g->nnodes : 1) * sizeof *queue);
  if (!queue)
    return -1;
  uint32_t queue_len = 0;
  for (uint32_t v = 0; v < g->nnodes; v++)
    if (p->unknown_degree[v] == 1)
      queue[queue_len++] = v;
  /* A node enters the queue once, when its degree reaches 1; it may have dropped
     to 0 since, when its last open edge was solved from the other end.  */
  int status = 0;
  for (uint32_t head = 0; head < queue_len && status == 0; head++)
    {
      uint32_t v = queue[head];
      if (p->unknown_degree[v] != 1)
	continue;
      uint32_t e = single_open_edge (p, v);
      uint32_t other = other_end (g, e, v);
      if (!solve_cut (p, e, v, p->balance[v]))
	status = 1;
      else if (p->unknown_degree[other] == 1)
	queue[queue_len++] = other;
    }
  pp_free (queue);
  return status;
}

/* The bridge search walks the open edges.  */
static bool
walks_open_edge (void *data, uint32_t e)
{
  return is_open_edge (data, e);
}

/* Tarjan's bridge finding over the open edges, on an undirected pp_dfs walk.  A
   tree edge into V is a bridge when nothing in V's subtree reaches above V
   (low[v] == pre[v]); the subtree is then one side of the cut, and its summed
   balance gives the count.  Parallel edges are told apart by index, so a doubled
   edge is never a bridge.  Sums use the balances from before this pass: a bridge
   solved inside a subtree adds to both of its ends, which are both in the subtree,
   so sums are unchanged.  Returns 0, 1 (inconsistent counts) or -1 (allocation
   failure).  */
static int
solve_bridges (struct propagation *p)
{
  const pp_graph *g = p->g;
  size_t n = g->nnodes;
  uint32_t *low = pp_malloc (n * sizeof *low);
  flow_balance *subtree = pp_malloc (n * sizeof *subtree);
  pp_dfs dfs;
  bool have_dfs = pp_dfs_init (&dfs, g, PP_DFS_BOTH, 0, walks_open_edge, p) == 0;
  int status = -1;
  if (!low || !subtree || !have_dfs)
    goto out;

  status = 0;
  const uint32_t *pre = dfs.pre;
  for (uint32_t root = 0; root < g->nnodes && status == 0; root++)
    {
      if (p->unknown_degree[root] == 0 || !pp_dfs_root (&dfs, root))
	continue;
      pp_dfs_step step;
      while (status == 0 && pp_dfs_next (&dfs, &step))
	{
	  uint32_t v = step.dst, parent = step.src;
	  switch (step.event)
	    {
	    case PP_DFS_ENTER:
	      low[v] = pre[v];
	      subtree[v] = p->balance[v];
	      break;
	    case PP_DFS_BACK:
	    case PP_DFS_CROSS:
	      if (pre[v] < low[parent])
		low[parent] = pre[v];
	      break;
	    case PP_DFS_LEAVE:
	      if (parent == PP_DFS_NONE)
		break;
	      subtree[parent] += subtree[v];
	      if (low[v] < low[parent])
		low[parent] = low[v];
	      if (low[v] == pre[v] && !solve_cut (p, step.edge, v, subtree[v]))
		status = 1;
	      break;
	    }
	}
    }

out:
  pp_free (low);
  pp_free (subtree);
  if (have_dfs)
    pp_dfs_free (&dfs);
  return status;
}

static int
propagate (const pp_graph *g, const int32_t *counter_of_edge,
	   const uint64_t *counters, uint64_t *counts, bool *known, bool signed_fakes,
	   bool modular)
{
  size_t n = g->nnodes ? g->nnodes : 1, m = g->nedges ? g->nedges : 1;
  struct propagation p = {
    .g = g,
    .counts = counts,
    .known = pp_calloc (m, sizeof (bool)),
    .balance = pp_calloc (n, sizeof (flow_balance)),
    .unknown_degree = pp_calloc (n, sizeof (uint32_t)),
    .signed_fakes = signed_fakes,
    .modular = modular,
  };
  int status = -1;
  if (!p.known || !p.balance || !p.unknown_degree)
    goto out;

  for (uint32_t e = 0; e < g->nedges; e++)
    {
      counts[e] = 0;
      const pp_edge *edge = &g->edges[e];
      if (counter_of_edge[e] >= 0)
	set_count (&p, e, counters[counter_of_edge[e]]);
      else if (edge->src != edge->dst)
	{
	  p.unknown_degree[edge->src]++;
	  p.unknown_degree[edge->dst]++;
	}
    }

  status = peel_leaves (&p);
  bool open_edges = false;
  for (uint32_t v = 0; v < g->nnodes; v++)
    if (p.unknown_degree[v])
      open_edges = true;
  if (status == 0 && open_edges)
    status = solve_bridges (&p);
  if (status != 0)
    goto out;

  /* Every node whose edges are all known must balance: this catches counters that
     contradict each other when the plan measures more than a tree's chords.  */
  bool undetermined = false;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (!p.known[e])
      undetermined = true;
  for (uint32_t v = 0; v < g->nnodes; v++)
    if (p.unknown_degree[v] == 0 && p.balance[v] != 0)
      status = 1;
  if (status == 0 && undetermined)
    status = 2;

out:
  if (known && p.known)
    for (uint32_t e = 0; e < g->nedges; e++)
      known[e] = p.known[e];
  pp_free (p.known);
  pp_free (p.balance);
  pp_free (p.unknown_degree);
  return status;
}

int
pp_propagate_counts (const pp_graph *g, const int32_t *counter_of_edge,
		     const uint64_t *counters, uint64_t *counts, bool *known)
{
  return propagate (g, counter_of_edge, counters, counts, known, false, false);
}

int
pp_propagate_counts_signed_fakes (const pp_graph *g, const int32_t *counter_of_edge,
				  const uint64_t *counters, uint64_t *counts,
				  bool *known)
{
  return propagate (g, counter_of_edge, counters, counts, known, true, false);
}

int
pp_propagate_counts_modular (const pp_graph *g, const int32_t *counter_of_edge,
			     const uint64_t *counters, uint64_t *counts)
{
  return propagate (g, counter_of_edge, counters, counts, NULL, false, true);
}
