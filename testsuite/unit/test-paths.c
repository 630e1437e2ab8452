/* Oracle tests for corelib/paths (Ball & Larus 1996 path profiling).

   The oracle rebuilds the path structure from the flags and the cuts the library
   reports (checking those are a valid choice: every cycle cut, the caller's path
   ends kept), then enumerates every path on small graphs and counts them on large
   ones with its own dynamic programme.  Path numbers must be exactly 0..npaths-1,
   decoding must invert encoding, and the action list, simulated along every path
   and along random executions (loops, early leaves, longjmp-style re-entries with
   a garbage register), must count each completed path exactly once at its number.
   The placement is checked against its spanning tree and against the naive
   one-increment-per-edge placement.  Each property prints one PASS/FAIL line;
   a failure names the first graph (seed) that broke it.  */

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edgeprof.h"
#include "paths.h"
#include "paths-internal.h"
#include "unit.h"
#include "gen-cfg.h"

#define BASE_SEED 0x5eed9a7b2024ull
#define NRANDOM_CFGS 3000
#define NRANDOM_DAGS 1000
#define NSTRUCTURED 1500
#define NSMALL_LIMITS 1500
#define MAX_SMALL_BLOCKS 10
#define ENUMERATION_CAP 20000
#define NWALKS 12
#define WALK_STEPS 400
#define NDIAMONDS 70
#define LARGE_NODES 100000

static struct unit_property
  prop_roles = { .name = "paths: roles follow the flags, cuts break every cycle, path ends kept" },
  prop_dense = { .name = "paths: numbers of all enumerated paths are exactly 0..numPaths-1" },
  prop_count = { .name = "paths: numPaths equals the oracle's path count" },
  prop_decode = { .name = "paths: decoding inverts encoding" },
  prop_encode_invalid = { .name = "paths: encoding refuses non-paths, decoding refuses numbers >= numPaths" },
  prop_dead = { .name = "paths: an edge is dead exactly when it lies on no path" },
  prop_simulate = { .name = "place: simulated actions along every path count its number once, at its end or where the rest is forced" },
  prop_executions = { .name = "place: random executions (loops, leaves, re-entries) count every completed path" },
  prop_fake_actions = { .name = "place: fake edges carry only at-source-end counts of sole leaves" },
  prop_tree = { .name = "place: the spanning tree spans the DAG, increments are 0 on it" },
  prop_chords = { .name = "place: incremented edges = |E_dag| - |V| + 1 - zero-valued chords" },
  prop_naive = { .name = "place: no more increments than the naive placement, nor instrumented edges but where a count was pulled up" },
  prop_pushdown = { .name = "place: straight-line code needs no register, only constant counts" },
  prop_rebuild = { .name = "paths: the tool's rebuild from the recorded path ends gives the same numbering" },
  prop_hand = { .name = "paths: hand-checked graphs (loops, self loops, noreturn, setjmp, a count pulled up)" },
  prop_regions_small = { .name = "regions: small limits give exact dense numbering within the limit" },
  prop_regions_range = { .name = "regions: ERANGE only when cutting every edge still exceeds the limit" },
  prop_threshold = { .name = "regions: the bisection cuts as the one-by-one search over limit >> i would (the first threshold whose cuts fit, where paths shrink with it)" },
  prop_given = { .name = "given cuts: the backedges given, region cuts only where allowed, every number one path (enumeration)" },
  prop_diamonds = { .name = "regions: 70 diamonds (2^70 paths) cut into regions below 2^63, exact" },
  prop_large = { .name = "paths: 100000-node structured graph, iterative and exact" },
  prop_bad_graphs = { .name = "paths: graphs breaking the conventions are refused" };

/* ENTRY -> d0, d_i -> a_i, b_i -> d_{i+1}, d_n -> EXIT: 2^n paths.  */
static void
diamond_chain (struct gen *x, unsigned n)
{
  x->g.nnodes = 2;
  uint32_t d = new_node (x);
  add (x, ENTRY, d, 0);
  for (unsigned i = 0; i < n; i++)
    {
      uint32_t a = new_node (x), b = new_node (x), next = new_node (x);
      add (x, d, a, PP_EDGE_TRUE);
      add (x, d, b, PP_EDGE_FALSE);
      add (x, a, next, 0);
      add (x, b, next, 0);
      d = next;
    }
  add (x, d, EXIT, 0);
  gen_finish (x);
}

/* A long chain of small loops, diamonds, self loops and irreducible pairs, built
   without recursion.  */
static void
large_cfg (struct gen *x, uint32_t target_nodes)
{
  x->g.nnodes = 2;
  uint32_t cur = new_node (x);
  add (x, ENTRY, cur, 0);
  while (x->g.nnodes + 8 < target_nodes)
    {
      uint32_t a = new_node (x), b = new_node (x), c = new_node (x);
      switch (rnd (x, 4))
	{
	case 0:		/* while loop around a diamond */
	  add (x, cur, a, 0);
	  add (x, a, b, 0);
	  add (x, a, c, 0);
	  add (x, b, a, 0);
	  add (x, c, a, 0);
	  cur = new_node (x);
	  add (x, a, cur, 0);
	  break;
	case 1:		/* diamond, then a self loop */
	  add (x, cur, a, 0);
	  add (x, cur, b, 0);
	  add (x, a, c, 0);
	  add (x, b, c, 0);
	  add (x, c, c, 0);
	  cur = c;
	  break;
	case 2:		/* irreducible pair with an early return */
	  add (x, cur, a, 0);
	  add (x, cur, b, 0);
	  add (x, a, b, 0);
	  add (x, b, a, 0);
	  add (x, a, c, 0);
	  add (x, b, EXIT, 0);
	  cur = c;
	  break;
	default:	/* a loop spanning the last few blocks */
	  add (x, cur, a, 0);
	  add (x, a, b, 0);
	  add (x, b, c, 0);
	  add (x, c, cur, 0);
	  add (x, b, EXIT, PP_EDGE_FAKE);
	  cur = c;
	  break;
	}
    }
  add (x, cur, EXIT, 0);
  gen_finish (x);
}

/* ------------------------------------------------------------------------- */
/* The oracle: the path structure from the flags and the library's cuts.  */

struct oracle
{
  const pp_graph *g;
  bool *path_edge;		/* paths run along it */
  bool *cut;			/* ends a path at its source, starts one at its target */
  bool *reentry;		/* node: target of a fake re-entry */
  bool *reach;			/* node: reachable from ENTRY through paths and cuts */
  bool *head;			/* node: paths start there */
  bool acyclic;			/* the cuts break every cycle */
};

static bool
sole_fake_leave (const pp_graph *g, uint32_t e)
{
  return (g->edges[e].flags & PP_EDGE_FAKE) && g->edges[e].dst == g->exit
	 && pp_graph_out_degree (g, g->edges[e].src) == 1;
}

static bool
is_entry_into_reentry (const struct oracle *o, uint32_t e)
{
  return o->g->edges[e].src == o->g->entry && o->reentry[o->g->edges[e].dst];
}

/* Kahn over the path edges between reachable nodes.  Fills order (reachable nodes
   in topological order) and returns false on a cycle.  */
static bool
oracle_topological (const struct oracle *o, uint32_t *order, uint32_t *norder)
{
  const pp_graph *g = o->g;
  uint32_t *indegree = calloc (g->nnodes, sizeof *indegree);
  if (!indegree)
    abort ();
  uint32_t nreach = 0, n = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (o->path_edge[e] && o->reach[g->edges[e].src])
      indegree[g->edges[e].dst]++;
  for (uint32_t v = 0; v < g->nnodes; v++)
    {
      nreach += o->reach[v];
      if (o->reach[v] && indegree[v] == 0)
	order[n++] = v;
    }
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = g->succ_start[order[i]]; k < g->succ_start[order[i] + 1]; k++)
      {
	uint32_t e = g->succ_edges[k];
	if (o->path_edge[e] && --indegree[g->edges[e].dst] == 0)
	  order[n++] = g->edges[e].dst;
      }
  free (indegree);
  *norder = n;
  return n == nreach;
}

