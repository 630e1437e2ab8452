/* Oracle tests for corelib/ edge profiling (Ball & Larus 1994, sections 3.2 and 5).

   The oracle is execution itself: random walks over random CFGs count every edge,
   the chord counters are set from those counts, and propagation must give back
   every other count exactly.  Around that: spanning-tree shape and maximality
   (brute force on small graphs, the cycle property on all), the heuristic weighting
   against weights derived independently from the structure of generated programs,
   and inconsistent profiles.  Each property prints one PASS/FAIL line; a failure
   names the first graph (seed and size) that broke it.  */

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edgeprof.h"
#include "unit.h"

#define ENTRY 0u
#define EXIT 1u

#define BASE_SEED 0x9a7b9f0f2024ull
#define NRANDOM_GRAPHS 3000
#define MAX_RANDOM_NODES 200
#define NSMALL_GRAPHS 3000
#define MAX_SMALL_EDGES 10
#define NSTRUCTURED_GRAPHS 1500
#define MAX_STRUCTURED_NODES 200
#define DEEP_NESTING 400
#define LARGE_NODES 100000

static struct unit_property
  prop_vp_theorem = { .name = "vertexprof: block counts are determined iff every simple cycle of the uncounted edges is pipeless (linear algebra, all counter sets of small graphs)" },
  prop_vp_pipeless = { .name = "vertexprof: the heuristic leaves only pipeless simple cycles uncounted, none through a kept edge (small graphs)" },
  prop_vp_exact = { .name = "vertexprof: propagated block counts equal the oracle's, and every edge reported determined (kept ones always)" },
  prop_vp_fewer = { .name = "vertexprof: never more counters than edge counting" },
  prop_adjacency = { .name = "graph: successor and predecessor lists in edge order" },
  prop_graph_api = { .name = "graph: bad edges refused, finish can be repeated" },
  prop_exact_heuristic = { .name = "edgeprof: propagated counts equal the oracle, heuristic weights" },
  prop_exact_uniform = { .name = "edgeprof: propagated counts equal the oracle, uniform weights" },
  prop_exact_random = { .name = "edgeprof: propagated counts equal the oracle, random weights" },
  prop_counter_count = { .name = "spanning: |E| - |V| + components - pinned chords counters, numbered in edge order" },
  prop_tree_shape = { .name = "spanning: the tree spans every component and has no cycle" },
  prop_pinned = { .name = "spanning: pinned edges are on the tree unless they close a pinned cycle" },
  prop_pinned_cycles = { .name = "spanning: pinned cycles are reported and propagation returns 2" },
  prop_determined = { .name = "propagate: exactly the edges on no cycle of unknowns are determined" },
  prop_deterministic = { .name = "spanning: same graph and weights, same tree" },
  prop_brute_force = { .name = "spanning: tree weight equals the brute-force maximum on small graphs" },
  prop_cycle_property = { .name = "spanning: no chord outweighs a free tree edge on its cycle" },
  prop_heuristic_finite = { .name = "heuristic: finite non-negative weights on arbitrary graphs" },
  prop_heuristic_structure = { .name = "heuristic: section 5 weights on structured programs" },
  prop_kirchhoff = { .name = "heuristic: Kirchhoff's law holds on structured programs" },
  prop_loop_multiplier = { .name = "heuristic: loop entries weigh 10 times their entry edges" },
  prop_deeper_chords = { .name = "heuristic: chords at the deepest if-nesting of their cycle" },
  prop_deep_nesting = { .name = "heuristic: 400 nested loops stay finite and propagate exactly" },
  prop_inconsistent = { .name = "propagate: impossible chord counts return 1" },
  prop_overflow = { .name = "propagate: counts beyond 64 bits return 1" },
  prop_unbalanced = { .name = "propagate: fully measured counts that break flow return 1" },
  prop_signed_fakes = { .name = "propagate: negative fake leaves in two's complement with signed_fakes, refused without" },
  prop_worked_weights = { .name = "worked example: heuristic weights" },
  prop_worked_chords = { .name = "worked example: chord sets, heuristic and uniform" },
  prop_worked_counts = { .name = "worked example: counts from an execution" },
  prop_irregular_weights = { .name = "heuristic: irreducible, self, endless loops and dead code by hand" },
  prop_large = { .name = "edgeprof: 100000-node graphs plan and propagate exactly" };

/* ------------------------------------------------------------------------- */
/* Helpers.  */

static void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size);
  if (!p)
    {
      fputs ("test-edgeprof: out of memory\n", stderr);
      exit (2);
    }
  return p;
}

static uint32_t
rnd_below (unsigned long long *rng, uint32_t n)
{
  return (uint32_t) (unit_rand (rng) % n);
}

static bool
is_pinned (const pp_graph *g, uint32_t e)
{
  return (g->edges[e].flags & PP_EDGE_PINNED) != 0;
}

static uint32_t
closing_edge (const pp_graph *g)
{
  for (uint32_t e = 0; e < g->nedges; e++)
    if (g->edges[e].flags & PP_EDGE_EXIT_ENTRY)
      return e;
  return UINT32_MAX;
}

/* Edges as generators produce them, before they become a pp_graph.  */
struct gen_edge
{
  pp_edge e;
  double expected;		/* structured programs: the section 5 weight */
  int if_depth;			/* structured programs: enclosing if branches */
  bool back;			/* structured programs: a loop's back edge */
};

struct edge_vec
{
  struct gen_edge *v;
  size_t n, cap;
};

static struct gen_edge *
push_edge (struct edge_vec *ev, uint32_t src, uint32_t dst, uint32_t flags)
{
  if (ev->n == ev->cap)
    {
      ev->cap = ev->cap ? 2 * ev->cap : 64;
      ev->v = realloc (ev->v, ev->cap * sizeof *ev->v);
      if (!ev->v)
	{
	  fputs ("test-edgeprof: out of memory\n", stderr);
	  exit (2);
	}
    }
  struct gen_edge *ge = &ev->v[ev->n++];
  *ge = (struct gen_edge) { .e = { .src = src, .dst = dst, .flags = flags } };
  return ge;
}

static void
build_graph (pp_graph *g, uint32_t nnodes, const struct edge_vec *ev)
{
  if (pp_graph_init (g, nnodes, ENTRY, EXIT) != 0)
    exit (2);
  for (size_t i = 0; i < ev->n; i++)
    if (pp_graph_add_edge (g, ev->v[i].e.src, ev->v[i].e.dst, ev->v[i].e.flags)
	== UINT32_MAX)
      {
	fputs ("test-edgeprof: pp_graph_add_edge failed\n", stderr);
	exit (2);
      }
  if (pp_graph_finish (g) != 0)
    exit (2);
}

/* Undirected components of the edges with use[e] (all edges when use is NULL),
   as a BFS forest: parent node, parent edge and depth of each node.  */
static uint32_t
components (const pp_graph *g, const bool *use, uint32_t *parent,
	    uint32_t *parent_edge, uint32_t *depth)
{
  uint32_t *seen = xcalloc (g->nnodes, sizeof *seen);
  uint32_t *queue = xcalloc (g->nnodes, sizeof *queue);
  uint32_t ncomponents = 0;
  for (uint32_t root = 0; root < g->nnodes; root++)
    {
      if (seen[root])
	continue;
      ncomponents++;
      uint32_t head = 0, tail = 0;
      queue[tail++] = root;
      seen[root] = 1;
      if (parent)
	{
	  parent[root] = root;
	  parent_edge[root] = UINT32_MAX;
	  depth[root] = 0;
	}
      while (head < tail)
	{
	  uint32_t v = queue[head++];
	  for (int dir = 0; dir < 2; dir++)
	    {
	      const uint32_t *start = dir ? g->pred_start : g->succ_start;
	      const uint32_t *list = dir ? g->pred_edges : g->succ_edges;
	      for (uint32_t k = start[v]; k < start[v + 1]; k++)
		{
		  uint32_t e = list[k];
		  uint32_t t = dir ? g->edges[e].src : g->edges[e].dst;
		  if ((use && !use[e]) || seen[t])
		    continue;
		  seen[t] = 1;
		  queue[tail++] = t;
		  if (parent)
		    {
		      parent[t] = v;
		      parent_edge[t] = e;
		      depth[t] = depth[v] + 1;
		    }
		}
	    }
	}
    }
  free (seen);
  free (queue);
  return ncomponents;
}

/* The tree as a rooted forest, for walking fundamental cycles.  */
struct rooted_tree
{
  uint32_t *parent, *parent_edge, *depth;
  uint32_t ncomponents;
  uint32_t *scratch;		/* for fundamental_cycle */
};

static void
root_tree (const pp_graph *g, const bool *on_tree, struct rooted_tree *t)
{
  t->parent = xcalloc (g->nnodes, sizeof *t->parent);
  t->parent_edge = xcalloc (g->nnodes, sizeof *t->parent_edge);
  t->depth = xcalloc (g->nnodes, sizeof *t->depth);
  t->scratch = xcalloc (g->nnodes, sizeof *t->scratch);
  t->ncomponents = components (g, on_tree, t->parent, t->parent_edge, t->depth);
}

static void
free_tree (struct rooted_tree *t)
{
  free (t->parent);
  free (t->parent_edge);
  free (t->depth);
  free (t->scratch);
}

/* The tree edges of chord c's fundamental cycle, oriented along c: pushing one more
   unit around the cycle (through c from src to dst, back through the tree) changes
   edges[i] by +1 when forward[i], by -1 otherwise.  Returns their number.  */
static uint32_t
fundamental_cycle (const pp_graph *g, const struct rooted_tree *t, uint32_t c,
		   uint32_t *edges, bool *forward)
{
  uint32_t from = g->edges[c].dst, to = g->edges[c].src;
  uint32_t nfrom = 0, nto = 0;
  /* from climbs towards the meeting point, then we descend to `to'; collect the
     descending half in reverse at the end of the arrays.  */
  uint32_t *down = t->scratch;
  while (from != to)
    if (t->depth[from] >= t->depth[to])
      {
	uint32_t e = t->parent_edge[from];
	edges[nfrom] = e;
	forward[nfrom] = g->edges[e].src == from;
	nfrom++;
	from = t->parent[from];
      }
    else
      {
	down[nto++] = to;
	to = t->parent[to];
      }
  for (uint32_t i = nto; i-- > 0;)
    {
      uint32_t x = down[i], e = t->parent_edge[x];
      edges[nfrom] = e;
      forward[nfrom] = g->edges[e].dst == x;
      nfrom++;
    }
  return nfrom;
}