/* cut[] must be filled; everything else follows.  */
static void
oracle_init (struct oracle *o, const pp_graph *g, const bool *cut)
{
  o->g = g;
  o->path_edge = calloc (g->nedges + 1, 1);
  o->cut = calloc (g->nedges + 1, 1);
  o->reentry = calloc (g->nnodes, 1);
  o->reach = calloc (g->nnodes, 1);
  o->head = calloc (g->nnodes, 1);
  uint32_t *queue = calloc (g->nnodes, sizeof *queue);
  if (!o->path_edge || !o->cut || !o->reentry || !o->reach || !o->head || !queue)
    abort ();
  for (uint32_t e = 0; e < g->nedges; e++)
    if ((g->edges[e].flags & PP_EDGE_FAKE) && g->edges[e].src == g->entry)
      o->reentry[g->edges[e].dst] = true;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint32_t flags = g->edges[e].flags;
      o->cut[e] = cut[e];
      o->path_edge[e] = !cut[e] && !(flags & PP_EDGE_EXIT_ENTRY)
			&& (!(flags & PP_EDGE_FAKE) || sole_fake_leave (g, e))
			&& !is_entry_into_reentry (o, e);
    }
  uint32_t head = 0, tail = 0;
  o->reach[g->entry] = true;
  queue[tail++] = g->entry;
  for (uint32_t v = 0; v < g->nnodes; v++)
    if (o->reentry[v] && !o->reach[v])
      {
	o->reach[v] = o->head[v] = true;
	queue[tail++] = v;
      }
  while (head < tail)
    {
      uint32_t v = queue[head++];
      for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	{
	  uint32_t e = g->succ_edges[k], t = g->edges[e].dst;
	  if (o->cut[e])
	    o->head[t] = true;
	  if ((o->cut[e] || o->path_edge[e]) && !o->reach[t])
	    {
	      o->reach[t] = true;
	      queue[tail++] = t;
	    }
	}
    }
  uint32_t n;
  o->acyclic = oracle_topological (o, queue, &n);
  free (queue);
}

static void
oracle_free (struct oracle *o)
{
  free (o->path_edge);
  free (o->cut);
  free (o->reentry);
  free (o->reach);
  free (o->head);
}

static bool *
library_cuts (const pp_graph *g, const pp_paths *p)
{
  bool *cut = calloc (g->nedges + 1, 1);
  if (!cut)
    abort ();
  for (uint32_t e = 0; e < g->nedges; e++)
    cut[e] = p->role[e] == PP_PATH_ROLE_BACK || p->role[e] == PP_PATH_ROLE_CUT;
  return cut;
}

typedef unsigned __int128 u128;

static u128
sat128 (u128 a, u128 b)
{
  u128 max = ~(u128) 0 >> 1;
  return a > max - b || a + b > max ? max : a + b;
}

/* Number of paths by dynamic programming over the oracle's structure (saturating
   at 2^127), or all ones when a cycle survived the cuts.  */
static u128
oracle_count (const struct oracle *o)
{
  const pp_graph *g = o->g;
  uint32_t *order = calloc (g->nnodes, sizeof *order), n;
  u128 *to_end = calloc (g->nnodes, sizeof *to_end);
  if (!order || !to_end)
    abort ();
  if (!oracle_topological (o, order, &n))
    {
      free (order);
      free (to_end);
      return ~(u128) 0;
    }
  for (uint32_t i = n; i-- > 0;)
    {
      uint32_t v = order[i];
      for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	{
	  uint32_t e = g->succ_edges[k], t = g->edges[e].dst;
	  if (o->cut[e] || (o->path_edge[e] && t == g->exit))
	    to_end[v] = sat128 (to_end[v], 1);
	  else if (o->path_edge[e])
	    to_end[v] = sat128 (to_end[v], to_end[t]);
	}
    }
  u128 total = 0;
  for (uint32_t k = g->succ_start[g->entry]; k < g->succ_start[g->entry + 1]; k++)
    {
      uint32_t e = g->succ_edges[k], t = g->edges[e].dst;
      if (o->path_edge[e])
	total = sat128 (total, t == g->exit ? 1 : to_end[t]);
    }
  for (uint32_t v = 0; v < g->nnodes; v++)
    if (o->head[v])
      total = sat128 (total, to_end[v]);
  free (order);
  free (to_end);
  return total;
}

/* Roles against the oracle built from the library's cuts.  */
static void
check_roles (const struct gen *x, const pp_paths *p, const struct oracle *o,
	     unsigned long long seed)
{
  const pp_graph *g = &x->g;
  unit_check (&prop_roles, o->acyclic, "seed %#llx: a cycle survives the cuts", seed);
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint32_t flags = g->edges[e].flags, src = g->edges[e].src;
      uint8_t role = p->role[e];
      bool fake_leave = (flags & PP_EDGE_FAKE) && g->edges[e].dst == g->exit;
      bool ok;
      if (flags & PP_EDGE_EXIT_ENTRY)
	ok = role == PP_PATH_ROLE_CLOSING;
      else if (fake_leave && !sole_fake_leave (g, e))
	ok = role == PP_PATH_ROLE_LOST;
      else if (is_entry_into_reentry (o, e))
	ok = role == PP_PATH_ROLE_START || role == PP_PATH_ROLE_DEAD;
      else if (o->reentry[g->edges[e].dst])
	ok = role == PP_PATH_ROLE_CUT || (role == PP_PATH_ROLE_DEAD && !o->reach[src]);
      else if (x->path_end[e] && src != g->entry && g->edges[e].dst != g->exit)
	ok = (role == PP_PATH_ROLE_CUT && p->path_end[e])
	     || (role == PP_PATH_ROLE_DEAD && !o->reach[src]);
      else
	ok = role == PP_PATH_ROLE_DAG || role == PP_PATH_ROLE_BACK
	     || role == PP_PATH_ROLE_DEAD
	     || (role == PP_PATH_ROLE_CUT && p->path_end[e]);
      if (p->path_end[e])
	ok = ok && (role == PP_PATH_ROLE_CUT || role == PP_PATH_ROLE_DEAD);
      unit_check (&prop_roles, ok, "seed %#llx: edge %u (%u->%u flags %#x) has role %u",
	     seed, e, src, g->edges[e].dst, flags, role);
      if (!ok)
	break;
    }
}

/* ------------------------------------------------------------------------- */
/* Simulating the action list.  */

struct sim
{
  uint64_t r;
  unsigned ncounts;
  uint64_t index;
};

static void
apply_count (const pp_path_action *a, struct sim *s)
{
  if (a->count == PP_PATH_COUNT_REG)
    s->index = s->r + a->count_offset, s->ncounts++;
  else if (a->count == PP_PATH_COUNT_CONST)
    s->index = a->count_offset, s->ncounts++;
}

static void
apply_reg (const pp_path_action *a, struct sim *s)
{
  if (a->reg == PP_PATH_REG_ADD)
    s->r += a->reg_value;
  else if (a->reg == PP_PATH_REG_SET)
    s->r = a->reg_value;
}

/* Runs a path from a register state; returns whether it counted once, at its
   number, with nothing after the count and only forced blocks (one successor)
   left to run after it.  */
static bool
run_path (const pp_graph *g, const pp_paths *p, const pp_path *path, struct sim s,
	  uint64_t number)
{
  for (uint32_t i = 0; i <= path->nedges; i++)
    {
      uint32_t e = i < path->nedges ? path->edges[i] : path->end_edge;
      if (e == PP_PATH_NONE)
	break;
      const pp_path_action *a = &p->action[e];
      bool last = i == path->nedges;
      if (s.ncounts)
	{
	  if (a->count != PP_PATH_COUNT_NONE || (!last && a->reg != PP_PATH_REG_NONE)
	      || pp_graph_out_degree (g, g->edges[e].src) != 1)
	    return false;
	  continue;
	}
      apply_count (a, &s);
      if (s.ncounts && !last && a->reg != PP_PATH_REG_NONE)
	return false;
      if (!last)
	apply_reg (a, &s);
    }
  return s.ncounts == 1 && s.index == number;
}

/* Every way of arriving at the path's start, each with two garbage registers.  */
static bool
simulate_path (const pp_graph *g, const pp_paths *p, const pp_path *path,
	       uint64_t number, unsigned long long *rng)
{
  for (int trial = 0; trial < 2; trial++)
    {
      struct sim s = { .r = unit_rand (rng) };
      if (path->start_node == g->entry)
	{
	  if (!run_path (g, p, path, s, number))
	    return false;
	  continue;
	}
      for (uint32_t k = g->pred_start[path->start_node];
	   k < g->pred_start[path->start_node + 1]; k++)
	{
	  uint32_t e = g->pred_edges[k];
	  uint8_t role = p->role[e];
	  if (role != PP_PATH_ROLE_BACK && role != PP_PATH_ROLE_CUT
	      && role != PP_PATH_ROLE_START)
	    continue;
	  struct sim arrived = s;
	  apply_reg (&p->action[e], &arrived);
	  if (!run_path (g, p, path, arrived, number))
	    return false;
	}
    }
  return true;
}

/* ------------------------------------------------------------------------- */
/* Enumeration of every path of a small graph.  */

struct enumeration
{
  const struct oracle *o;
  const pp_paths *p;
  pp_path path;
  uint32_t capacity;
  unsigned long npaths;
  bool overflow, failed;
  bool *number_seen;		/* npaths entries when npaths is small */
  bool *edge_used;
  pp_path decoded;
  unsigned long long rng, seed;
};

static void
path_found (struct enumeration *en)
{
  const pp_paths *p = en->p;
  if (++en->npaths > ENUMERATION_CAP)
    {
      en->overflow = true;
      return;
    }
  for (uint32_t i = 0; i < en->path.nedges; i++)
    en->edge_used[en->path.edges[i]] = true;
  if (en->path.end_edge != PP_PATH_NONE)
    en->edge_used[en->path.end_edge] = true;

  uint64_t number = UINT64_MAX;
  int status = pp_paths_encode (p, &en->path, &number);
  bool in_range = status == PP_PATHS_OK && number < p->npaths
		  && number < ENUMERATION_CAP;
  unit_check (&prop_dense, in_range && !en->number_seen[number],
	 "seed %#llx: path from %u (%u edges) encodes to %llu (status %d, npaths %llu%s)",
	 en->seed, en->path.start_node, en->path.nedges, (unsigned long long) number,
	 status, (unsigned long long) p->npaths,
	 in_range && en->number_seen[number] ? ", duplicate" : "");
  if (!in_range)
    {
      en->failed = true;
      return;
    }
  en->number_seen[number] = true;

  bool same = pp_paths_decode (p, number, &en->decoded) == PP_PATHS_OK
	      && en->decoded.start_node == en->path.start_node
	      && en->decoded.end_edge == en->path.end_edge
	      && en->decoded.nedges == en->path.nedges
	      && !memcmp (en->decoded.edges, en->path.edges,
			  en->path.nedges * sizeof *en->path.edges);
  unit_check (&prop_decode, same, "seed %#llx: decode (%llu) differs from the path",
	 en->seed, (unsigned long long) number);

  if (p->action)
    unit_check (&prop_simulate, simulate_path (en->o->g, p, &en->path, number, &en->rng),
	   "seed %#llx: path %llu from node %u (%u edges, end %u) miscounted",
	   en->seed, (unsigned long long) number, en->path.start_node, en->path.nedges,
	   en->path.end_edge);
}

/* Depth-first over path edges from v; depth bounded by the node count.  */
static void
extend (struct enumeration *en, uint32_t v)
{
  const pp_graph *g = en->o->g;
  for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1] && !en->overflow; k++)
    {
      uint32_t e = g->succ_edges[k], t = g->edges[e].dst;
      if (en->o->cut[e])
	{
	  en->path.end_edge = e;
	  path_found (en);
	  en->path.end_edge = PP_PATH_NONE;
	}
      else if (en->o->path_edge[e])
	{
	  if (en->path.nedges == en->capacity)
	    abort ();
	  en->path.edges[en->path.nedges++] = e;
	  if (t == g->exit)
	    path_found (en);
	  else
	    extend (en, t);
	  en->path.nedges--;
	}
    }
}

/* Enumerates, checks density, decoding, simulation and dead edges.  Returns the
   number of paths, or ULONG_MAX when there were too many to enumerate.  */
static unsigned long
enumerate_and_check (const struct oracle *o, const pp_paths *p,
		     unsigned long long seed)
{
  const pp_graph *g = o->g;
  struct enumeration en = {
    .o = o, .p = p, .capacity = g->nnodes + 1,
    .number_seen = calloc (ENUMERATION_CAP + 1, 1),
    .edge_used = calloc (g->nedges + 1, 1),
    .rng = seed ^ 0x51afull, .seed = seed,
  };
  en.path.edges = calloc (en.capacity, sizeof *en.path.edges);
  en.decoded.edges = calloc (p->max_path_edges > en.capacity ? p->max_path_edges
			     : en.capacity, sizeof *en.decoded.edges);
  if (!en.number_seen || !en.edge_used || !en.path.edges || !en.decoded.edges)
    abort ();
  en.path.start_node = g->entry;
  en.path.end_edge = PP_PATH_NONE;
  extend (&en, g->entry);
  for (uint32_t v = 0; v < g->nnodes && !en.overflow; v++)
    if (o->head[v])
      {
	en.path.start_node = v;
	extend (&en, v);
      }
  unsigned long result = en.overflow ? ULONG_MAX : en.npaths;
  if (!en.overflow)
    {
      unit_check (&prop_dense, en.failed || en.npaths == p->npaths,
	     "seed %#llx: %lu paths enumerated, npaths %llu", seed, en.npaths,
	     (unsigned long long) p->npaths);
      bool dead_ok = true;
      uint32_t bad = 0;
      for (uint32_t e = 0; e < g->nedges && dead_ok; e++)
	{
	  uint8_t role = p->role[e];
	  bool carries = role == PP_PATH_ROLE_DAG || role == PP_PATH_ROLE_BACK
			 || role == PP_PATH_ROLE_CUT;
	  bool expected = en.edge_used[e] || (role == PP_PATH_ROLE_START
					      && p->start_of_node[g->edges[e].dst]
						 != PP_PATH_NONE);
	  if (role != PP_PATH_ROLE_CLOSING && role != PP_PATH_ROLE_LOST
	      && (carries || role == PP_PATH_ROLE_START || role == PP_PATH_ROLE_DEAD)
	      && (role != PP_PATH_ROLE_DEAD) != expected)
	    dead_ok = false, bad = e;
	}
      unit_check (&prop_dead, dead_ok, "seed %#llx: edge %u role %u, used by a path: %d",
	     seed, bad, p->role[bad], en.edge_used[bad]);
    }
  free (en.number_seen);
  free (en.edge_used);
  free (en.path.edges);
  free (en.decoded.edges);
  return result;
}

/* ------------------------------------------------------------------------- */
/* Random executions through the original CFG.  */

/* Walks from ENTRY taking random edges.  A fake leave (a call that did not return)
   ends the walk or, like a longjmp, re-enters at a re-entry target with a garbage
   register.  Every completed path segment must be counted exactly once, at its
   number; segments abandoned by a leave, or gone where EXIT cannot be reached,
   must not be counted.  */