/* ------------------------------------------------------------------------- */
/* Random CFGs: loops, irreducible regions, several exits, self loops, parallel
   edges, dead code, early leaves (v -> EXIT, fake), re-entries (ENTRY -> v, fake),
   abnormal and EH edges, and EXIT -> ENTRY somewhere in the edge list.  */

/* Marks FROM and everything with a path to it, given predecessor lists.  */
static void
reach_exit_backwards (const uint32_t *pred_start, const uint32_t *pred_src,
		      bool *reaches_exit, uint32_t from, uint32_t *stack)
{
  uint32_t depth = 0;
  if (reaches_exit[from])
    return;
  reaches_exit[from] = true;
  stack[depth++] = from;
  while (depth)
    {
      uint32_t v = stack[--depth];
      for (uint32_t k = pred_start[v]; k < pred_start[v + 1]; k++)
	if (!reaches_exit[pred_src[k]])
	  {
	    reaches_exit[pred_src[k]] = true;
	    stack[depth++] = pred_src[k];
	  }
    }
}

/* With connect_to_exit, every node reached from ENTRY gets a way to EXIT (a plain
   or a fake edge, as GCC connects infinite loops to EXIT), so that executions end.  */
static void
random_cfg (pp_graph *g, unsigned long long *rng, uint32_t n, bool connect_to_exit)
{
  struct edge_vec ev = { 0 };
  bool *dead = xcalloc (n, sizeof *dead);
  bool *fake_exit = xcalloc (n, sizeof *fake_exit);
  for (uint32_t v = 2; v < n; v++)
    dead[v] = n > 3 && rnd_below (rng, 16) == 0;

  /* A spanning arborescence from ENTRY over the live nodes; dead nodes hang off
     other dead nodes (or nothing).  */
  if (n == 2)
    push_edge (&ev, ENTRY, EXIT, 0);
  for (uint32_t v = 2; v < n; v++)
    {
      uint32_t u = rnd_below (rng, v);
      if (!dead[v])
	push_edge (&ev, (u == EXIT || dead[u]) ? ENTRY : u, v, 0);
      else if (u >= 2 && dead[u])
	push_edge (&ev, u, v, 0);
    }

  uint32_t nextra = rnd_below (rng, 3 * n / 2 + 2);
  for (uint32_t i = 0; i < nextra; i++)
    {
      uint32_t kind = rnd_below (rng, 100);
      if (kind < 8 && ev.n)
	{
	  /* Parallel abnormal edges would be a pinned cycle in most graphs.  */
	  pp_edge twin = ev.v[rnd_below (rng, ev.n)].e;
	  push_edge (&ev, twin.src, twin.dst, twin.flags & ~PP_EDGE_ABNORMAL);
	  continue;
	}
      uint32_t src;
      do
	src = rnd_below (rng, n);
      while (src == EXIT);
      uint32_t dst = kind < 18 ? src
		     : kind < 33 ? EXIT
		     : kind < 35 ? ENTRY
		     : rnd_below (rng, n);
      if (dead[dst] && !dead[src])
	continue;		/* that would make dead code live */
      uint32_t r = rnd_below (rng, 100);
      uint32_t flags = r < 2 ? PP_EDGE_ABNORMAL
		       : r < 7 ? PP_EDGE_EH
		       : r < 30 ? PP_EDGE_TRUE
		       : r < 50 ? PP_EDGE_FALSE
		       : r < 70 ? PP_EDGE_FALLTHRU : 0;
      push_edge (&ev, src, dst, flags);
    }

  if (connect_to_exit)
    {
      uint32_t *pred_start = xcalloc (n + 1, sizeof *pred_start);
      uint32_t *pred_src = xcalloc (ev.n, sizeof *pred_src);
      uint32_t *stack = xcalloc (n, sizeof *stack);
      bool *reaches_exit = xcalloc (n, sizeof *reaches_exit);
      for (size_t i = 0; i < ev.n; i++)
	pred_start[ev.v[i].e.dst + 1]++;
      for (uint32_t v = 0; v < n; v++)
	pred_start[v + 1] += pred_start[v];
      uint32_t *fill = xcalloc (n, sizeof *fill);
      for (size_t i = 0; i < ev.n; i++)
	{
	  uint32_t d = ev.v[i].e.dst;
	  pred_src[pred_start[d] + fill[d]++] = ev.v[i].e.src;
	}
      reach_exit_backwards (pred_start, pred_src, reaches_exit, EXIT, stack);
      for (uint32_t v = n; v-- > 0;)
	if (!dead[v] && !reaches_exit[v])
	  {
	    bool fake = rnd_below (rng, 2);
	    push_edge (&ev, v, EXIT, fake ? PP_EDGE_FAKE : 0);
	    fake_exit[v] |= fake;
	    reach_exit_backwards (pred_start, pred_src, reaches_exit, v, stack);
	  }
      free (pred_start);
      free (pred_src);
      free (stack);
      free (reaches_exit);
      free (fill);
    }

  for (uint32_t v = 2; v < n; v++)
    if (!dead[v] && !fake_exit[v] && rnd_below (rng, 12) == 0)
      {
	push_edge (&ev, v, EXIT, PP_EDGE_FAKE);
	fake_exit[v] = true;
      }
  for (uint32_t v = 2; v < n; v++)
    if (!dead[v] && !fake_exit[v] && rnd_below (rng, 20) == 0)
      push_edge (&ev, ENTRY, v, PP_EDGE_FAKE);
  push_edge (&ev, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);

  for (size_t i = ev.n; i > 1; i--)
    {
      size_t j = rnd_below (rng, (uint32_t) i);
      struct gen_edge tmp = ev.v[i - 1];
      ev.v[i - 1] = ev.v[j];
      ev.v[j] = tmp;
    }
  build_graph (g, n, &ev);
  free (ev.v);
  free (dead);
  free (fake_exit);
}

/* Nodes reached from ENTRY without the closing edge.  */
static bool *
reached_from_entry (const pp_graph *g)
{
  bool *reached = xcalloc (g->nnodes, sizeof *reached);
  uint32_t *stack = xcalloc (g->nnodes, sizeof *stack);
  uint32_t depth = 0;
  reached[g->entry] = true;
  stack[depth++] = g->entry;
  while (depth)
    {
      uint32_t v = stack[--depth];
      for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	{
	  uint32_t e = g->succ_edges[k];
	  uint32_t t = g->edges[e].dst;
	  if (!(g->edges[e].flags & PP_EDGE_EXIT_ENTRY) && !reached[t])
	    {
	      reached[t] = true;
	      stack[depth++] = t;
	    }
	}
    }
  free (stack);
  return reached;
}

/* One bounded random execution from START to EXIT, adding the edges it takes to
   oracle.  Fake edges are taken rarely: an early leave ends the execution, a
   re-entry starts a segment of it at the re-entered block.  Once the step budget is
   spent it heads for EXIT by a shortest path (dist: edges to EXIT).  */
static void
random_walk (const pp_graph *g, unsigned long long *rng, uint32_t start,
	     uint64_t budget, const uint32_t *dist, uint32_t *choices, uint64_t *oracle)
{
  uint32_t closing = closing_edge (g);
  uint32_t v = start;
  for (uint64_t step = 0; v != g->exit; step++)
    {
      uint32_t nchoices = 0;
      if (step < budget)
	{
	  bool allow_fake = rnd_below (rng, 16) == 0;
	  for (int pass = 0; pass < 2 && nchoices == 0; pass++)
	    for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	      {
		uint32_t e = g->succ_edges[k];
		if (e != closing
		    && (pass || allow_fake || !(g->edges[e].flags & PP_EDGE_FAKE)))
		  choices[nchoices++] = e;
	      }
	}
      else
	for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	  {
	    uint32_t e = g->succ_edges[k];
	    if (e != closing && dist[g->edges[e].dst] < dist[v])
	      choices[nchoices++] = e;
	  }
      uint32_t e = choices[rnd_below (rng, nchoices)];
      oracle[e]++;
      v = g->edges[e].dst;
    }
}

/* The oracle: up to max_runs random executions, EXIT -> ENTRY counted once per
   execution.  With resumed runs, some executions instead resume in a block with a
   fake leave, as frames entered before a fork or a counter reset do: the leave is
   then taken -1 times (wrapping, which is the two's complement that
   pp_propagate_counts_signed_fakes stores) and EXIT -> ENTRY not at all.  */
static void
random_executions (const pp_graph *g, unsigned long long *rng, uint32_t max_runs,
		   uint64_t steps_per_node, bool resumed_runs, uint64_t *oracle)
{
  uint32_t closing = closing_edge (g);
  uint32_t *dist = xcalloc (g->nnodes, sizeof *dist);
  uint32_t *queue = xcalloc (g->nnodes, sizeof *queue);
  uint32_t *choices = xcalloc (g->nedges, sizeof *choices);
  for (uint32_t v = 0; v < g->nnodes; v++)
    dist[v] = UINT32_MAX;
  uint32_t head = 0, tail = 0;
  dist[g->exit] = 0;
  queue[tail++] = g->exit;
  while (head < tail)
    {
      uint32_t v = queue[head++];
      for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
	{
	  uint32_t e = g->pred_edges[k], s = g->edges[e].src;
	  if (e != closing && dist[s] == UINT32_MAX)
	    {
	      dist[s] = dist[v] + 1;
	      queue[tail++] = s;
	    }
	}
    }

  /* Leaves from blocks an execution can be in.  */
  uint32_t *leaves = xcalloc (g->nedges, sizeof *leaves), nleaves = 0;
  if (resumed_runs)
    {
      bool *reached = reached_from_entry (g);
      for (uint32_t e = 0; e < g->nedges; e++)
	if ((g->edges[e].flags & PP_EDGE_FAKE) && g->edges[e].dst == g->exit
	    && reached[g->edges[e].src])
	  leaves[nleaves++] = e;
      free (reached);
    }

  memset (oracle, 0, g->nedges * sizeof *oracle);
  uint32_t runs = rnd_below (rng, max_runs + 1);
  for (uint32_t run = 0; run < runs; run++)
    {
      uint64_t budget = 1 + unit_rand (rng) % (steps_per_node * g->nnodes + 8);
      if (nleaves && rnd_below (rng, 2))
	{
	  uint32_t leave = leaves[rnd_below (rng, nleaves)];
	  oracle[leave]--;
	  random_walk (g, rng, g->edges[leave].src, budget, dist, choices, oracle);
	}
      else
	{
	  random_walk (g, rng, g->entry, budget, dist, choices, oracle);
	  oracle[closing]++;
	}
    }
  free (dist);
  free (queue);
  free (choices);
  free (leaves);
}