static void
check_executions (const pp_graph *g, const pp_paths *p, unsigned long long seed,
		  unsigned nwalks, unsigned long max_steps)
{
  unsigned long long rng = seed ^ 0xe7ecull;
  uint32_t nreentry = 0;
  uint32_t *reentry = calloc (g->nnodes, sizeof *reentry);
  pp_path seg = { .edges = calloc (max_steps + 1, sizeof *seg.edges) };
  if (!reentry || !seg.edges)
    abort ();
  for (uint32_t e = 0; e < g->nedges; e++)
    if ((g->edges[e].flags & PP_EDGE_FAKE) && g->edges[e].src == g->entry)
      reentry[nreentry++] = g->edges[e].dst;

  for (unsigned w = 0; w < nwalks; w++)
    {
      struct sim s = { .r = unit_rand (&rng) };
      uint32_t v = g->entry;
      bool alive = true;	/* the current segment can still complete */
      unsigned counts = 0;	/* counts since the segment began */
      uint64_t index = 0;
      seg.start_node = v;
      seg.nedges = 0;
      for (unsigned long step = 0; step < max_steps; step++)
	{
	  uint32_t choices = 0, pick = UINT32_MAX;
	  for (uint32_t k = g->succ_start[v]; k < g->succ_start[v + 1]; k++)
	    {
	      uint32_t e = g->succ_edges[k];
	      if ((g->edges[e].flags & PP_EDGE_FAKE) && v == g->entry)
		continue;	/* re-entries follow leaves */
	      if (unit_rand (&rng) % ++choices == 0)
		pick = e;
	    }
	  if (pick == UINT32_MAX)
	    break;
	  const pp_path_action *a = &p->action[pick];
	  uint8_t role = p->role[pick];
	  uint32_t t = g->edges[pick].dst;
	  unsigned before = s.ncounts;
	  apply_count (a, &s);
	  if (s.ncounts != before)
	    {
	      unit_check (&prop_executions, alive,
		     "seed %#llx walk %u step %lu: edge %u (role %u) counted a path "
		     "that cannot complete", seed, w, step, pick, role);
	      counts++;
	      index = s.index;
	    }
	  bool completes = false;
	  if (role == PP_PATH_ROLE_DAG)
	    {
	      seg.edges[seg.nedges++] = pick;
	      if (t == g->exit)
		{
		  seg.end_edge = PP_PATH_NONE;
		  completes = true;
		}
	    }
	  else if (role == PP_PATH_ROLE_BACK || role == PP_PATH_ROLE_CUT)
	    {
	      seg.end_edge = pick;
	      completes = true;
	    }
	  else if (role == PP_PATH_ROLE_START)
	    seg.start_node = t;	/* a function entry into a re-entry target */
	  else
	    {
	      unit_check (&prop_executions, counts == 0,
		     "seed %#llx walk %u step %lu: an abandoned path was counted", seed,
		     w, step);
	      alive = false;	/* a lost leave or a dead edge */
	    }
	  if (completes && alive)
	    {
	      uint64_t expected = UINT64_MAX;
	      int status = pp_paths_encode (p, &seg, &expected);
	      unit_check (&prop_executions, status == PP_PATHS_OK && counts == 1
		     && index == expected,
		     "seed %#llx walk %u step %lu: segment ending on edge %u counted "
		     "%u times, at %llu, expected %llu (status %d)", seed, w, step, pick,
		     counts, (unsigned long long) index, (unsigned long long) expected,
		     status);
	    }
	  apply_reg (a, &s);
	  if (g->edges[pick].flags & PP_EDGE_FAKE)
	    {
	      if (!nreentry || unit_rand (&rng) % 2)
		break;
	      v = reentry[unit_rand (&rng) % nreentry];
	      s.r = unit_rand (&rng);
	      seg.start_node = v;
	      seg.nedges = 0;
	      alive = true;
	      counts = 0;
	      continue;
	    }
	  if (t == g->exit)
	    break;
	  if (completes)
	    {
	      seg.start_node = t;
	      seg.nedges = 0;
	      alive = true;
	      counts = 0;
	    }
	  v = t;
	}
    }
  free (reentry);
  free (seg.edges);
}

/* ------------------------------------------------------------------------- */
/* Placement structure.  */

static uint32_t
find_root (uint32_t *parent, uint32_t v)
{
  while (parent[v] != v)
    v = parent[v] = parent[parent[v]];
  return v;
}

static void
check_placement (const pp_graph *g, const pp_paths *p, bool has_reentry,
		 unsigned long long seed)
{
  const pp_graph *d = &p->dag;
  uint32_t *parent = calloc (d->nnodes, sizeof *parent);
  bool *in_dag = calloc (d->nnodes, 1);
  if (!parent || !in_dag)
    abort ();
  for (uint32_t v = 0; v < d->nnodes; v++)
    parent[v] = v;
  uint32_t nodes = 0, tree = 0, chords = 0, zero_chords = 0, nonzero = 0;
  bool acyclic = true, zero_on_tree = true;
  for (uint32_t e = 0; e < d->nedges; e++)
    {
      uint32_t s = d->edges[e].src, t = d->edges[e].dst;
      in_dag[s] = in_dag[t] = true;
      nonzero += p->dag_inc[e] != 0;
      if (p->dag_on_tree[e])
	{
	  tree++;
	  zero_on_tree = zero_on_tree && p->dag_inc[e] == 0;
	  uint32_t a = find_root (parent, s), b = find_root (parent, t);
	  acyclic = acyclic && a != b;
	  parent[a] = b;
	}
      else
	{
	  chords++;
	  zero_chords += p->dag_inc[e] == 0;
	}
    }
  for (uint32_t v = 0; v < d->nnodes; v++)
    nodes += in_dag[v];
  if (d->nedges)
    {
      unit_check (&prop_tree, acyclic && zero_on_tree && tree == nodes - 1,
	     "seed %#llx: tree of %u edges over %u nodes, acyclic %d, zero on tree %d",
	     seed, tree, nodes, acyclic, zero_on_tree);
      unit_check (&prop_chords, chords == d->nedges - nodes + 1
	     && nonzero == chords - zero_chords,
	     "seed %#llx: %u chords (|E| %u |V| %u), %u non-zero, %u zero chords",
	     seed, chords, d->nedges, nodes, nonzero, zero_chords);
    }

  /* Naive: r = 0 on the function entry, r += Val on every edge with a non-zero
     value, count[r]++ at path ends.  */
  uint32_t naive = 0, placed = 0, naive_inner = 0, placed_inner = 0;
  uint32_t *counts_in = calloc (g->nnodes, sizeof *counts_in);
  bool fake_ok = true;
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      const pp_path_action *a = &p->action[e];
      bool has_code = a->count != PP_PATH_COUNT_NONE || a->reg != PP_PATH_REG_NONE;
      placed += has_code;
      uint8_t role = p->role[e];
      if (role == PP_PATH_ROLE_DAG)
	{
	  uint32_t de = p->dag_of_edge[e];
	  bool inner = g->edges[e].src != g->entry && g->edges[e].dst != g->exit;
	  naive += !inner || p->dag_val[de] != 0;
	  naive_inner += inner && p->dag_val[de] != 0;
	  placed_inner += inner && p->dag_inc[de] != 0;
	  if (inner && a->count != PP_PATH_COUNT_NONE)
	    counts_in[g->edges[e].dst]++;
	}
      else if (role == PP_PATH_ROLE_BACK || role == PP_PATH_ROLE_CUT
	       || (role == PP_PATH_ROLE_START
		   && !(g->edges[e].flags & PP_EDGE_FAKE)))
	naive++;
      if (g->edges[e].flags & PP_EDGE_FAKE)
	fake_ok = fake_ok && (!has_code || (sole_fake_leave (g, e) && a->at_source_end
					   && a->reg == PP_PATH_REG_NONE));
      else
	fake_ok = fake_ok && !a->at_source_end;
    }
  unit_check (&prop_fake_actions, fake_ok, "seed %#llx: an action on a fake edge", seed);
  unit_check (&prop_naive, placed_inner <= naive_inner,
	 "seed %#llx: %u incremented inner edges, naive %u", seed, placed_inner,
	 naive_inner);
  /* Nothing can run at a re-entry, so pushing the initialisation below a
     re-entry target is forced and may cost more than the naive (impossible)
     placement there.  A count pulled up into the K edges entering a node may
     give code to at most half of them that had none (the others merge an
     update into it): that much over the naive placement is allowed.  */
  uint32_t pulled = 0;
  for (uint32_t v = 0; v < g->nnodes; v++)
    pulled += counts_in[v] / 2;
  free (counts_in);
  if (!has_reentry)
    unit_check (&prop_naive, placed <= naive + pulled,
		"seed %#llx: %u instrumented edges, naive %u, pulled-count allowance %u",
		seed, placed, naive, pulled);
  free (parent);
  free (in_dag);
}