/* ------------------------------------------------------------------------- */
/* Checks shared by the random, structured and large graphs.  */

/* Reusable search state: a node is seen when its mark equals the current stamp.  */
struct search
{
  uint32_t *mark, *stack, stamp;
};

static void
search_init (struct search *s, const pp_graph *g)
{
  s->mark = xcalloc (g->nnodes, sizeof *s->mark);
  s->stack = xcalloc (g->nnodes, sizeof *s->stack);
  s->stamp = 0;
}

static void
search_free (struct search *s)
{
  free (s->mark);
  free (s->stack);
}

/* Whether a and b are joined by edges with use[e], edge skip aside.  */
static bool
connected (const pp_graph *g, const bool *use, uint32_t skip, uint32_t a, uint32_t b,
	   struct search *s)
{
  uint32_t stamp = ++s->stamp, *stack = s->stack, depth = 0;
  s->mark[a] = stamp;
  stack[depth++] = a;
  while (depth && s->mark[b] != stamp)
    {
      uint32_t v = stack[--depth];
      for (int dir = 0; dir < 2; dir++)
	{
	  const uint32_t *start = dir ? g->pred_start : g->succ_start;
	  const uint32_t *list = dir ? g->pred_edges : g->succ_edges;
	  for (uint32_t k = start[v]; k < start[v + 1]; k++)
	    {
	      uint32_t e = list[k];
	      uint32_t t = dir ? g->edges[e].src : g->edges[e].dst;
	      if (use[e] && e != skip && s->mark[t] != stamp)
		{
		  s->mark[t] = stamp;
		  stack[depth++] = t;
		}
	    }
	}
    }
  return s->mark[b] == stamp;
}

/* Plans with w, measures the chords from the oracle and propagates.  With no pinned
   chord every count must come back exactly.  Otherwise propagation must say 2 and
   determine exactly the unmeasured edges that lie on no cycle of unmeasured edges
   (the others could carry any extra circulation), every one of them right.  */
typedef int propagate_fn (const pp_graph *, const int32_t *, const uint64_t *,
			  uint64_t *, bool *);

static void
check_exact (struct unit_property *p, const pp_graph *g, const double *w,
	     const uint64_t *oracle, propagate_fn *propagate, const char *what)
{
  int32_t *counter_of_edge = xcalloc (g->nedges, sizeof *counter_of_edge);
  uint64_t *counters = xcalloc (g->nedges, sizeof *counters);
  uint64_t *counts = xcalloc (g->nedges, sizeof *counts);
  bool *known = xcalloc (g->nedges, sizeof *known);
  bool *unmeasured = xcalloc (g->nedges, sizeof *unmeasured);
  int pinned_chords = -1;
  int ncounters = pp_plan_edge_counters (g, w, counter_of_edge, &pinned_chords);
  if (ncounters < 0)
    {
      unit_check (p, 0, "%s: planning failed", what);
      goto out;
    }
  for (uint32_t e = 0; e < g->nedges; e++)
    if (counter_of_edge[e] >= 0)
      counters[counter_of_edge[e]] = oracle[e];
    else
      unmeasured[e] = true;
  int status = propagate (g, counter_of_edge, counters, counts, known);
  if (pinned_chords > 0)
    {
      unit_check (&prop_pinned_cycles, status == 2,
	     "%s: %d pinned chords but propagation returned %d", what,
	     pinned_chords, status);
      struct search search;
      search_init (&search, g);
      uint32_t e = 0;
      bool determined = true;
      for (; e < g->nedges; e++)
	{
	  const pp_edge *edge = &g->edges[e];
	  determined = !unmeasured[e]
		       || (edge->src != edge->dst
			   && !connected (g, unmeasured, e, edge->src, edge->dst,
					  &search));
	  if (known[e] != determined)
	    break;
	}
      search_free (&search);
      unit_check (&prop_determined, e == g->nedges, "%s: edge %u %s, but it is %s", what,
	     e, determined ? "left unknown" : "determined",
	     determined ? "on no cycle of unmeasured edges"
	     : "on a cycle of unmeasured edges");
    }
  else
    unit_check (p, status == 0, "%s: propagation returned %d", what, status);
  for (uint32_t e = 0; e < g->nedges; e++)
    if (known[e] || pinned_chords == 0)
      if (!known[e] || counts[e] != oracle[e])
	{
	  unit_check (p, 0, "%s: edge %u (%u->%u) got %llu%s, executed %llu times", what,
		 e, g->edges[e].src, g->edges[e].dst, (unsigned long long) counts[e],
		 known[e] ? "" : " (unknown)", (unsigned long long) oracle[e]);
	  goto out;
	}
  unit_check (p, 1, "");
out:
  free (counter_of_edge);
  free (counters);
  free (counts);
  free (known);
  free (unmeasured);
}

/* A plan that leaves a few chords unmeasured besides the tree: propagation must
   determine exactly the unmeasured edges on no cycle of unmeasured edges (bridges
   between the cycles included), and get them right.  */
static void
check_partial_plan (const pp_graph *g, const double *w, const uint64_t *oracle,
		    unsigned long long *rng, const char *what)
{
  bool *unmeasured = xcalloc (g->nedges, sizeof *unmeasured);
  int32_t *counter_of_edge = xcalloc (g->nedges, sizeof *counter_of_edge);
  uint64_t *counters = xcalloc (g->nedges, sizeof *counters);
  uint64_t *counts = xcalloc (g->nedges, sizeof *counts);
  bool *known = xcalloc (g->nedges, sizeof *known);
  pp_max_spanning_tree (g, w, unmeasured);
  for (uint32_t k = 1 + rnd_below (rng, 3); k > 0; k--)
    unmeasured[rnd_below (rng, g->nedges)] = true;
  int32_t ncounters = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      counter_of_edge[e] = unmeasured[e] ? -1 : ncounters++;
      if (!unmeasured[e])
	counters[counter_of_edge[e]] = oracle[e];
    }
  int status = pp_propagate_counts (g, counter_of_edge, counters, counts, known);
  struct search search;
  search_init (&search, g);
  bool undetermined = false;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_edge *edge = &g->edges[e];
      bool determined = !unmeasured[e]
			|| (edge->src != edge->dst
			    && !connected (g, unmeasured, e, edge->src, edge->dst,
					   &search));
      undetermined |= !determined;
      if (known[e] != determined || (known[e] && counts[e] != oracle[e]))
	{
	  unit_check (&prop_determined, 0,
		 "%s, partial plan: edge %u (%u->%u) %s %llu, executed %llu, %s", what,
		 e, edge->src, edge->dst, known[e] ? "determined as" : "unknown,",
		 (unsigned long long) counts[e], (unsigned long long) oracle[e],
		 determined ? "on no cycle of unmeasured edges"
		 : "on a cycle of unmeasured edges");
	  goto out;
	}
    }
  unit_check (&prop_determined, status == (undetermined ? 2 : 0),
	 "%s, partial plan: propagation returned %d", what, status);
out:
  search_free (&search);
  free (unmeasured);
  free (counter_of_edge);
  free (counters);
  free (counts);
  free (known);
}

static void
check_adjacency (const pp_graph *g, const char *what)
{
  bool ok = g->succ_start[0] == 0 && g->pred_start[0] == 0
	    && g->succ_start[g->nnodes] == g->nedges
	    && g->pred_start[g->nnodes] == g->nedges;
  for (uint32_t v = 0; v < g->nnodes && ok; v++)
    {
      for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1] && ok; k++)
	ok = g->edges[g->succ_edges[k]].src == v
	     && (k == g->succ_start[v] || g->succ_edges[k - 1] < g->succ_edges[k]);
      for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1] && ok; k++)
	ok = g->edges[g->pred_edges[k]].dst == v
	     && (k == g->pred_start[v] || g->pred_edges[k - 1] < g->pred_edges[k]);
    }
  unit_check (&prop_adjacency, ok, "%s: lists out of order or misplaced", what);
}

/* Tree shape, pinned edges, determinism, the cycle property and the counter plan,
   for one weighting.  */