/* The tool rebuilds the numbering from the graph and the recorded path ends.  */
static void
check_rebuild (const pp_graph *g, const pp_paths *p, unsigned long long seed)
{
  pp_paths *q;
  int status = pp_paths_number (g, p->path_end, &q);
  bool same = status == PP_PATHS_OK && q->npaths == p->npaths
	      && q->dag.nedges == p->dag.nedges && q->action == NULL
	      && !memcmp (q->role, p->role, g->nedges * sizeof *q->role)
	      && !memcmp (q->path_end, p->path_end, g->nedges * sizeof *q->path_end)
	      && !memcmp (q->dag_val, p->dag_val, p->dag.nedges * sizeof *q->dag_val)
	      && !memcmp (q->dag_origin, p->dag_origin,
			  p->dag.nedges * sizeof *q->dag_origin);
  unit_check (&prop_rebuild, same, "seed %#llx: rebuild status %d differs", seed, status);
  if (status == PP_PATHS_OK)
    pp_paths_free (q);
}

static void
check_invalid_codes (const pp_graph *g, const pp_paths *p, unsigned long long seed)
{
  uint32_t edges[2];
  pp_path path = { .start_node = g->entry, .end_edge = PP_PATH_NONE, .edges = edges };
  uint64_t n;
  bool ok = pp_paths_decode (p, p->npaths, &path) == PP_PATHS_ERANGE;
  /* The closing edge is never on a path, nor is an empty path from ENTRY.  */
  edges[0] = g->nedges - 1;
  path.nedges = 1;
  ok = ok && pp_paths_encode (p, &path, &n) == PP_PATHS_EINVAL;
  path.nedges = 0;
  ok = ok && pp_paths_encode (p, &path, &n) == PP_PATHS_EINVAL;
  path.start_node = g->nnodes;
  ok = ok && pp_paths_encode (p, &path, &n) == PP_PATHS_EINVAL;
  path.start_node = g->exit;
  ok = ok && pp_paths_encode (p, &path, &n) == PP_PATHS_EINVAL;
  unit_check (&prop_encode_invalid, ok, "seed %#llx: a non-path accepted", seed);
}

static double *
random_weights (struct gen *x, unsigned kind)
{
  if (kind == 0)
    return NULL;
  double *w = calloc (x->g.nedges + 1, sizeof *w);
  if (!w)
    abort ();
  if (kind == 1)
    pp_weights_heuristic (&x->g, w);
  else
    for (uint32_t e = 0; e < x->g.nedges; e++)
      w[e] = rnd (x, 5) == 0 ? -1.0 : (double) rnd (x, 100);
  return w;
}

static bool
graph_has_reentry (const pp_graph *g)
{
  for (uint32_t e = 0; e < g->nedges; e++)
    if ((g->edges[e].flags & PP_EDGE_FAKE) && g->edges[e].src == g->entry)
      return true;
  return false;
}

/* Every check on one graph with a plan.  */
static void
check_graph (struct gen *x, const pp_paths_options *opt, unsigned long long seed,
	     bool enumerate)
{
  const pp_graph *g = &x->g;
  pp_paths *p;
  int status = pp_paths_plan (g, opt, &p);
  unit_check (&prop_count, status == PP_PATHS_OK, "seed %#llx: plan failed: %s", seed,
	 pp_paths_strerror (status));
  if (status != PP_PATHS_OK)
    return;
  bool *cut = library_cuts (g, p);
  struct oracle o;
  oracle_init (&o, g, cut);
  check_roles (x, p, &o, seed);
  u128 expected = oracle_count (&o);
  unit_check (&prop_count, expected == p->npaths, "seed %#llx: npaths %llu, oracle %llu",
	 seed, (unsigned long long) p->npaths, (unsigned long long) expected);
  if (enumerate && o.acyclic)
    enumerate_and_check (&o, p, seed);
  check_placement (g, p, graph_has_reentry (g), seed);
  check_rebuild (g, p, seed);
  check_invalid_codes (g, p, seed);
  check_executions (g, p, seed, NWALKS, WALK_STEPS);
  oracle_free (&o);
  free (cut);
  pp_paths_free (p);
}

/* ------------------------------------------------------------------------- */

static void
test_random_graphs (void)
{
  for (unsigned i = 0; i < NRANDOM_CFGS; i++)
    {
      unsigned long long seed = BASE_SEED + i;
      struct gen x;
      gen_init (&x, 0, seed);
      random_cfg (&x, MAX_SMALL_BLOCKS, true, i % 2 == 0, i % 3 == 0);
      double *w = random_weights (&x, i % 3);
      pp_paths_options opt = { .weights = w, .path_end = x.path_end };
      check_graph (&x, &opt, seed, true);
      free (w);
      gen_free (&x);
    }
  for (unsigned i = 0; i < NRANDOM_DAGS; i++)
    {
      unsigned long long seed = BASE_SEED + 0x10000 + i;
      struct gen x;
      gen_init (&x, 0, seed);
      random_cfg (&x, 2 * MAX_SMALL_BLOCKS, false, i % 2 == 0, false);
      double *w = random_weights (&x, i % 3);
      pp_paths_options opt = { .weights = w };
      check_graph (&x, &opt, seed, true);
      free (w);
      gen_free (&x);
    }
  for (unsigned i = 0; i < NSTRUCTURED; i++)
    {
      unsigned long long seed = BASE_SEED + 0x20000 + i;
      struct gen x;
      gen_init (&x, 0, seed);
      structured_cfg (&x, 1 + i % 3);
      double *w = random_weights (&x, 1 + i % 2);
      pp_paths_options opt = { .weights = w };
      check_graph (&x, &opt, seed, x.g.nnodes < 40);
      free (w);
      gen_free (&x);
    }
}

/* The paths after the region cuts of threshold T, recomputed on P0, the
   DAG without region cuts (ORDER: its nodes in topological order): a node
   whose paths from ENTRY exceed T has its cuttable in-edges cut (not from
   ENTRY, not into EXIT, original edges), which end those paths, and it
   starts afresh.  Fills CUT per original edge.  */
static u128
paths_after_threshold (const pp_paths *p0, const uint32_t *order, uint64_t t, bool *cut,
		       u128 *prefix)
{
  const pp_graph *d = &p0->dag;
  memset (cut, 0, p0->nedges + 1);
  u128 ended = 0;
  for (uint32_t i = 0; i < d->nnodes; i++)
    {
      uint32_t v = order[i];
      if (v == d->entry)
	{
	  prefix[v] = 1;
	  continue;
	}
      u128 sum[2] = { 0, 0 };	/* fixed, cuttable */
      for (uint32_t k = d->pred_start[v]; k < d->pred_start[v + 1]; k++)
	{
	  uint32_t e = d->pred_edges[k], src = d->edges[e].src;
	  bool c = v != d->exit && src != d->entry && p0->dag_kind[e] == PP_DAG_EDGE;
	  sum[c] = sat128 (sum[c], prefix[src]);
	}
      prefix[v] = sat128 (sum[0], sum[1]);
      if (sum[1] && prefix[v] > t)
	{
	  for (uint32_t k = d->pred_start[v]; k < d->pred_start[v + 1]; k++)
	    {
	      uint32_t e = d->pred_edges[k];
	      if (d->edges[e].src != d->entry && p0->dag_kind[e] == PP_DAG_EDGE)
		cut[p0->dag_origin[e]] = true;
	    }
	  ended = sat128 (ended, sum[1]);
	  prefix[v] = sat128 (sum[0], p0->start_of_node[v] == PP_PATH_NONE);
	}
    }
  return sat128 (prefix[d->exit], ended);
}

/* P's region cuts (planned under LIMIT) against the thresholds limit >> i
   tried one by one on the same graph numbered without a limit: where the
   paths after cuts shrink with the threshold, P's cuts are those of the
   first threshold whose cuts fit (the last, cutting all it can, if none
   does); elsewhere those of some threshold whose cuts fit, or the last.  */
static void
check_threshold (const pp_graph *g, const bool *path_end, uint64_t limit, const pp_paths *p,
		 unsigned long long seed)
{
  pp_paths_options opt = { .path_end = path_end };
  pp_paths *p0;
  if (pp_paths_plan (g, &opt, &p0) != PP_PATHS_OK)
    abort ();
  const pp_graph *d = &p0->dag;
  uint32_t *order = calloc (d->nnodes + 1, sizeof *order), *indeg = calloc (d->nnodes + 1, sizeof *indeg);
  u128 *prefix = calloc (d->nnodes + 1, sizeof *prefix);
  bool *cut = calloc (g->nedges + 1, 1), *region = calloc (g->nedges + 1, 1);
  if (!order || !indeg || !prefix || !cut || !region)
    abort ();
  /* Kahn's order of the DAG's nodes.  */
  uint32_t n = 0;
  for (uint32_t e = 0; e < d->nedges; e++)
    indeg[d->edges[e].dst]++;
  for (uint32_t v = 0; v < d->nnodes; v++)
    if (indeg[v] == 0)
      order[n++] = v;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = d->succ_start[order[i]]; k < d->succ_start[order[i] + 1]; k++)
      if (--indeg[d->edges[d->succ_edges[k]].dst] == 0)
	order[n++] = d->edges[d->succ_edges[k]].dst;
  if (n != d->nnodes || p0->nregion_cuts)
    abort ();			/* a DAG, with no region cut of its own */
  for (uint32_t e = 0; e < g->nedges; e++)
    region[e] = p->path_end[e] && !p0->path_end[e];
  uint32_t last = 0;
  while (limit >> last > 1)
    last++;
  uint32_t first_fit = UINT32_MAX;
  bool shrink = true, at_first_fit = false, at_some_fit = false;
  u128 before = ~(u128) 0;
  for (uint32_t i = 0; i <= last; i++)
    {
      u128 after = paths_after_threshold (p0, order, limit >> i, cut, prefix);
      bool same = memcmp (cut, region, g->nedges) == 0, fits = after <= limit || i == last;
      shrink &= after <= before;
      before = after;
      if (fits && first_fit == UINT32_MAX)
	{
	  first_fit = i;
	  at_first_fit = same;
	}
      at_some_fit |= same && fits;
    }
  if (shrink)
    unit_check (&prop_threshold, at_first_fit,
		"seed %#llx: limit %llu: the region cuts are not threshold limit >> %u's, "
		"the first whose cuts fit", seed, (unsigned long long) limit, first_fit);
  else
    unit_check (&prop_threshold, at_some_fit,
		"seed %#llx: limit %llu: the region cuts are no threshold's whose cuts fit",
		seed, (unsigned long long) limit);
  free (order);
  free (indeg);
  free (prefix);
  free (cut);
  free (region);
  pp_paths_free (p0);
}

/* The numbering with its cuts given (segments.c's way): P's path ends and
   backedges as the cuts, about half the edges kept from region cuts, the
   same LIMIT; every number one path of the oracle's, no region cut kept.  */
static void
check_given (const pp_graph *g, const pp_paths *p, uint64_t limit,
	     unsigned long long seed)
{
  bool *cuts = calloc (g->nedges + 1, 1), *keep = calloc (g->nedges + 1, 1);
  if (!cuts || !keep)
    abort ();
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      cuts[e] = p->role[e] == PP_PATH_ROLE_BACK || p->path_end[e];
      keep[e] = !cuts[e] && ((e * 2654435761u + (uint32_t) seed) >> 16) % 2;
    }
  struct pp_paths_build b;
  int status = pp_paths_build_number_given (&b, g, cuts, keep, limit);
  if (status == PP_PATHS_OK)
    {
      bool kept = true;
      for (uint32_t e = 0; e < g->nedges; e++)
	kept &= !(keep[e] && b.p->path_end[e]);
      unit_check (&prop_given, kept && b.p->npaths <= limit,
		  "seed %#llx: a kept edge cut, or %llu paths over %llu", seed,
		  (unsigned long long) b.p->npaths, (unsigned long long) limit);
      bool *cut = library_cuts (g, b.p);
      struct oracle o;
      oracle_init (&o, g, cut);
      unsigned long n = o.acyclic ? enumerate_and_check (&o, b.p, seed) : 0;
      unit_check (&prop_given, n == b.p->npaths, "seed %#llx: given cuts: %lu "
		  "paths enumerated, npaths %llu", seed, n,
		  (unsigned long long) b.p->npaths);
      oracle_free (&o);
      free (cut);
    }
  else
    unit_check (&prop_given, status == PP_PATHS_ERANGE, "seed %#llx: given "
		"cuts: %s", seed, pp_paths_strerror (status));
  pp_paths_build_free (&b);
  free (cuts);
  free (keep);
}

/* Region cuts on small graphs with small limits, checked by full enumeration.  */
static void
test_small_limits (void)
{
  for (unsigned i = 0; i < NSMALL_LIMITS; i++)
    {
      unsigned long long seed = BASE_SEED + 0x30000 + i;
      struct gen x;
      gen_init (&x, 0, seed);
      if (i % 2)
	random_cfg (&x, MAX_SMALL_BLOCKS, true, true, i % 4 == 1);
      else
	structured_cfg (&x, 2);
      pp_paths_options opt = { .path_end = x.path_end, .max_paths = 1 + rnd (&x, 40) };
      pp_paths *p;
      int status = pp_paths_plan (&x.g, &opt, &p);
      if (status == PP_PATHS_ERANGE)
	{
	  /* Cutting every edge that can be cut must not fit either.  */
	  bool *cut = calloc (x.g.nedges + 1, 1);
	  if (!cut)
	    abort ();
	  for (uint32_t e = 0; e < x.g.nedges; e++)
	    cut[e] = x.g.edges[e].src != ENTRY && x.g.edges[e].dst != EXIT
		     && !(x.g.edges[e].flags & PP_EDGE_FAKE);
	  struct oracle o;
	  oracle_init (&o, &x.g, cut);
	  u128 least = oracle_count (&o);
	  unit_check (&prop_regions_range, least > opt.max_paths,
		 "seed %#llx: ERANGE for limit %llu, but cutting everything gives %llu",
		 seed, (unsigned long long) opt.max_paths, (unsigned long long) least);
	  oracle_free (&o);
	  free (cut);
	  gen_free (&x);
	  continue;
	}
      unit_check (&prop_regions_small, status == PP_PATHS_OK,
	     "seed %#llx: plan failed: %s", seed, pp_paths_strerror (status));
      if (status != PP_PATHS_OK)
	{
	  gen_free (&x);
	  continue;
	}
      unit_check (&prop_regions_small, p->npaths <= opt.max_paths,
	     "seed %#llx: %llu paths over the limit %llu", seed,
	     (unsigned long long) p->npaths, (unsigned long long) opt.max_paths);
      uint32_t marked = 0;
      for (uint32_t e = 0; e < x.g.nedges; e++)
	marked += p->path_end[e] && !x.path_end[e];
      unit_check (&prop_regions_small, marked == p->nregion_cuts,
	     "seed %#llx: %u new path ends recorded, %u region cuts", seed, marked,
	     p->nregion_cuts);
      bool *cut = library_cuts (&x.g, p);
      struct oracle o;
      oracle_init (&o, &x.g, cut);
      unsigned long n = o.acyclic ? enumerate_and_check (&o, p, seed) : 0;
      unit_check (&prop_regions_small, n == p->npaths,
	     "seed %#llx: %lu paths enumerated, npaths %llu", seed, n,
	     (unsigned long long) p->npaths);
      check_rebuild (&x.g, p, seed);
      check_executions (&x.g, p, seed, NWALKS, WALK_STEPS);
      oracle_free (&o);
      free (cut);
      check_given (&x.g, p, opt.max_paths, seed);
      if (p->nregion_cuts)
	check_threshold (&x.g, x.path_end, opt.max_paths, p, seed);
      pp_paths_free (p);
      gen_free (&x);
    }
  unit_report (&prop_regions_small);
  unit_report (&prop_regions_range);
  unit_report (&prop_threshold);
  unit_report (&prop_given);
}