static void
check_tree (const pp_graph *g, const double *w, uint32_t ncomponents,
	    uint32_t expected_pinned_chords, const char *what)
{
  bool *on_tree = xcalloc (g->nedges, sizeof *on_tree);
  bool *again = xcalloc (g->nedges, sizeof *again);
  int32_t *counter_of_edge = xcalloc (g->nedges, sizeof *counter_of_edge);
  uint32_t *cycle = xcalloc (g->nnodes, sizeof *cycle);
  bool *forward = xcalloc (g->nnodes, sizeof *forward);

  int stuck = pp_max_spanning_tree (g, w, on_tree);
  pp_max_spanning_tree (g, w, again);
  unit_check (&prop_deterministic, memcmp (on_tree, again, g->nedges * sizeof *on_tree) == 0,
	 "%s: two runs gave different trees", what);

  uint32_t ntree = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    ntree += on_tree[e];
  struct rooted_tree t;
  root_tree (g, on_tree, &t);
  unit_check (&prop_tree_shape, ntree == g->nnodes - ncomponents
	 && t.ncomponents == ncomponents,
	 "%s: %u tree edges, %u tree components, graph has %u components", what,
	 ntree, t.ncomponents, ncomponents);

  unit_check (&prop_pinned, stuck == (int) expected_pinned_chords,
	 "%s: %d pinned chords reported, %u expected", what, stuck,
	 expected_pinned_chords);
  if (expected_pinned_chords == 0)
    for (uint32_t e = 0; e < g->nedges; e++)
      if (is_pinned (g, e) && !on_tree[e])
	{
	  unit_check (&prop_pinned, 0, "%s: pinned edge %u (%u->%u) is a chord", what, e,
		 g->edges[e].src, g->edges[e].dst);
	  break;
	}

  /* With pinned edges forced onto the tree, the tree is maximum iff no free chord
     is heavier than a free tree edge on its fundamental cycle.  */
  bool maximal = true;
  for (uint32_t c = 0; c < g->nedges && maximal; c++)
    {
      if (on_tree[c] || is_pinned (g, c))
	continue;
      uint32_t len = fundamental_cycle (g, &t, c, cycle, forward);
      for (uint32_t i = 0; i < len && maximal; i++)
	if (!is_pinned (g, cycle[i]) && w[cycle[i]] < w[c])
	  {
	    maximal = false;
	    unit_check (&prop_cycle_property, 0,
		   "%s: chord %u (weight %g) outweighs tree edge %u (weight %g)",
		   what, c, w[c], cycle[i], w[cycle[i]]);
	  }
    }
  if (maximal)
    unit_check (&prop_cycle_property, 1, "");

  int pinned_chords = -1;
  int ncounters = pp_plan_edge_counters (g, w, counter_of_edge, &pinned_chords);
  bool plan_ok = ncounters == (int) (g->nedges - (g->nnodes - ncomponents))
				- pinned_chords
		 && pinned_chords == stuck;
  int32_t next = 0;
  for (uint32_t e = 0; e < g->nedges && plan_ok; e++)
    {
      bool measured = !on_tree[e] && !is_pinned (g, e);
      plan_ok = measured ? counter_of_edge[e] == next++ : counter_of_edge[e] == -1;
    }
  unit_check (&prop_counter_count, plan_ok && next == ncounters,
	 "%s: %d counters and %d pinned chords for %u edges, %u nodes, %u components",
	 what, ncounters, pinned_chords, g->nedges, g->nnodes, ncomponents);

  free_tree (&t);
  free (on_tree);
  free (again);
  free (counter_of_edge);
  free (cycle);
  free (forward);
}

/* Raises a chord's count so that a tree edge on its cycle would have to go
   negative; propagation must notice.  */
static void
check_inconsistent (const pp_graph *g, const double *w, const uint64_t *oracle,
		    unsigned long long *rng, const char *what)
{
  int32_t *counter_of_edge = xcalloc (g->nedges, sizeof *counter_of_edge);
  uint64_t *counters = xcalloc (g->nedges, sizeof *counters);
  uint64_t *counts = xcalloc (g->nedges, sizeof *counts);
  bool *on_tree = xcalloc (g->nedges, sizeof *on_tree);
  uint32_t *cycle = xcalloc (g->nnodes, sizeof *cycle);
  bool *forward = xcalloc (g->nnodes, sizeof *forward);
  int pinned_chords;
  pp_plan_edge_counters (g, w, counter_of_edge, &pinned_chords);
  pp_max_spanning_tree (g, w, on_tree);
  struct rooted_tree t;
  root_tree (g, on_tree, &t);
  for (uint32_t e = 0; e < g->nedges; e++)
    if (counter_of_edge[e] >= 0)
      counters[counter_of_edge[e]] = oracle[e];

  /* With pinned chords the raised edge may sit where nothing is determined.  */
  for (uint32_t c = 0; c < g->nedges && pinned_chords == 0; c++)
    {
      if (counter_of_edge[c] < 0)
	continue;
      uint32_t len = fundamental_cycle (g, &t, c, cycle, forward);
      uint32_t i = 0;
      while (i < len && forward[i])
	i++;
      if (i == len)
	continue;		/* a directed cycle: any extra count is consistent */
      uint64_t saved = counters[counter_of_edge[c]];
      counters[counter_of_edge[c]] += oracle[cycle[i]] + 1;
      int status = pp_propagate_counts (g, counter_of_edge, counters, counts, NULL);
      unit_check (&prop_inconsistent, status == 1,
	     "%s: chord %u raised by %llu past tree edge %u: propagation returned %d",
	     what, c, (unsigned long long) oracle[cycle[i]] + 1, cycle[i], status);
      counters[counter_of_edge[c]] = saved;
      break;
    }

  /* Measuring every edge leaves nothing to solve: only the final flow check can
     catch a count that does not fit.  */
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      counter_of_edge[e] = (int32_t) e;
      counters[e] = oracle[e];
    }
  int status = pp_propagate_counts (g, counter_of_edge, counters, counts, NULL);
  unit_check (&prop_unbalanced, status == 0, "%s: exact full counts returned %d", what,
	 status);
  uint32_t e = rnd_below (rng, g->nedges);
  if (g->edges[e].src != g->edges[e].dst)
    {
      counters[e]++;
      status = pp_propagate_counts (g, counter_of_edge, counters, counts, NULL);
      unit_check (&prop_unbalanced, status == 1,
	     "%s: edge %u off by one returned %d", what, e, status);
    }

  free_tree (&t);
  free (counter_of_edge);
  free (counters);
  free (counts);
  free (on_tree);
  free (cycle);
  free (forward);
}

/* Executions that resume in the middle (see random_executions) can take a fake
   leave a negative number of times: pp_propagate_counts_signed_fakes must give it
   back in two's complement, pp_propagate_counts must refuse it.  Returns whether
   some leave went negative.  */
static bool
check_negative_leaves (const pp_graph *g, const double *w, const uint64_t *oracle,
		       const char *what)
{
  check_exact (&prop_signed_fakes, g, w, oracle, pp_propagate_counts_signed_fakes,
	       what);
  bool negative = false;
  for (uint32_t e = 0; e < g->nedges; e++)
    if ((int64_t) oracle[e] < 0)
      negative = true;
  int32_t *counter_of_edge = xcalloc (g->nedges, sizeof *counter_of_edge);
  uint64_t *counters = xcalloc (g->nedges, sizeof *counters);
  uint64_t *counts = xcalloc (g->nedges, sizeof *counts);
  int pinned_chords;
  pp_plan_edge_counters (g, w, counter_of_edge, &pinned_chords);
  for (uint32_t e = 0; e < g->nedges; e++)
    if (counter_of_edge[e] >= 0)
      counters[counter_of_edge[e]] = oracle[e];
  /* With pinned chords the negative leave may be one of the undetermined edges.  */
  if (pinned_chords == 0)
    {
      int status = pp_propagate_counts (g, counter_of_edge, counters, counts, NULL);
      unit_check (&prop_signed_fakes, status == (negative ? 1 : 0),
	     "%s: pp_propagate_counts returned %d with%s negative leaves", what,
	     status, negative ? "" : "out");
    }
  free (counter_of_edge);
  free (counters);
  free (counts);
  return negative;
}

static void
check_heuristic_finite (const pp_graph *g, const double *w, const char *what)
{
  bool *reached = reached_from_entry (g);
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_edge *edge = &g->edges[e];
      bool ok = isfinite (w[e]) && w[e] >= 0;
      if (edge->flags & PP_EDGE_EXIT_ENTRY)
	ok = ok && w[e] == 1;
      else if (!reached[edge->src])
	ok = ok && w[e] == 0;
      if (!ok)
	{
	  unit_check (&prop_heuristic_finite, 0, "%s: edge %u (%u->%u) weighs %g", what, e,
		 edge->src, edge->dst, w[e]);
	  free (reached);
	  return;
	}
    }
  unit_check (&prop_heuristic_finite, 1, "");
  free (reached);
}

static void
random_weights (const pp_graph *g, unsigned long long *rng, double *w)
{
  /* Small integers give many ties; GCC's estimates are more spread out.  */
  bool spread = rnd_below (rng, 2);
  for (uint32_t e = 0; e < g->nedges; e++)
    w[e] = spread ? (double) (unit_rand (rng) >> 11) * 0x1p-53 * 10000
		  : (double) rnd_below (rng, 5);
}

static void check_vertex_exact (const pp_graph *g, const double *w,
				const bool *keep, const uint64_t *oracle,
				const char *what);

static void
test_random_graphs (void)
{
  unsigned long total_nodes = 0, total_edges = 0, with_pinned_cycles = 0;
  unsigned long with_negative_leaves = 0;
  for (uint32_t i = 0; i < NRANDOM_GRAPHS; i++)
    {
      unsigned long long seed = BASE_SEED + i, rng = seed;
      uint32_t n = 2 + rnd_below (&rng, MAX_RANDOM_NODES - 1);
      char what[96];
      snprintf (what, sizeof what, "random graph seed %#llx, %u nodes", seed, n);

      pp_graph g;
      random_cfg (&g, &rng, n, true);
      total_nodes += g.nnodes;
      total_edges += g.nedges;
      check_adjacency (&g, what);

      uint64_t *oracle = xcalloc (g.nedges, sizeof *oracle);
      double *w = xcalloc (g.nedges, sizeof *w);
      bool *pinned = xcalloc (g.nedges, sizeof *pinned);
      random_executions (&g, &rng, 4, 4, false, oracle);

      uint32_t ncomponents = components (&g, NULL, NULL, NULL, NULL);
      uint32_t npinned = 0;
      for (uint32_t e = 0; e < g.nedges; e++)
	npinned += pinned[e] = is_pinned (&g, e);
      uint32_t pinned_rank = g.nnodes - components (&g, pinned, NULL, NULL, NULL);
      uint32_t expected_pinned_chords = npinned - pinned_rank;
      with_pinned_cycles += expected_pinned_chords > 0;

      if (pp_weights_heuristic (&g, w) != 0)
	unit_check (&prop_heuristic_finite, 0, "%s: out of memory", what);
      check_heuristic_finite (&g, w, what);
      check_tree (&g, w, ncomponents, expected_pinned_chords, what);
      check_exact (&prop_exact_heuristic, &g, w, oracle, pp_propagate_counts, what);

      pp_weights_uniform (&g, w);
      check_tree (&g, w, ncomponents, expected_pinned_chords, what);
      check_exact (&prop_exact_uniform, &g, w, oracle, pp_propagate_counts, what);
      check_inconsistent (&g, w, oracle, &rng, what);
      check_partial_plan (&g, w, oracle, &rng, what);

      random_weights (&g, &rng, w);
      check_tree (&g, w, ncomponents, expected_pinned_chords, what);
      check_exact (&prop_exact_random, &g, w, oracle, pp_propagate_counts, what);
      check_vertex_exact (&g, w, NULL, oracle, what);
      for (uint32_t e = 0; e < g.nedges; e++)
	pinned[e] = rnd_below (&rng, 6) == 0;	/* reused: edges to keep */
      check_vertex_exact (&g, w, pinned, oracle, what);

      random_executions (&g, &rng, 4, 4, true, oracle);
      with_negative_leaves += check_negative_leaves (&g, w, oracle, what);
      free (oracle);
      free (w);
      free (pinned);
      pp_graph_free (&g);

      /* The same kind of graph without the edges that let every block reach
	 EXIT: infinite loops the heuristic must survive.  */
      pp_graph wild;
      random_cfg (&wild, &rng, n, false);
      double *ww = xcalloc (wild.nedges, sizeof *ww);
      pp_weights_heuristic (&wild, ww);
      check_heuristic_finite (&wild, ww, what);
      free (ww);
      pp_graph_free (&wild);
    }
  printf ("# %d random graphs, %lu nodes and %lu edges in all,"
	  " %lu with pinned cycles, %lu with negative leaves\n", NRANDOM_GRAPHS,
	  total_nodes, total_edges, with_pinned_cycles, with_negative_leaves);
}