static void
test_diamonds (void)
{
  struct gen x;
  gen_init (&x, 0, BASE_SEED);
  diamond_chain (&x, NDIAMONDS);
  pp_paths *p;
  int status = pp_paths_plan (&x.g, NULL, &p);
  unit_check (&prop_diamonds, status == PP_PATHS_OK, "plan failed: %s",
	 pp_paths_strerror (status));
  if (status == PP_PATHS_OK)
    {
      unit_check (&prop_diamonds, strcmp (p->npaths_uncut, "1180591620717411303424") == 0,
	     "uncut count %s, expected 2^70", p->npaths_uncut);
      unit_check (&prop_diamonds, p->nregion_cuts > 0 && p->npaths <= PP_PATHS_MAX,
	     "%u region cuts, %llu paths", p->nregion_cuts,
	     (unsigned long long) p->npaths);
      bool *cut = library_cuts (&x.g, p);
      struct oracle o;
      oracle_init (&o, &x.g, cut);
      unit_check (&prop_diamonds, oracle_count (&o) == p->npaths,
	     "npaths %llu differs from the oracle", (unsigned long long) p->npaths);
      /* Each region is counted exactly along random executions.  */
      unsigned long before = prop_executions.failures;
      check_executions (&x.g, p, BASE_SEED, 200, 10 * NDIAMONDS);
      unit_check (&prop_diamonds, prop_executions.failures == before,
	     "executions miscounted: %s", prop_executions.why);
      check_placement (&x.g, p, false, BASE_SEED);
      check_rebuild (&x.g, p, BASE_SEED);
      /* The largest numbers decode and encode back.  */
      pp_path path = { .edges = calloc (p->max_path_edges, sizeof *path.edges) };
      uint64_t n = UINT64_MAX;
      bool ok = path.edges && pp_paths_decode (p, p->npaths - 1, &path) == PP_PATHS_OK
		&& pp_paths_encode (p, &path, &n) == PP_PATHS_OK && n == p->npaths - 1;
      unit_check (&prop_diamonds, ok, "the last path does not round-trip");
      free (path.edges);
      oracle_free (&o);
      free (cut);
      pp_paths_free (p);
    }
  gen_free (&x);

  /* Cutting at the natural place: twice the paths of the limit need a cut,
     the limit itself none.  */
  gen_init (&x, 0, BASE_SEED);
  diamond_chain (&x, 10);
  pp_paths_options opt = { .max_paths = 1024 };
  status = pp_paths_plan (&x.g, &opt, &p);
  unit_check (&prop_diamonds, status == PP_PATHS_OK && p->nregion_cuts == 0
	 && p->npaths == 1024, "10 diamonds within 1024: status %d", status);
  if (status == PP_PATHS_OK)
    pp_paths_free (p);
  opt.max_paths = 1023;
  status = pp_paths_plan (&x.g, &opt, &p);
  unit_check (&prop_diamonds, status == PP_PATHS_OK && p->nregion_cuts > 0
	 && p->npaths <= 1023, "10 diamonds within 1023: status %d", status);
  if (status == PP_PATHS_OK)
    pp_paths_free (p);
  gen_free (&x);
  unit_report (&prop_diamonds);
}

static void
test_large (void)
{
  struct gen x;
  gen_init (&x, 0, BASE_SEED + 0x40000);
  large_cfg (&x, LARGE_NODES);
  /* Random weights: the chained loops nest 25000 deep, and the structural
     heuristic costs O(|V| x depth).  */
  double *w = random_weights (&x, 2);
  pp_paths_options opt = { .weights = w };
  pp_paths *p;
  int status = pp_paths_plan (&x.g, &opt, &p);
  unit_check (&prop_large, status == PP_PATHS_OK, "plan failed: %s",
	 pp_paths_strerror (status));
  if (status == PP_PATHS_OK)
    {
      bool *cut = library_cuts (&x.g, p);
      struct oracle o;
      oracle_init (&o, &x.g, cut);
      unit_check (&prop_large, oracle_count (&o) == p->npaths,
	     "npaths %llu differs from the oracle", (unsigned long long) p->npaths);
      unsigned long before = prop_executions.failures;
      check_executions (&x.g, p, BASE_SEED, 10, 4 * LARGE_NODES);
      unit_check (&prop_large, prop_executions.failures == before,
	     "executions miscounted: %s", prop_executions.why);
      check_placement (&x.g, p, false, BASE_SEED);
      check_rebuild (&x.g, p, BASE_SEED);
      oracle_free (&o);
      free (cut);
      pp_paths_free (p);
    }
  free (w);
  gen_free (&x);
  unit_report (&prop_large);
}

/* Small graphs whose paths and probes are known by hand.  */
static pp_paths *
plan_hand (struct gen *x, const char *what)
{
  pp_paths *p;
  int status = pp_paths_plan (&x->g, NULL, &p);
  unit_check (&prop_hand, status == PP_PATHS_OK, "%s: %s", what,
	 pp_paths_strerror (status));
  return status == PP_PATHS_OK ? p : NULL;
}

static void
test_hand (void)
{
  struct gen x;
  pp_paths *p;

  /* if/else: two paths, no register at all.  */
  gen_init (&x, 6, 0);
  add (&x, ENTRY, 2, 0);
  add (&x, 2, 3, PP_EDGE_TRUE);
  add (&x, 2, 4, PP_EDGE_FALSE);
  add (&x, 3, 5, 0);
  add (&x, 4, 5, 0);
  add (&x, 5, EXIT, 0);
  gen_finish (&x);
  if ((p = plan_hand (&x, "if/else")))
    {
      unsigned reg_ops = 0, const_counts = 0;
      for (uint32_t e = 0; e < x.g.nedges; e++)
	{
	  reg_ops += p->action[e].reg != PP_PATH_REG_NONE
		     || p->action[e].count == PP_PATH_COUNT_REG;
	  const_counts += p->action[e].count == PP_PATH_COUNT_CONST;
	}
      unit_check (&prop_hand, p->npaths == 2, "if/else: %llu paths",
	     (unsigned long long) p->npaths);
      unit_check (&prop_pushdown, reg_ops == 0 && const_counts == 2,
	     "if/else: %u register operations, %u constant counts", reg_ops,
	     const_counts);
      pp_paths_free (p);
    }
  gen_free (&x);

  /* Loop E -> A -> B, B -> A back, B -> EXIT: paths EABX, EAB|, |ABX, |AB|.  */
  gen_init (&x, 4, 0);
  add (&x, ENTRY, 2, 0);
  add (&x, 2, 3, 0);
  uint32_t back = add (&x, 3, 2, 0);
  add (&x, 3, EXIT, 0);
  gen_finish (&x);
  if ((p = plan_hand (&x, "loop")))
    {
      unit_check (&prop_hand, p->npaths == 4 && p->role[back] == PP_PATH_ROLE_BACK
	     && p->action[back].count != PP_PATH_COUNT_NONE,
	     "loop: %llu paths, backedge role %u", (unsigned long long) p->npaths,
	     p->role[back]);
      pp_paths_free (p);
    }
  gen_free (&x);

  /* Self loop: EAX, EA|, |AX, |A|.  */
  gen_init (&x, 3, 0);
  add (&x, ENTRY, 2, 0);
  uint32_t self = add (&x, 2, 2, 0);
  add (&x, 2, EXIT, 0);
  gen_finish (&x);
  if ((p = plan_hand (&x, "self loop")))
    {
      unit_check (&prop_hand, p->npaths == 4 && p->role[self] == PP_PATH_ROLE_BACK,
	     "self loop: %llu paths", (unsigned long long) p->npaths);
      pp_paths_free (p);
    }
  gen_free (&x);

  /* noreturn call in B, a call that may not return in C:
     E -> A, A -> B, A -> C, B => EXIT (sole fake leave), C => EXIT (fake),
     C -> D, D -> EXIT.  Paths: EAB (counted before B's call), EACD.  */
  gen_init (&x, 6, 0);
  add (&x, ENTRY, 2, 0);
  uint32_t to_noreturn = add (&x, 2, 3, 0);
  add (&x, 2, 4, 0);
  uint32_t noreturn = add (&x, 3, EXIT, PP_EDGE_FAKE);
  uint32_t may_leave = add (&x, 4, EXIT, PP_EDGE_FAKE);
  add (&x, 4, 5, 0);
  add (&x, 5, EXIT, 0);
  gen_finish (&x);
  if ((p = plan_hand (&x, "noreturn")))
    {
      /* The count goes before the call, or is pulled up into the edge to the
	 block: nothing in that block can leave before its call.  */
      bool counted = (p->action[noreturn].at_source_end
		      && p->action[noreturn].count != PP_PATH_COUNT_NONE)
		     || p->action[to_noreturn].count != PP_PATH_COUNT_NONE;
      unit_check (&prop_hand, p->npaths == 2 && p->role[noreturn] == PP_PATH_ROLE_DAG
	     && counted && p->role[may_leave] == PP_PATH_ROLE_LOST,
	     "noreturn: %llu paths, roles %u %u", (unsigned long long) p->npaths,
	     p->role[noreturn], p->role[may_leave]);
      pp_paths_free (p);
    }
  gen_free (&x);

  /* setjmp receiver S: E -> A, A -> S, E => S (fake), S -> EXIT.  A -> S is a
     cut, and nothing runs at the re-entry: paths EA|, |SX.  */
  gen_init (&x, 4, 0);
  add (&x, ENTRY, 2, 0);
  uint32_t into = add (&x, 2, 3, 0);
  uint32_t reentry = add (&x, ENTRY, 3, PP_EDGE_FAKE);
  add (&x, 3, EXIT, 0);
  gen_finish (&x);
  if ((p = plan_hand (&x, "setjmp")))
    {
      unit_check (&prop_hand, p->npaths == 2 && p->role[into] == PP_PATH_ROLE_CUT
	     && p->role[reentry] == PP_PATH_ROLE_START
	     && p->action[into].reg == PP_PATH_REG_NONE
	     && p->action[reentry].count == PP_PATH_COUNT_NONE
	     && p->action[reentry].reg == PP_PATH_REG_NONE,
	     "setjmp: %llu paths, roles %u %u", (unsigned long long) p->npaths,
	     p->role[into], p->role[reentry]);
      pp_paths_free (p);
    }
  gen_free (&x);

  /* A caller's path end splits straight-line code: EA|, |BX.  */
  gen_init (&x, 4, 0);
  add (&x, ENTRY, 2, 0);
  uint32_t end = add (&x, 2, 3, 0);
  add (&x, 3, EXIT, 0);
  gen_finish (&x);
  x.path_end[end] = true;
  pp_paths_options opt = { .path_end = x.path_end };
  if (pp_paths_plan (&x.g, &opt, &p) == PP_PATHS_OK)
    {
      unit_check (&prop_hand, p->npaths == 2 && p->role[end] == PP_PATH_ROLE_CUT
	     && p->path_end[end] && p->nregion_cuts == 0,
	     "path end: %llu paths", (unsigned long long) p->npaths);
      pp_paths_free (p);
    }
  else
    unit_check (&prop_hand, 0, "path end: plan failed");
  gen_free (&x);

  /* A count pulled up where as many entering edges merge it into their update
     as gain code (pull_counts_up): a diamond E -> A -> {C, D} -> F makes the
     register vary, F -> B1..B4 and each Bi -> V and Bi -> W.  With these weights
     two of the edges into V carry an increment and two nothing; the count of
     V -> X goes into all four (the edge out of V left bare).  */
  gen_init (&x, 12, 0);
  add (&x, ENTRY, 2, 0);
  add (&x, 2, 3, PP_EDGE_TRUE);
  add (&x, 2, 4, PP_EDGE_FALSE);
  add (&x, 3, 5, 0);
  add (&x, 4, 5, 0);
  for (uint32_t i = 0; i < 4; i++)
    add (&x, 5, 6 + i, 0);
  uint32_t into_v[4];
  for (uint32_t i = 0; i < 4; i++)
    {
      into_v[i] = add (&x, 6 + i, 10, 0);
      add (&x, 6 + i, 11, 0);
    }
  uint32_t out_of_v = add (&x, 10, EXIT, 0);
  add (&x, 11, EXIT, 0);
  gen_finish (&x);
  double weight[32];
  for (uint32_t e = 0; e < x.g.nedges; e++)
    weight[e] = 1 + (7 * e + 1) % 5;
  pp_paths_options weighted = { .weights = weight };
  if (pp_paths_plan (&x.g, &weighted, &p) == PP_PATHS_OK)
    {
      unsigned counting = 0;
      for (uint32_t i = 0; i < 4; i++)
	counting += p->action[into_v[i]].count == PP_PATH_COUNT_REG
		    && p->action[into_v[i]].reg == PP_PATH_REG_NONE;
      unit_check (&prop_hand, counting == 4
			      && p->action[out_of_v].count == PP_PATH_COUNT_NONE,
		  "pull-up: %u of the 4 edges into V count, V's way out %s", counting,
		  p->action[out_of_v].count == PP_PATH_COUNT_NONE ? "bare" : "counts");
      pp_paths_free (p);
    }
  else
    unit_check (&prop_hand, 0, "pull-up: plan failed");
  gen_free (&x);

  unit_report (&prop_hand);
  unit_report (&prop_pushdown);
}

static void
test_bad_graphs (void)
{
  static const struct
  {
    uint32_t src, dst, flags;
    const char *what;
  } bad[] = {
    { 2, ENTRY, 0, "edge into ENTRY" },
    { EXIT, 2, 0, "edge out of EXIT" },
    { 2, 3, PP_EDGE_ABNORMAL, "abnormal edge" },
    { 2, 3, PP_EDGE_FAKE, "fake edge between blocks" },
    { ENTRY, EXIT, PP_EDGE_FAKE, "fake ENTRY -> EXIT" },
    { ENTRY, EXIT, PP_EDGE_EXIT_ENTRY, "closing edge backwards" },
  };
  for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      struct gen x;
      gen_init (&x, 4, 0);
      add (&x, ENTRY, 2, 0);
      add (&x, 2, 3, 0);
      add (&x, 3, EXIT, 0);
      add (&x, bad[i].src, bad[i].dst, bad[i].flags);
      gen_finish (&x);
      pp_paths *p = NULL;
      int status = pp_paths_plan (&x.g, NULL, &p);
      unit_check (&prop_bad_graphs, status == PP_PATHS_EGRAPH && p == NULL,
	     "%s: status %d", bad[i].what, status);
      status = pp_paths_number (&x.g, NULL, &p);
      unit_check (&prop_bad_graphs, status == PP_PATHS_EGRAPH && p == NULL,
	     "%s: pp_paths_number status %d", bad[i].what, status);
      gen_free (&x);
    }
  pp_graph unfinished;
  pp_graph_init (&unfinished, 2, ENTRY, EXIT);
  pp_paths *p = NULL;
  unit_check (&prop_bad_graphs, pp_paths_plan (&unfinished, NULL, &p) == PP_PATHS_EGRAPH,
	 "unfinished graph accepted");
  pp_graph_free (&unfinished);
  unit_report (&prop_bad_graphs);
}

int
main (void)
{
  test_hand ();
  test_bad_graphs ();
  test_random_graphs ();
  test_small_limits ();
  test_diamonds ();
  test_large ();
  unit_report (&prop_roles);
  unit_report (&prop_dense);
  unit_report (&prop_count);
  unit_report (&prop_decode);
  unit_report (&prop_encode_invalid);
  unit_report (&prop_dead);
  unit_report (&prop_simulate);
  unit_report (&prop_executions);
  unit_report (&prop_fake_actions);
  unit_report (&prop_tree);
  unit_report (&prop_chords);
  unit_report (&prop_naive);
  unit_report (&prop_rebuild);
  return unit_exit_status ();
}