/* ------------------------------------------------------------------------- */
/* Brute-force maximality on small graphs: every edge subset that is a spanning
   forest holding as many pinned edges as possible; the library's tree must reach
   the best free-edge weight among them.  */

static uint32_t
small_find (uint32_t *parent, uint32_t v)
{
  while (parent[v] != v)
    v = parent[v];
  return v;
}

/* A small random graph: 2 to 6 nodes, the closing edge and up to
   MAX_SMALL_EDGES - 1 random edges, one in FAKE_ONE_IN of them fake.  */
static void
small_graph (pp_graph *g, unsigned long long *rng, unsigned fake_one_in)
{
  uint32_t n = 2 + rnd_below (rng, 5);
  uint32_t m = 1 + rnd_below (rng, MAX_SMALL_EDGES);
  struct edge_vec ev = { 0 };
  push_edge (&ev, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  for (uint32_t k = 1; k < m; k++)
    push_edge (&ev, rnd_below (rng, n), rnd_below (rng, n),
	       rnd_below (rng, fake_one_in) == 0 ? PP_EDGE_FAKE : 0);
  build_graph (g, n, &ev);
  free (ev.v);
}

static void
test_small_graphs (void)
{
  for (uint32_t i = 0; i < NSMALL_GRAPHS; i++)
    {
      unsigned long long seed = BASE_SEED ^ (0x5a11ull << 32) ^ i, rng = seed;
      pp_graph g;
      small_graph (&g, &rng, 6);
      uint32_t n = g.nnodes, m = g.nedges;
      double w[MAX_SMALL_EDGES];
      bool on_tree[MAX_SMALL_EDGES];
      for (uint32_t e = 0; e < m; e++)
	w[e] = rnd_below (&rng, 4);
      pp_max_spanning_tree (&g, w, on_tree);

      uint32_t ncomponents = components (&g, NULL, NULL, NULL, NULL);
      uint32_t tree_size = n - ncomponents, best_pinned = 0;
      double best = -1, got = 0;
      for (uint32_t e = 0; e < m; e++)
	if (on_tree[e] && !is_pinned (&g, e))
	  got += w[e];
      for (uint32_t subset = 0; subset < (1u << m); subset++)
	{
	  if ((uint32_t) __builtin_popcount (subset) != tree_size)
	    continue;
	  uint32_t parent[8], npinned = 0;
	  double weight = 0;
	  bool forest = true;
	  for (uint32_t v = 0; v < n; v++)
	    parent[v] = v;
	  for (uint32_t e = 0; e < m && forest; e++)
	    if (subset & (1u << e))
	      {
		uint32_t a = small_find (parent, g.edges[e].src);
		uint32_t b = small_find (parent, g.edges[e].dst);
		forest = a != b;
		parent[a] = b;
		if (is_pinned (&g, e))
		  npinned++;
		else
		  weight += w[e];
	      }
	  if (!forest)
	    continue;
	  if (npinned > best_pinned || (npinned == best_pinned && weight > best))
	    {
	      best_pinned = npinned;
	      best = weight;
	    }
	}
      unit_check (&prop_brute_force, got == best,
	     "small graph seed %#llx, %u nodes, %u edges: tree weighs %g, best %g",
	     seed, n, m, got, best);
      pp_graph_free (&g);
    }
}


/* ------------------------------------------------------------------------- */
/* Vertex profiling with edge counters (vertexprof.c, Ball & Larus 1994 s3.3).
   The oracles: linear algebra decides whether a set of uncounted edges leaves
   every block count determined (no circulation on them changes a block's
   inflow), brute force lists the simple cycles and the smallest counter sets of
   small graphs, and random executions give the true block counts.  */

/* Is every simple (undirected) cycle made of edges with uncounted[e] pipeless:
   each of its vertices the source of both its cycle edges or the target of both?
   Brute force over edge subsets: at most MAX_SMALL_EDGES edges.  */
static bool
all_cycles_pipeless (const pp_graph *g, const bool *uncounted)
{
  uint32_t m = g->nedges;
  for (uint32_t subset = 1; subset < (1u << m); subset++)
    {
      bool ok = true;
      uint32_t deg[8] = { 0 }, outs[8] = { 0 }, first = UINT32_MAX;
      for (uint32_t e = 0; e < m && ok; e++)
	if (subset & (1u << e))
	  {
	    ok = uncounted[e];
	    deg[g->edges[e].src]++;
	    deg[g->edges[e].dst]++;
	    outs[g->edges[e].src]++;
	    first = g->edges[e].src;
	  }
      for (uint32_t v = 0; v < g->nnodes && ok; v++)
	ok = deg[v] == 0 || deg[v] == 2;
      if (!ok)
	continue;
      /* Connected: every vertex of positive degree reached from first.  */
      uint32_t parent[8];
      for (uint32_t v = 0; v < g->nnodes; v++)
	parent[v] = v;
      for (uint32_t e = 0; e < m; e++)
	if (subset & (1u << e))
	  parent[small_find (parent, g->edges[e].src)]
	    = small_find (parent, g->edges[e].dst);
      for (uint32_t v = 0; v < g->nnodes && ok; v++)
	ok = deg[v] == 0 || small_find (parent, v) == small_find (parent, first);
      if (!ok)
	continue;
      /* A simple cycle: pipeless iff no vertex has one edge out and one in.  */
      for (uint32_t v = 0; v < g->nnodes; v++)
	if (deg[v] == 2 && outs[v] == 1)
	  return false;
    }
  return true;
}

/* The rank of the rows x cols matrix a (row-major, destroyed).  */
static uint32_t
rank_of (double *a, uint32_t rows, uint32_t cols)
{
  uint32_t rank = 0;
  for (uint32_t c = 0; c < cols && rank < rows; c++)
    {
      uint32_t best = rank;
      for (uint32_t r = rank; r < rows; r++)
	if (fabs (a[r * cols + c]) > fabs (a[best * cols + c]))
	  best = r;
      if (fabs (a[best * cols + c]) < 1e-9)
	continue;
      for (uint32_t k = 0; k < cols; k++)
	{
	  double t = a[rank * cols + k];
	  a[rank * cols + k] = a[best * cols + k];
	  a[best * cols + k] = t;
	}
      for (uint32_t r = 0; r < rows; r++)
	if (r != rank && fabs (a[r * cols + c]) > 0)
	  {
	    double f = a[r * cols + c] / a[rank * cols + c];
	    for (uint32_t k = 0; k < cols; k++)
	      a[r * cols + k] -= f * a[rank * cols + k];
	  }
      rank++;
    }
  return rank;
}

/* Are all block counts (inflows) determined by the counts of the edges with
   !uncounted[e]?  Two executions with the same counters differ by a
   circulation d on the uncounted edges; the inflows are determined iff every
   inflow functional is a combination of the conservation rows, i.e. adding the
   inflow rows to the conservation rows leaves the rank unchanged.  */
static bool
block_counts_determined (const pp_graph *g, const bool *uncounted)
{
  uint32_t n = g->nnodes, m = g->nedges;
  double *a = xcalloc ((size_t) 2 * n * (m ? m : 1), sizeof *a);
  for (uint32_t e = 0; e < m; e++)
    if (uncounted[e])
      {
	a[g->edges[e].dst * m + e] += 1;	/* conservation: in - out */
	a[g->edges[e].src * m + e] -= 1;
	a[(n + g->edges[e].dst) * m + e] += 1;	/* inflow of dst */
      }
  double *b = xcalloc ((size_t) n * (m ? m : 1), sizeof *b);
  memcpy (b, a, (size_t) n * m * sizeof *b);
  bool determined = rank_of (b, n, m) == rank_of (a, 2 * n, m);
  free (a);
  free (b);
  return determined;
}

/* Small graphs: the theorem against linear algebra on every counter set, the
   heuristic's output against the theorem, and its counter count against the
   smallest counter set (printed: how often and by how much it misses).  */
static void
test_vertex_small_graphs (void)
{
  unsigned long graphs = 0, missed = 0, excess = 0, heuristic_total = 0;
  unsigned long minimum_total = 0, edge_total = 0;
  for (uint32_t i = 0; i < NSMALL_GRAPHS; i++)
    {
      unsigned long long seed = BASE_SEED ^ (0x7e27ull << 32) ^ i, rng = seed;
      pp_graph g;
      small_graph (&g, &rng, 8);
      uint32_t n = g.nnodes, m = g.nedges;
      char what[96];
      snprintf (what, sizeof what, "small graph seed %#llx, %u nodes, %u edges",
		seed, n, m);

      /* The theorem, on every set of uncounted edges.  */
      bool uncounted[MAX_SMALL_EDGES];
      for (uint32_t set = 0; set < (1u << m); set++)
	{
	  for (uint32_t e = 0; e < m; e++)
	    uncounted[e] = set & (1u << e);
	  bool pipeless = all_cycles_pipeless (&g, uncounted);
	  bool determined = block_counts_determined (&g, uncounted);
	  unit_check (&prop_vp_theorem, pipeless == determined,
		      "%s, uncounted set %#x: pipeless %d, determined %d",
		      what, set, pipeless, determined);
	}

      double w[MAX_SMALL_EDGES];
      bool keep[MAX_SMALL_EDGES];
      for (uint32_t e = 0; e < m; e++)
	{
	  w[e] = rnd_below (&rng, 4);
	  keep[e] = rnd_below (&rng, 5) == 0;
	}
      for (int with_keep = 0; with_keep < 2; with_keep++)
	{
	  int32_t counter[MAX_SMALL_EDGES], edge_counter[MAX_SMALL_EDGES];
	  int pinned = 0, edge_pinned = 0;
	  uint32_t removed = 0;
	  int nc = pp_plan_vertex_counters (&g, w, with_keep ? keep : NULL, counter,
					    &pinned, &removed);
	  int ne = pp_plan_edge_counters (&g, w, edge_counter, &edge_pinned);
	  unit_check (&prop_vp_fewer, nc >= 0 && ne >= 0 && nc <= ne
		      && (uint32_t) (ne - nc) == removed && pinned == edge_pinned,
		      "%s: %d counters (%u removed) against %d for edges", what, nc,
		      removed, ne);
	  if (pinned > 0)
	    continue;	/* pinned chords: undetermined in edge counting too */
	  bool free_edge[MAX_SMALL_EDGES];
	  for (uint32_t e = 0; e < m; e++)
	    uncounted[e] = counter[e] < 0;
	  bool kept_ok = true;
	  if (with_keep)
	    for (uint32_t e = 0; e < m; e++)
	      if (keep[e] && uncounted[e])
		{
		  /* A kept edge must lie on no cycle of uncounted edges.  */
		  for (uint32_t k = 0; k < m; k++)
		    free_edge[k] = uncounted[k] && k != e;
		  struct search search;
		  search_init (&search, &g);
		  kept_ok &= g.edges[e].src != g.edges[e].dst
			     && !connected (&g, free_edge, e, g.edges[e].src,
					    g.edges[e].dst, &search);
		  search_free (&search);
		}
	  unit_check (&prop_vp_pipeless,
		      all_cycles_pipeless (&g, uncounted) && kept_ok,
		      "%s%s: a cycle of uncounted edges has a pipe, or a kept edge "
		      "is on one", what, with_keep ? " (with kept edges)" : "");
	  if (with_keep)
	    continue;
	  /* The smallest counter set: pinned edges cannot carry a counter.  */
	  uint32_t best = m;
	  for (uint32_t set = 0; set < (1u << m); set++)
	    {
	      uint32_t size = (uint32_t) __builtin_popcount (set);
	      bool ok = size < best;
	      for (uint32_t e = 0; e < m && ok; e++)
		{
		  uncounted[e] = !(set & (1u << e));
		  ok = uncounted[e] || !is_pinned (&g, e);
		}
	      if (ok && block_counts_determined (&g, uncounted))
		best = size;
	    }
	  graphs++;
	  heuristic_total += (unsigned long) nc;
	  minimum_total += best;
	  edge_total += (unsigned long) ne;
	  if ((uint32_t) nc > best)
	    {
	      missed++;
	      excess += (unsigned long) nc - best;
	    }
	}
      pp_graph_free (&g);
    }
  printf ("# vertexprof on %lu small graphs: edge counting %lu counters, the "
	  "heuristic %lu, the minimum %lu; the heuristic misses the minimum on "
	  "%lu graphs, by %lu counters in all\n", graphs, edge_total,
	  heuristic_total, minimum_total, missed, excess);
}

/* Random graphs: block counts from the propagation of figure 8 against random
   executions, edges reported determined against the oracle, kept edges always
   determined.  */
static void
check_vertex_exact (const pp_graph *g, const double *w, const bool *keep,
		    const uint64_t *oracle, const char *what)
{
  size_t m = g->nedges ? g->nedges : 1;
  int32_t *counter = xcalloc (m, sizeof *counter);
  uint64_t *counters = xcalloc (m, sizeof *counters);
  uint64_t *flow = xcalloc (m, sizeof *flow);
  uint64_t *counts = xcalloc (m, sizeof *counts);
  bool *known = xcalloc (m, sizeof *known);
  int pinned = 0;
  uint32_t removed = 0;
  int nc = pp_plan_vertex_counters (g, w, keep, counter, &pinned, &removed);
  if (nc < 0 || pinned > 0)
    goto out;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (counter[e] >= 0)
      counters[counter[e]] = oracle[e];
  int rc = pp_propagate_vertex_counts (g, counter, counters, flow);
  int rc2 = pp_propagate_counts (g, counter, counters, counts, known);
  bool ok = rc == 0 && (rc2 == 0 || rc2 == 2);
  uint32_t bad = UINT32_MAX;
  for (uint32_t v = 0; v < g->nnodes && ok; v++)
    {
      uint64_t got = 0, want = 0;
      bool at_exit = v == g->exit;
      uint32_t lo = at_exit ? g->succ_start[v] : g->pred_start[v];
      uint32_t hi = at_exit ? g->succ_start[v + 1] : g->pred_start[v + 1];
      const uint32_t *list = at_exit ? g->succ_edges : g->pred_edges;
      for (uint32_t k = lo; k < hi; k++)
	{
	  got += flow[list[k]];
	  want += oracle[list[k]];
	}
      if (got != want)
	ok = false, bad = v;
    }
  for (uint32_t e = 0; e < g->nedges && ok; e++)
    if ((known[e] && counts[e] != oracle[e]) || (keep && keep[e] && !known[e]))
      ok = false, bad = e;
  unit_check (&prop_vp_exact, ok, "%s: propagation %d/%d, first wrong block or "
	      "edge %u", what, rc, rc2, bad);
out:
  free (counter);
  free (counters);
  free (flow);
  free (counts);
  free (known);
}

/* ------------------------------------------------------------------------- */
/* Structured programs: sequences, if-then(-else), while loops (some with breaks
   at the top of the body) and do-while loops.  The generator knows each edge's
   section 5 weight from the construct it builds: an if halves the weight, a loop
   entered with weight W runs its body with 9W (while) or 10W (do-while) and leaves
   with W, split equally among its exits.  */

struct structured
{
  unsigned long long *rng;
  struct edge_vec ev;
  uint32_t nnodes, max_nodes;
  uint32_t min_nodes;		/* regions are chained until there are this many */
  int max_depth;
  bool loops;
  bool *is_loop_entry;		/* filled once the graph is built */
};

struct region
{
  uint32_t entry, exit;		/* the caller adds the one edge leaving exit */
};

static uint32_t
new_node (struct structured *s)
{
  return s->nnodes++;
}

static void
structured_edge (struct structured *s, uint32_t src, uint32_t dst, double weight,
		 int if_depth, bool back)
{
  struct gen_edge *ge = push_edge (&s->ev, src, dst, 0);
  ge->expected = weight;
  ge->if_depth = if_depth;
  ge->back = back;
}

static struct region
structured_region (struct structured *s, double weight, int if_depth, int depth)
{
  uint32_t kind = s->nnodes >= s->max_nodes || depth >= s->max_depth
		  ? 0 : rnd_below (s->rng, s->loops ? 100 : 75);
  if (kind < 25)
    {
      uint32_t v = new_node (s);
      return (struct region) { v, v };
    }
  if (kind < 50)
    {
      struct region a = structured_region (s, weight, if_depth, depth + 1);
      struct region b = structured_region (s, weight, if_depth, depth + 1);
      structured_edge (s, a.exit, b.entry, weight, if_depth, false);
      return (struct region) { a.entry, b.exit };
    }
  if (kind < 75)
    {
      uint32_t cond = new_node (s);
      struct region then = structured_region (s, weight / 2, if_depth + 1, depth + 1);
      bool has_else = rnd_below (s->rng, 3) != 0;
      struct region other = { 0, 0 };
      if (has_else)
	other = structured_region (s, weight / 2, if_depth + 1, depth + 1);
      uint32_t join = new_node (s);
      structured_edge (s, cond, then.entry, weight / 2, if_depth + 1, false);
      structured_edge (s, then.exit, join, weight / 2, if_depth + 1, false);
      if (has_else)
	{
	  structured_edge (s, cond, other.entry, weight / 2, if_depth + 1, false);
	  structured_edge (s, other.exit, join, weight / 2, if_depth + 1, false);
	}
      else
	structured_edge (s, cond, join, weight / 2, if_depth + 1, false);
      return (struct region) { cond, join };
    }
  if (kind < 85)
    {
      /* while: the header tests, so it is also the region's exit.  */
      uint32_t header = new_node (s);
      struct region body = structured_region (s, 9 * weight, if_depth, depth + 1);
      structured_edge (s, header, body.entry, 9 * weight, if_depth, false);
      structured_edge (s, body.exit, header, 9 * weight, if_depth, true);
      return (struct region) { header, header };
    }
  if (kind < 93)
    {
      /* while (h) { if (c1) break; [if (c2) break;] body }: every exit of the loop
	 gets an equal share of the entry weight.  */
      uint32_t header = new_node (s), follow = new_node (s);
      uint32_t nbreaks = 1 + rnd_below (s->rng, 2);
      double share = weight / (nbreaks + 1), inside = 10 * weight - share;
      structured_edge (s, header, follow, share, if_depth, false);
      uint32_t last = header;
      for (uint32_t i = 0; i < nbreaks; i++)
	{
	  uint32_t test = new_node (s);
	  structured_edge (s, last, test, inside, if_depth, false);
	  structured_edge (s, test, follow, share, if_depth, false);
	  inside -= share;
	  last = test;
	}
      struct region body = structured_region (s, inside, if_depth, depth + 1);
      structured_edge (s, last, body.entry, inside, if_depth, false);
      structured_edge (s, body.exit, header, inside, if_depth, true);
      return (struct region) { header, follow };
    }
  /* do-while: a fresh top block (so no other loop shares the entry) and a latch.  */
  uint32_t top = new_node (s);
  struct region body = structured_region (s, 10 * weight, if_depth, depth + 1);
  uint32_t latch = new_node (s);
  structured_edge (s, top, body.entry, 10 * weight, if_depth, false);
  structured_edge (s, body.exit, latch, 10 * weight, if_depth, false);
  structured_edge (s, latch, top, 9 * weight, if_depth, true);
  return (struct region) { top, latch };
}

static void
structured_program (pp_graph *g, struct structured *s)
{
  s->nnodes = 2;
  struct region body = structured_region (s, 1, 0, 0);
  while (s->nnodes < s->min_nodes)
    {
      struct region next = structured_region (s, 1, 0, 0);
      structured_edge (s, body.exit, next.entry, 1, 0, false);
      body.exit = next.exit;
    }
  structured_edge (s, ENTRY, body.entry, 1, 0, false);
  structured_edge (s, body.exit, EXIT, 1, 0, false);
  struct gen_edge *closing = push_edge (&s->ev, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  closing->expected = 1;
  build_graph (g, s->nnodes, &s->ev);
  s->is_loop_entry = xcalloc (s->nnodes, sizeof *s->is_loop_entry);
  for (size_t i = 0; i < s->ev.n; i++)
    if (s->ev.v[i].back)
      s->is_loop_entry[s->ev.v[i].e.dst] = true;
}

/* Relative tolerance; the test links without libm, hence no fmax.  */
static bool
close_to (double a, double b)
{
  double scale = fabs (a) > fabs (b) ? fabs (a) : fabs (b);
  return fabs (a - b) <= 1e-9 * (scale > 1 ? scale : 1);
}

static void
check_structured_weights (const pp_graph *g, const struct structured *s,
			  const double *w, const char *what)
{
  uint32_t e = 0;
  while (e < g->nedges && close_to (w[e], s->ev.v[e].expected))
    e++;
  if (e < g->nedges)
    unit_check (&prop_heuristic_structure, 0, "%s: edge %u (%u->%u) weighs %g, not %g",
	   what, e, g->edges[e].src, g->edges[e].dst, w[e], s->ev.v[e].expected);
  else
    unit_check (&prop_heuristic_structure, 1, "");

  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      double in = 0, out = 0, entering = 0;
      for (uint32_t k = g->pred_start[v]; k < g->pred_start[v + 1]; k++)
	{
	  uint32_t e = g->pred_edges[k];
	  in += w[e];
	  if (!s->ev.v[e].back)
	    entering += w[e];
	}
      for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	out += w[g->succ_edges[k]];
      unit_check (&prop_kirchhoff, close_to (in, out),
	     "%s: node %u takes in %g, gives out %g", what, v, in, out);
      if (s->is_loop_entry[v])
	unit_check (&prop_loop_multiplier, close_to (in, 10 * entering),
	       "%s: loop entry %u weighs %g, entered with %g", what, v, in, entering);
    }
}

/* Without loops, weight halves with every enclosing if branch, so a maximum tree
   must leave each chord at the deepest nesting on its cycle.  */
static void
check_deeper_chords (const pp_graph *g, const struct structured *s, const double *w,
		     const char *what)
{
  bool *on_tree = xcalloc (g->nedges, sizeof *on_tree);
  uint32_t *cycle = xcalloc (g->nnodes, sizeof *cycle);
  bool *forward = xcalloc (g->nnodes, sizeof *forward);
  pp_max_spanning_tree (g, w, on_tree);
  struct rooted_tree t;
  root_tree (g, on_tree, &t);
  for (uint32_t c = 0; c < g->nedges; c++)
    {
      if (on_tree[c] || is_pinned (g, c))
	continue;
      uint32_t len = fundamental_cycle (g, &t, c, cycle, forward);
      for (uint32_t i = 0; i < len; i++)
	if (!is_pinned (g, cycle[i])
	    && s->ev.v[cycle[i]].if_depth > s->ev.v[c].if_depth)
	  {
	    unit_check (&prop_deeper_chords, 0,
		   "%s: chord %u at if-depth %d, tree edge %u at depth %d", what, c,
		   s->ev.v[c].if_depth, cycle[i], s->ev.v[cycle[i]].if_depth);
	    goto out;
	  }
      unit_check (&prop_deeper_chords, 1, "");
    }
out:
  free_tree (&t);
  free (on_tree);
  free (cycle);
  free (forward);
}

static void
test_structured_programs (void)
{
  unsigned long total_nodes = 0;
  for (uint32_t i = 0; i < NSTRUCTURED_GRAPHS; i++)
    {
      unsigned long long seed = BASE_SEED ^ (0x57ull << 40) ^ i, rng = seed;
      struct structured s = {
	.rng = &rng,
	.max_nodes = 2 + rnd_below (&rng, MAX_STRUCTURED_NODES - 1),
	.max_depth = 2 + rnd_below (&rng, 12),
	.loops = i % 3 != 0,
      };
      pp_graph g;
      structured_program (&g, &s);
      total_nodes += g.nnodes;
      char what[112];
      snprintf (what, sizeof what, "structured program seed %#llx, %u nodes%s",
		seed, g.nnodes, s.loops ? "" : " (no loops)");
      double *w = xcalloc (g.nedges, sizeof *w);
      uint64_t *oracle = xcalloc (g.nedges, sizeof *oracle);
      pp_weights_heuristic (&g, w);
      check_heuristic_finite (&g, w, what);
      check_structured_weights (&g, &s, w, what);
      if (!s.loops)
	check_deeper_chords (&g, &s, w, what);
      random_executions (&g, &rng, 3, 4, false, oracle);
      check_exact (&prop_exact_heuristic, &g, w, oracle, pp_propagate_counts, what);
      check_vertex_exact (&g, w, NULL, oracle, what);
      free (w);
      free (oracle);
      free (s.ev.v);
      free (s.is_loop_entry);
      pp_graph_free (&g);
    }
  printf ("# %d structured programs, %lu nodes in all\n", NSTRUCTURED_GRAPHS,
	  total_nodes);
}

/* ------------------------------------------------------------------------- */
/* Deep and large graphs.  */

/* DEEP_NESTING while loops, each the body of the previous one: weights grow by 10
   per level, far beyond a double's range without clamping.  */
static void
test_deep_nesting (void)
{
  unsigned long long rng = BASE_SEED ^ 0xdee9;
  struct edge_vec ev = { 0 };
  uint32_t n = 2 + DEEP_NESTING + 1, body = n - 1;
  push_edge (&ev, ENTRY, 2, 0);
  for (uint32_t level = 0; level < DEEP_NESTING; level++)
    {
      uint32_t header = 2 + level;
      push_edge (&ev, header, level + 1 < DEEP_NESTING ? header + 1 : body, 0);
      push_edge (&ev, header, level ? header - 1 : EXIT, 0);
    }
  push_edge (&ev, body, 2 + DEEP_NESTING - 1, 0);
  push_edge (&ev, body, body, 0);
  push_edge (&ev, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  pp_graph g;
  build_graph (&g, n, &ev);
  free (ev.v);

  double *w = xcalloc (g.nedges, sizeof *w);
  uint64_t *oracle = xcalloc (g.nedges, sizeof *oracle);
  pp_weights_heuristic (&g, w);
  bool finite = true;
  for (uint32_t e = 0; e < g.nedges; e++)
    finite = finite && isfinite (w[e]) && w[e] >= 0;
  unit_check (&prop_deep_nesting, finite && w[g.nedges - 2] > 1e200,
	 "weights not finite, or the innermost self loop weighs only %g",
	 w[g.nedges - 2]);
  random_executions (&g, &rng, 3, 8, false, oracle);
  struct unit_property exact = { .name = "deep" };
  check_exact (&exact, &g, w, oracle, pp_propagate_counts, "400 nested loops");
  unit_check (&prop_deep_nesting, exact.failures == 0, "%s", exact.why);
  free (w);
  free (oracle);
  pp_graph_free (&g);
}

static void
test_large_graphs (void)
{
  unsigned long long rng = BASE_SEED ^ 0x1a46e;
  struct structured s = {
    .rng = &rng, .min_nodes = LARGE_NODES, .max_nodes = 2 * LARGE_NODES,
    .max_depth = 30, .loops = true,
  };
  pp_graph big;
  structured_program (&big, &s);

  /* A chain of LARGE_NODES / 2 self-looping blocks: one long DFS path and one
     long tree path to peel.  */
  struct edge_vec ev = { 0 };
  uint32_t chain = LARGE_NODES / 2;
  for (uint32_t k = 0; k < chain; k++)
    {
      uint32_t v = 2 + k;
      push_edge (&ev, k ? v - 1 : ENTRY, v, 0);
      push_edge (&ev, v, v, 0);
      if (k % 7 == 0)
	push_edge (&ev, v, EXIT, PP_EDGE_FAKE);
    }
  push_edge (&ev, 2 + chain - 1, EXIT, 0);
  push_edge (&ev, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  pp_graph line;
  build_graph (&line, 2 + chain, &ev);
  free (ev.v);

  pp_graph *graphs[] = { &big, &line };
  for (int i = 0; i < 2; i++)
    {
      pp_graph *g = graphs[i];
      char what[64];
      snprintf (what, sizeof what, "%s of %u nodes", i ? "chain" : "structured program",
		g->nnodes);
      double *w = xcalloc (g->nedges, sizeof *w);
      uint64_t *oracle = xcalloc (g->nedges, sizeof *oracle);
      random_executions (g, &rng, 2, 2, false, oracle);
      pp_weights_heuristic (g, w);
      check_exact (&prop_large, g, w, oracle, pp_propagate_counts, what);
      pp_weights_uniform (g, w);
      check_exact (&prop_large, g, w, oracle, pp_propagate_counts, what);
      free (w);
      free (oracle);
      pp_graph_free (g);
    }
  free (s.ev.v);
  free (s.is_loop_entry);
}

/* ------------------------------------------------------------------------- */
/* Hand-made cases.  */

/* Two parallel edges leave block 2 for EXIT: both measured at the maximum, the
   edge into block 2 would need twice that.  */
static void
test_overflow (void)
{
  pp_graph g;
  pp_graph_init (&g, 3, ENTRY, EXIT);
  pp_graph_add_edge (&g, ENTRY, 2, 0);
  pp_graph_add_edge (&g, 2, EXIT, 0);
  pp_graph_add_edge (&g, 2, EXIT, 0);
  pp_graph_add_edge (&g, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  pp_graph_finish (&g);
  double w[4];
  int32_t counter_of_edge[4];
  uint64_t counts[4];
  bool known[4];
  pp_weights_uniform (&g, w);
  int ncounters = pp_plan_edge_counters (&g, w, counter_of_edge, NULL);
  unit_check (&prop_overflow, ncounters == 2 && counter_of_edge[1] == 0
	 && counter_of_edge[2] == 1,
	 "expected the two parallel edges to be measured, got %d counters", ncounters);
  uint64_t counters[2] = { UINT64_MAX, UINT64_MAX };
  int status = pp_propagate_counts (&g, counter_of_edge, counters, counts, known);
  unit_check (&prop_overflow, status == 1, "propagation returned %d", status);
  counters[1] = 0;
  status = pp_propagate_counts (&g, counter_of_edge, counters, counts, known);
  unit_check (&prop_overflow, status == 0 && counts[0] == UINT64_MAX
	 && counts[3] == UINT64_MAX,
	 "the largest representable counts returned %d, counts %llu and %llu",
	 status, (unsigned long long) counts[0], (unsigned long long) counts[3]);
  pp_graph_free (&g);
}

/* The worked example:

     ENTRY -> P;  P -> Q | R  (if);  Q -> S;  R -> S;
     S: while loop, S -> T -> S (body), S -> EXIT (loop exit);  EXIT -> ENTRY

   Section 5 gives ENTRY->P 1, each branch 1/2, the loop exit the loop's entry
   weight 1, the body 10 * 1 - 1 = 9.  The maximum tree keeps the loop body and the
   straight line: counters land on the two branch joins (1/2 each) and on the back
   edge (9), cost 10.  Uniform weights keep the earliest edges instead and measure
   the loop exit: cost 10.5.  */
static void
test_worked_example (void)
{
  enum { P = 2, Q, R, S, T, NNODES };
  pp_graph g;
  pp_graph_init (&g, NNODES, ENTRY, EXIT);
  uint32_t entry_p = pp_graph_add_edge (&g, ENTRY, P, PP_EDGE_FALLTHRU);
  uint32_t p_q = pp_graph_add_edge (&g, P, Q, PP_EDGE_TRUE);
  uint32_t p_r = pp_graph_add_edge (&g, P, R, PP_EDGE_FALSE);
  uint32_t q_s = pp_graph_add_edge (&g, Q, S, 0);
  uint32_t r_s = pp_graph_add_edge (&g, R, S, PP_EDGE_FALLTHRU);
  uint32_t s_t = pp_graph_add_edge (&g, S, T, PP_EDGE_TRUE);
  uint32_t t_s = pp_graph_add_edge (&g, T, S, 0);
  uint32_t s_exit = pp_graph_add_edge (&g, S, EXIT, PP_EDGE_FALSE);
  pp_graph_finish (&g);

  /* Adding the closing edge after a first finish must be seen by the next one.  */
  bool api_ok = pp_graph_add_edge (&g, P, NNODES, 0) == UINT32_MAX
		&& pp_graph_add_edge (&g, NNODES, P, 0) == UINT32_MAX;
  uint32_t closing = pp_graph_add_edge (&g, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  api_ok = api_ok && pp_graph_finish (&g) == 0 && g.nedges == 9
	   && pp_graph_out_degree (&g, EXIT) == 1 && pp_graph_in_degree (&g, ENTRY) == 1
	   && pp_graph_out_degree (&g, S) == 2 && pp_graph_in_degree (&g, S) == 3
	   && g.pred_edges[g.pred_start[S]] == q_s
	   && g.pred_edges[g.pred_start[S] + 2] == t_s;
  unit_check (&prop_graph_api, api_ok, "edge refusal, degrees or list order wrong");
  check_adjacency (&g, "worked example");

  double w[9];
  const double expected[9] = {
    [0] = 1, [1] = 0.5, [2] = 0.5, [3] = 0.5, [4] = 0.5, [5] = 9, [6] = 9, [7] = 1,
    [8] = 1,
  };
  pp_weights_heuristic (&g, w);
  bool weights_ok = entry_p == 0 && p_q == 1 && p_r == 2 && r_s == 4 && s_t == 5
		    && s_exit == 7 && closing == 8;
  for (uint32_t e = 0; e < 9; e++)
    weights_ok = weights_ok && w[e] == expected[e];
  unit_check (&prop_worked_weights, weights_ok,
	 "got %g %g %g %g %g %g %g %g %g", w[0], w[1], w[2], w[3], w[4], w[5], w[6],
	 w[7], w[8]);

  int32_t counter_of_edge[9];
  int pinned_chords = -1;
  int ncounters = pp_plan_edge_counters (&g, w, counter_of_edge, &pinned_chords);
  const int32_t heuristic_plan[9] = { -1, -1, -1, 0, 1, -1, 2, -1, -1 };
  unit_check (&prop_worked_chords, ncounters == 3 && pinned_chords == 0
	 && memcmp (counter_of_edge, heuristic_plan, sizeof heuristic_plan) == 0,
	 "heuristic: %d counters, chords should be Q->S, R->S, T->S", ncounters);

  /* One call, the then branch taken, three iterations of the loop.  */
  uint64_t counters[3] = { 1, 0, 3 };
  uint64_t counts[9];
  const uint64_t expected_counts[9] = { 1, 1, 0, 1, 0, 3, 3, 1, 1 };
  int status = pp_propagate_counts (&g, counter_of_edge, counters, counts, NULL);
  unit_check (&prop_worked_counts, status == 0
	 && memcmp (counts, expected_counts, sizeof counts) == 0,
	 "status %d, counts %llu %llu %llu %llu %llu %llu %llu %llu %llu", status,
	 (unsigned long long) counts[0], (unsigned long long) counts[1],
	 (unsigned long long) counts[2], (unsigned long long) counts[3],
	 (unsigned long long) counts[4], (unsigned long long) counts[5],
	 (unsigned long long) counts[6], (unsigned long long) counts[7],
	 (unsigned long long) counts[8]);

  pp_weights_uniform (&g, w);
  ncounters = pp_plan_edge_counters (&g, w, counter_of_edge, &pinned_chords);
  const int32_t uniform_plan[9] = { -1, -1, -1, -1, 0, -1, 1, 2, -1 };
  unit_check (&prop_worked_chords, ncounters == 3
	 && memcmp (counter_of_edge, uniform_plan, sizeof uniform_plan) == 0,
	 "uniform: %d counters, chords should be R->S, T->S, S->EXIT", ncounters);
  pp_graph_free (&g);
}

/* Section 5 where it is least obvious, worked by hand:

     e0 ENTRY -> A   e1 ENTRY -> B   e2 A -> B   e3 B -> A   e4 B -> EXIT
     e5 A -> C   e6 C -> C   e7 C -> EXIT (fake: C loops forever)   e8 D -> A
     e9 EXIT -> ENTRY

   The DFS visits ENTRY, A, B, then C: e3 and e6 are back edges, so A and C are loop
   entries; reverse postorder is ENTRY A C B EXIT.  The loop A-B is irreducible:
   ENTRY reaches B without passing A, so nat-loop(A) = {A, B, ENTRY} (never EXIT,
   whatever the closing edge says), with exits e4 and e5.  D is dead.
     ENTRY: weight 1, e0 = e1 = 1/2.
     A: weight 1/2 (e8 from dead D adds 0); exits e4 = e5 = 1/4; e2 = 5 - 1/4.
     C: weight 1/4; exit e7 = 1/4; self loop e6 = 2.5 - 1/4.
     B: weight 1/2 + 4.75; e3 = 5.25 - e4.  */
static void
test_irregular_example (void)
{
  enum { A = 2, B, C, D, NNODES };
  const pp_edge edges[] = {
    { ENTRY, A, 0 }, { ENTRY, B, 0 }, { A, B, 0 }, { B, A, 0 }, { B, EXIT, 0 },
    { A, C, 0 }, { C, C, 0 }, { C, EXIT, PP_EDGE_FAKE }, { D, A, 0 },
    { EXIT, ENTRY, PP_EDGE_EXIT_ENTRY },
  };
  const double expected[] = { 0.5, 0.5, 4.75, 5, 0.25, 0.25, 2.25, 0.25, 0, 1 };
  enum { NEDGES = sizeof edges / sizeof *edges };
  pp_graph g;
  pp_graph_init (&g, NNODES, ENTRY, EXIT);
  for (uint32_t e = 0; e < NEDGES; e++)
    pp_graph_add_edge (&g, edges[e].src, edges[e].dst, edges[e].flags);
  pp_graph_finish (&g);
  double w[NEDGES];
  pp_weights_heuristic (&g, w);
  uint32_t e = 0;
  while (e < NEDGES && w[e] == expected[e])
    e++;
  if (e < NEDGES)
    unit_check (&prop_irregular_weights, 0, "e%u weighs %g, not %g", e, w[e], expected[e]);
  else
    unit_check (&prop_irregular_weights, 1, "");
  pp_graph_free (&g);
}

int
main (void)
{
  test_worked_example ();
  test_irregular_example ();
  test_overflow ();
  test_random_graphs ();
  test_small_graphs ();
  test_vertex_small_graphs ();
  test_structured_programs ();
  test_deep_nesting ();
  test_large_graphs ();

  const struct unit_property *all[] = {
    &prop_adjacency, &prop_graph_api, &prop_exact_heuristic, &prop_exact_uniform,
    &prop_exact_random, &prop_counter_count, &prop_tree_shape, &prop_pinned,
    &prop_pinned_cycles, &prop_determined, &prop_deterministic, &prop_brute_force,
    &prop_cycle_property, &prop_heuristic_finite, &prop_heuristic_structure,
    &prop_kirchhoff, &prop_loop_multiplier, &prop_deeper_chords,
    &prop_deep_nesting, &prop_inconsistent, &prop_overflow, &prop_unbalanced,
    &prop_signed_fakes,
    &prop_worked_weights, &prop_worked_chords, &prop_worked_counts,
    &prop_irregular_weights, &prop_large,
    &prop_vp_theorem, &prop_vp_pipeless, &prop_vp_exact, &prop_vp_fewer,
  };
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    unit_report (all[i]);
  return unit_exit_status ();
}
