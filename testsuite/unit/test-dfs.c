/* Oracle tests for corelib/graph's depth-first search (pp_dfs).

   Random small graphs (self loops, parallel edges, every flag, nodes no root
   reaches), walked forwards, backwards and undirected from a few roots, with skip
   flags and filters.  The walk is checked twice:
   - against brute-force definitions: the nodes numbered are exactly those reachable
     through followed edges; preorder and postorder are permutations consistent with
     the DFS tree (parents before children, subtrees nested as intervals); every
     followed edge of a reached node gets exactly one step; an edge is BACK iff its
     target is an ancestor of its source (or the source itself) on the tree path,
     and an undirected walk has no cross edges;
   - step by step against a recursive walk written from graph.h's definition, with a
     filter whose answers the caller changes during the walk (the walk must ask at
     the moment it gets to an edge, once per list entry).
   Chains of a million nodes check that nothing recurses.  Each property prints one
   PASS/FAIL line naming the first graph (seed) that broke it.  */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "unit.h"

#define BASE_SEED 0xdf5d2024ull
#define NGRAPHS 20000
#define MAX_NODES 12
#define DEEP_NODES 1000000u
#define NONE PP_DFS_NONE

static struct unit_property
  prop_reach = { .name = "dfs: exactly the nodes reachable through followed edges are numbered" },
  prop_orders = { .name = "dfs: preorder and postorder are permutations matching pre[] and post[]" },
  prop_tree = { .name = "dfs: tree edges are followed edges, parents come first, subtrees nest" },
  prop_edges = { .name = "dfs: each followed edge gets one step; BACK iff its target is an ancestor of its source" },
  prop_steps = { .name = "dfs: ENTER/LEAVE nest, carry the parent, and see their numbers already set" },
  prop_reference = { .name = "dfs: steps equal a recursive walk's, filter asked lazily once per list entry" },
  prop_api = { .name = "dfs: roots out of range, reached or during a walk start nothing" },
  prop_deep = { .name = "dfs: million-node chains in every direction, no recursion" };

static uint32_t
rnd (unsigned long long *s, uint32_t bound)
{
  return bound ? (uint32_t) (unit_rand (s) % bound) : 0;
}

static const char *const direction_name[] = { "succs", "preds", "both" };

/* One random case: a graph, a walk configuration and the roots to start from.  */
struct walk_case
{
  pp_graph g;
  enum pp_dfs_direction dir;
  uint32_t skip_flags;
  bool *allow;			/* the filter's answer per edge, or NULL: no filter */
  uint32_t nroots, roots[4];
  unsigned long long seed;
};

static void
random_case (struct walk_case *c, unsigned long long seed)
{
  static const uint32_t flag_choice[] = { 0, 0, 0, PP_EDGE_FAKE, PP_EDGE_EXIT_ENTRY,
					  PP_EDGE_ABNORMAL, PP_EDGE_FAKE | PP_EDGE_EH };
  unsigned long long s = seed;
  uint32_t n = 1 + rnd (&s, MAX_NODES);
  uint32_t m = rnd (&s, 3 * n + 1);
  c->seed = seed;
  pp_graph_init (&c->g, n, 0, n - 1);
  for (uint32_t e = 0; e < m; e++)
    {
      uint32_t a = rnd (&s, n), b = rnd (&s, 4) == 0 ? a : rnd (&s, n);
      uint32_t f = flag_choice[rnd (&s, sizeof flag_choice / sizeof *flag_choice)];
      if (pp_graph_add_edge (&c->g, a, b, f) == UINT32_MAX)
	abort ();
      if (rnd (&s, 8) == 0 && pp_graph_add_edge (&c->g, a, b, 0) == UINT32_MAX)
	abort ();		/* a parallel copy */
    }
  if (pp_graph_finish (&c->g) != 0)
    abort ();
  c->dir = (enum pp_dfs_direction) rnd (&s, 3);
  static const uint32_t skip_choice[] = { 0, PP_EDGE_FAKE, PP_EDGE_EXIT_ENTRY,
					  PP_EDGE_FAKE | PP_EDGE_ABNORMAL };
  c->skip_flags = skip_choice[rnd (&s, 4)];
  c->allow = NULL;
  if (rnd (&s, 2))
    {
      c->allow = malloc ((c->g.nedges ? c->g.nedges : 1) * sizeof *c->allow);
      for (uint32_t e = 0; e < c->g.nedges; e++)
	c->allow[e] = rnd (&s, 4) != 0;
    }
  /* Roots may repeat, be reached already or not be nodes at all.  */
  c->nroots = 1 + rnd (&s, 4);
  for (uint32_t i = 0; i < c->nroots; i++)
    c->roots[i] = rnd (&s, 6) == 0 ? n + rnd (&s, 2) : rnd (&s, n);
}

static void
free_case (struct walk_case *c)
{
  pp_graph_free (&c->g);
  free (c->allow);
}

/* Static filter; also counts the calls per edge.  */
struct filter_state
{
  const bool *allow;
  uint32_t *calls;
};

static bool
filter_allow (void *data, uint32_t e)
{
  struct filter_state *f = data;
  f->calls[e]++;
  return f->allow[e];
}

static bool
followed (const struct walk_case *c, uint32_t e)
{
  return !(c->g.edges[e].flags & c->skip_flags) && (!c->allow || c->allow[e]);
}

/* The node a list entry of E leads to: its destination for an entry in a successor
   list (FORWARDS), its source for one in a predecessor list.  */
static uint32_t
far_end (const pp_graph *g, uint32_t e, bool forwards)
{
  return forwards ? g->edges[e].dst : g->edges[e].src;
}

/* Whether u is v or an ancestor of v on the tree path (by the tree edges).  */
static bool
tree_ancestor (const pp_dfs *d, const pp_graph *g, uint32_t u, uint32_t v)
{
  for (uint32_t steps = 0; steps <= g->nnodes; steps++)
    {
      if (v == u)
	return true;
      uint32_t e = d->tree_edge[v];
      if (e == NONE)
	return false;
      /* The parent is the end of the tree edge that is not v (never a self loop).  */
      v = g->edges[e].src == v ? g->edges[e].dst : g->edges[e].src;
    }
  return false;			/* a cycle of tree edges: caught elsewhere */
}

/* ------------------------------------------------------------------------- */
/* Brute-force checks of one walk.  */

struct recorded
{
  pp_dfs_step *steps;
  size_t nsteps, cap;
};

static void
record (struct recorded *r, const pp_dfs_step *s)
{
  if (r->nsteps == r->cap)
    {
      r->cap = r->cap ? 2 * r->cap : 64;
      r->steps = realloc (r->steps, r->cap * sizeof *r->steps);
      if (!r->steps)
	abort ();
    }
  r->steps[r->nsteps++] = *s;
}

/* Walks C with the library, checking the step-time invariants on the way.  */
static void
walk (const struct walk_case *c, pp_dfs *d, struct filter_state *f,
      struct recorded *rec)
{
  const pp_graph *g = &c->g;
  uint32_t n = g->nnodes;
  if (pp_dfs_init (d, g, c->dir, c->skip_flags, c->allow ? filter_allow : NULL, f) != 0)
    abort ();
  /* The library's stack, mirrored from the steps.  */
  uint32_t *stack = malloc ((n + 1) * sizeof *stack), depth = 0;
  bool ok = true, api_ok = true;
  char why[256] = "", api_why[256] = "";
  for (uint32_t i = 0; i < c->nroots; i++)
    {
      uint32_t root = c->roots[i];
      bool expect = root < n && d->pre[root] == NONE;
      if (pp_dfs_root (d, root) != expect)
	{
	  api_ok = false;
	  snprintf (api_why, sizeof api_why, "pp_dfs_root (%u) returned %d", root,
		    !expect);
	}
      pp_dfs_step s;
      bool entered_root = false;
      while (pp_dfs_next (d, &s))
	{
	  record (rec, &s);
	  /* Two steps per node and two per edge at most.  */
	  if (rec->nsteps > 2 * ((size_t) n + 2 * g->nedges))
	    {
	      ok = false;
	      snprintf (why, sizeof why, "more than %zu steps", rec->nsteps - 1);
	      break;
	    }
	  /* The root's LEAVE ends the walk: a new root may start after it.  */
	  if (!(s.event == PP_DFS_LEAVE && s.src == NONE)
	      && (pp_dfs_root (d, 0) || pp_dfs_root (d, n - 1)))
	    {
	      api_ok = false;
	      snprintf (api_why, sizeof api_why, "a root started during a walk");
	    }
	  uint32_t top = depth ? stack[depth - 1] : NONE;
	  switch (s.event)
	    {
	    case PP_DFS_ENTER:
	      if (s.src != top || (top == NONE) != (s.edge == NONE)
		  || (top == NONE && (entered_root || s.dst != root))
		  || d->pre[s.dst] != d->npre - 1 || d->preorder[d->npre - 1] != s.dst
		  || d->post[s.dst] != NONE || d->tree_edge[s.dst] != s.edge)
		{
		  ok = false;
		  snprintf (why, sizeof why, "ENTER %u from %u by %u, stack top %u",
			    s.dst, s.src, s.edge, top);
		}
	      entered_root = true;
	      stack[depth++] = s.dst;
	      break;
	    case PP_DFS_LEAVE:
	      if (s.dst != top || s.src != (depth > 1 ? stack[depth - 2] : NONE)
		  || s.edge != d->tree_edge[s.dst] || d->post[s.dst] != d->npost - 1
		  || d->postorder[d->npost - 1] != s.dst)
		{
		  ok = false;
		  snprintf (why, sizeof why, "LEAVE %u to %u, stack top %u", s.dst,
			    s.src, top);
		}
	      if (depth)
		depth--;
	      break;
	    default:
	      if (s.src != top || d->pre[s.dst] == NONE
		  || (s.event == PP_DFS_BACK) != (d->post[s.dst] == NONE))
		{
		  ok = false;
		  snprintf (why, sizeof why, "%s %u -> %u by %u, stack top %u",
			    s.event == PP_DFS_BACK ? "BACK" : "CROSS", s.src, s.dst,
			    s.edge, top);
		}
	      break;
	    }
	}
      if (depth != 0)
	{
	  ok = false;
	  snprintf (why, sizeof why, "the walk from %u ended with %u nodes open", root,
		    depth);
	  depth = 0;
	}
    }
  pp_dfs_step s;
  if (pp_dfs_next (d, &s))
    {
      ok = false;
      snprintf (why, sizeof why, "a step after the end");
    }
  unit_check (&prop_steps, ok, "seed %llu (%s): %s", c->seed, direction_name[c->dir],
	      why);
  unit_check (&prop_api, api_ok, "seed %llu: %s", c->seed, api_why);
  free (stack);
}

/* Nodes reachable from the valid roots through followed edges (fixpoint).  */
static bool *
brute_reach (const struct walk_case *c)
{
  const pp_graph *g = &c->g;
  bool *reach = calloc (g->nnodes, sizeof *reach);
  for (uint32_t i = 0; i < c->nroots; i++)
    if (c->roots[i] < g->nnodes)
      reach[c->roots[i]] = true;
  for (bool changed = true; changed;)
    {
      changed = false;
      for (uint32_t e = 0; e < g->nedges; e++)
	{
	  if (!followed (c, e))
	    continue;
	  uint32_t a = g->edges[e].src, b = g->edges[e].dst;
	  bool fw = c->dir != PP_DFS_PREDS && reach[a] && !reach[b];
	  bool bw = c->dir != PP_DFS_SUCCS && reach[b] && !reach[a];
	  if (fw)
	    reach[b] = true;
	  if (bw)
	    reach[a] = true;
	  changed |= fw || bw;
	}
    }
  return reach;
}

static void
check_results (const struct walk_case *c, const pp_dfs *d, const struct recorded *rec)
{
  const pp_graph *g = &c->g;
  uint32_t n = g->nnodes;
  char why[256] = "";
  bool *reach = brute_reach (c);

  bool ok = true;
  uint32_t nreach = 0;
  for (uint32_t v = 0; v < n; v++)
    {
      nreach += reach[v];
      if (reach[v] != (d->pre[v] != NONE) || reach[v] != (d->post[v] != NONE))
	{
	  ok = false;
	  snprintf (why, sizeof why, "node %u: reachable %d, pre %u, post %u", v,
		    reach[v], d->pre[v], d->post[v]);
	}
    }
  unit_check (&prop_reach, ok, "seed %llu (%s): %s", c->seed, direction_name[c->dir],
	      why);

  ok = d->npre == nreach && d->npost == nreach;
  if (!ok)
    snprintf (why, sizeof why, "%u reachable, npre %u, npost %u", nreach, d->npre,
	      d->npost);
  for (uint32_t i = 0; i < d->npre && i < n && ok; i++)
    if (d->preorder[i] >= n || d->pre[d->preorder[i]] != i
	|| d->postorder[i] >= n || d->post[d->postorder[i]] != i)
      {
	ok = false;
	snprintf (why, sizeof why, "position %u: preorder %u, postorder %u", i,
		  d->preorder[i], d->postorder[i]);
      }
  unit_check (&prop_orders, ok, "seed %llu (%s): %s", c->seed, direction_name[c->dir],
	      why);

  /* The tree: each reached node but a root hangs by a followed edge from a node
     numbered before it and finished after it; intervals nest exactly along the
     tree paths (the parenthesis theorem).  */
  ok = true;
  for (uint32_t v = 0; v < n && ok; v++)
    {
      if (d->pre[v] == NONE)
	continue;
      uint32_t e = d->tree_edge[v];
      bool is_root = false;
      for (uint32_t i = 0; i < c->nroots; i++)
	is_root |= c->roots[i] == v;
      if (e == NONE)
	{
	  /* A root, and the first of its walk: nothing before it reaches it.  */
	  if (!is_root)
	    {
	      ok = false;
	      snprintf (why, sizeof why, "node %u has no tree edge", v);
	    }
	  continue;
	}
      if (e >= g->nedges || !followed (c, e) || g->edges[e].src == g->edges[e].dst)
	{
	  ok = false;
	  snprintf (why, sizeof why, "node %u: tree edge %u", v, e);
	  continue;
	}
      uint32_t a = g->edges[e].src, b = g->edges[e].dst;
      uint32_t parent = b == v && c->dir != PP_DFS_PREDS ? a
			: a == v && c->dir != PP_DFS_SUCCS ? b : NONE;
      if (parent == NONE || d->pre[parent] == NONE || d->pre[parent] >= d->pre[v]
	  || d->post[parent] <= d->post[v])
	{
	  ok = false;
	  snprintf (why, sizeof why, "node %u: tree edge %u (%u -> %u)", v, e, a, b);
	}
    }
  for (uint32_t u = 0; u < n && ok; u++)
    for (uint32_t v = 0; v < n && ok; v++)
      {
	if (d->pre[u] == NONE || d->pre[v] == NONE)
	  continue;
	/* u is v or an ancestor of v iff its numbers enclose v's; otherwise the
	   one entered first is finished first.  */
	bool nested = d->pre[u] <= d->pre[v] && d->post[v] <= d->post[u];
	bool related = nested || tree_ancestor (d, g, v, u);
	bool disjoint = (d->pre[u] < d->pre[v]) == (d->post[u] < d->post[v]);
	if (nested != tree_ancestor (d, g, u, v) || (!related && !disjoint))
	  {
	    ok = false;
	    snprintf (why, sizeof why, "nodes %u, %u: pre %u, %u, post %u, %u", u, v,
		      d->pre[u], d->pre[v], d->post[u], d->post[v]);
	  }
      }
  unit_check (&prop_tree, ok, "seed %llu (%s): %s", c->seed, direction_name[c->dir],
	      why);

  /* Edge steps: every entry of a reached node's list that is followed (and is not
     the node's own tree edge in an undirected walk) gets exactly one step.  */
  ok = true;
  uint32_t *expected = calloc (2 * (size_t) g->nedges + 1, sizeof *expected);
  uint32_t *seen = calloc (2 * (size_t) g->nedges + 1, sizeof *seen);
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      if (!followed (c, e))
	continue;
      uint32_t a = g->edges[e].src, b = g->edges[e].dst;
      /* Slot 2e: the entry in a's successor list; 2e+1: in b's predecessor list.  */
      if (c->dir != PP_DFS_PREDS && d->pre[a] != NONE)
	expected[2 * e] = 1;
      if (c->dir != PP_DFS_SUCCS && d->pre[b] != NONE)
	expected[2 * e + 1] = 1;
      if (c->dir == PP_DFS_BOTH && d->tree_edge[b] == e && a != b)
	expected[2 * e + 1] = 0;	/* b does not walk its tree edge back */
      if (c->dir == PP_DFS_BOTH && d->tree_edge[a] == e && a != b)
	expected[2 * e] = 0;
    }
  for (size_t i = 0; i < rec->nsteps && ok; i++)
    {
      const pp_dfs_step *s = &rec->steps[i];
      if (s->event == PP_DFS_LEAVE || s->edge == NONE)
	continue;
      uint32_t e = s->edge;
      if (e >= g->nedges)
	{
	  ok = false;
	  snprintf (why, sizeof why, "step on edge %u", e);
	  break;
	}
      uint32_t a = g->edges[e].src, b = g->edges[e].dst;
      /* Which list entry: forwards when it is in src's successor list.  In an
	 undirected walk a self loop appears in both lists; the first step is the
	 successor entry.  */
      bool forwards = c->dir == PP_DFS_SUCCS
		      || (c->dir == PP_DFS_BOTH && s->src == a && s->dst == b
			  && !(a == b && seen[2 * e]));
      if (c->dir == PP_DFS_PREDS)
	forwards = false;
      if (s->src != (forwards ? a : b) || s->dst != far_end (g, e, forwards))
	{
	  ok = false;
	  snprintf (why, sizeof why, "step %u -> %u on edge %u (%u -> %u)", s->src,
		    s->dst, e, a, b);
	  break;
	}
      seen[2 * e + !forwards]++;
      if (s->event == PP_DFS_ENTER)
	continue;
      /* BACK iff the target is the source or an ancestor of it.  */
      bool back = tree_ancestor (d, g, s->dst, s->src);
      if ((s->event == PP_DFS_BACK) != back)
	{
	  ok = false;
	  snprintf (why, sizeof why, "%s %u -> %u on edge %u, target %s ancestor",
		    s->event == PP_DFS_BACK ? "BACK" : "CROSS", s->src, s->dst, e,
		    back ? "an" : "not an");
	}
      /* Undirected: every non-tree edge joins an ancestor and a descendant.  */
      if (c->dir == PP_DFS_BOTH && !back && !tree_ancestor (d, g, s->src, s->dst))
	{
	  ok = false;
	  snprintf (why, sizeof why, "undirected cross edge %u -> %u", s->src, s->dst);
	}
    }
  for (uint32_t i = 0; i < 2 * g->nedges && ok; i++)
    if (expected[i] != seen[i])
      {
	ok = false;
	snprintf (why, sizeof why, "edge %u (%s entry): %u steps, expected %u", i / 2,
		  i % 2 ? "predecessor" : "successor", seen[i], expected[i]);
      }
  unit_check (&prop_edges, ok, "seed %llu (%s): %s", c->seed, direction_name[c->dir],
	      why);
  free (expected);
  free (seen);
  free (reach);
}

/* ------------------------------------------------------------------------- */
/* The recursive walk of graph.h's definition, with a filter the caller changes:
   after each ENTER, both walks flip one edge's answer (from the same random
   sequence), so steps stay equal only if the filter is asked at the right time.  */

struct reference
{
  const struct walk_case *c;
  bool *allow;
  uint32_t *calls;
  unsigned long long flips;
  uint32_t *pre, *post, npre, npost;
  struct recorded rec;
};

static void
flip (bool *allow, uint32_t nedges, unsigned long long *s)
{
  if (nedges)
    {
      uint32_t e = rnd (s, nedges);
      allow[e] = !allow[e];
    }
}

static void
ref_visit (struct reference *r, uint32_t v, uint32_t src, uint32_t tree_edge)
{
  const pp_graph *g = &r->c->g;
  r->pre[v] = r->npre++;
  record (&r->rec, &(pp_dfs_step) { PP_DFS_ENTER, src, v, tree_edge });
  flip (r->allow, g->nedges, &r->flips);
  for (int side = 0; side < 2; side++)
    {
      bool forwards = side == 0;
      if ((forwards && r->c->dir == PP_DFS_PREDS)
	  || (!forwards && r->c->dir == PP_DFS_SUCCS))
	continue;
      uint32_t begin = forwards ? g->succ_start[v] : g->pred_start[v];
      uint32_t end = forwards ? g->succ_start[v + 1] : g->pred_start[v + 1];
      for (uint32_t k = begin; k < end; k++)
	{
	  uint32_t e = forwards ? g->succ_edges[k] : g->pred_edges[k];
	  if (r->c->dir == PP_DFS_BOTH && e == tree_edge)
	    continue;
	  if (g->edges[e].flags & r->c->skip_flags)
	    continue;
	  r->calls[e]++;
	  if (!r->allow[e])
	    continue;
	  uint32_t t = far_end (g, e, forwards);
	  if (r->pre[t] == NONE)
	    ref_visit (r, t, v, e);
	  else
	    record (&r->rec, &(pp_dfs_step) {
		      r->post[t] == NONE ? PP_DFS_BACK : PP_DFS_CROSS, v, t, e });
	}
    }
  r->post[v] = r->npost++;
  record (&r->rec, &(pp_dfs_step) { PP_DFS_LEAVE, src, v, tree_edge });
}

static bool
same_step (const pp_dfs_step *a, const pp_dfs_step *b)
{
  return a->event == b->event && a->src == b->src && a->dst == b->dst
	 && a->edge == b->edge;
}

static void
check_reference (const struct walk_case *c)
{
  const pp_graph *g = &c->g;
  uint32_t n = g->nnodes, m = g->nedges ? g->nedges : 1;
  struct reference r = {
    .c = c,
    .allow = malloc (m * sizeof (bool)),
    .calls = calloc (m, sizeof (uint32_t)),
    .flips = c->seed ^ 0xf11bull,
    .pre = malloc (n * sizeof (uint32_t)),
    .post = malloc (n * sizeof (uint32_t)),
  };
  bool *allow = malloc (m * sizeof *allow);
  uint32_t *calls = calloc (m, sizeof *calls);
  for (uint32_t e = 0; e < g->nedges; e++)
    r.allow[e] = allow[e] = c->allow ? c->allow[e] : true;
  for (uint32_t v = 0; v < n; v++)
    r.pre[v] = r.post[v] = NONE;
  for (uint32_t i = 0; i < c->nroots; i++)
    if (c->roots[i] < n && r.pre[c->roots[i]] == NONE)
      ref_visit (&r, c->roots[i], NONE, NONE);

  struct filter_state f = { .allow = allow, .calls = calls };
  pp_dfs d;
  if (pp_dfs_init (&d, g, c->dir, c->skip_flags, filter_allow, &f) != 0)
    abort ();
  unsigned long long flips = c->seed ^ 0xf11bull;
  struct recorded rec = { 0 };
  for (uint32_t i = 0; i < c->nroots; i++)
    {
      pp_dfs_step s;
      if (!pp_dfs_root (&d, c->roots[i]))
	continue;
      while (pp_dfs_next (&d, &s) && rec.nsteps <= r.rec.nsteps)
	{
	  record (&rec, &s);
	  if (s.event == PP_DFS_ENTER)
	    flip (allow, g->nedges, &flips);
	}
    }

  bool ok = rec.nsteps == r.rec.nsteps;
  char why[256] = "";
  if (!ok)
    snprintf (why, sizeof why, "%zu steps, the recursive walk %zu", rec.nsteps,
	      r.rec.nsteps);
  for (size_t i = 0; i < rec.nsteps && ok; i++)
    if (!same_step (&rec.steps[i], &r.rec.steps[i]))
      {
	ok = false;
	snprintf (why, sizeof why,
		  "step %zu: %d %u -> %u by %u, recursive %d %u -> %u by %u", i,
		  rec.steps[i].event, rec.steps[i].src, rec.steps[i].dst,
		  rec.steps[i].edge, r.rec.steps[i].event, r.rec.steps[i].src,
		  r.rec.steps[i].dst, r.rec.steps[i].edge);
      }
  for (uint32_t v = 0; v < n && ok; v++)
    if (d.pre[v] != r.pre[v] || d.post[v] != r.post[v])
      {
	ok = false;
	snprintf (why, sizeof why, "node %u: pre %u post %u, recursive %u %u", v,
		  d.pre[v], d.post[v], r.pre[v], r.post[v]);
      }
  for (uint32_t e = 0; e < g->nedges && ok; e++)
    if (calls[e] != r.calls[e])
      {
	ok = false;
	snprintf (why, sizeof why, "filter asked %u times about edge %u, recursive %u",
		  calls[e], e, r.calls[e]);
      }
  unit_check (&prop_reference, ok, "seed %llu (%s, skip %#x): %s", c->seed,
	      direction_name[c->dir], c->skip_flags, why);
  pp_dfs_free (&d);
  free (rec.steps);
  free (r.rec.steps);
  free (r.allow);
  free (r.calls);
  free (r.pre);
  free (r.post);
  free (allow);
  free (calls);
}

static void
test_random (void)
{
  for (unsigned long long i = 0; i < NGRAPHS; i++)
    {
      struct walk_case c;
      random_case (&c, BASE_SEED + i);
      uint32_t *calls = calloc (c.g.nedges + 1, sizeof *calls);
      struct filter_state f = { .allow = c.allow, .calls = calls };
      struct recorded rec = { 0 };
      pp_dfs d;
      walk (&c, &d, &f, &rec);
      check_results (&c, &d, &rec);
      check_reference (&c);
      pp_dfs_free (&d);
      free (rec.steps);
      free (calls);
      free_case (&c);
    }
}

/* ------------------------------------------------------------------------- */
/* Named cases.  */

/* A chain 0 -> 1 -> ... -> n-1 plus, when LOOPED, n-1 -> 0: walked from each end
   in each direction.  */
static void
test_deep (void)
{
  for (int looped = 0; looped < 2; looped++)
    {
      pp_graph g;
      pp_graph_init (&g, DEEP_NODES, 0, DEEP_NODES - 1);
      for (uint32_t v = 0; v + 1 < DEEP_NODES; v++)
	if (pp_graph_add_edge (&g, v, v + 1, 0) == UINT32_MAX)
	  abort ();
      if (looped && pp_graph_add_edge (&g, DEEP_NODES - 1, 0, 0) == UINT32_MAX)
	abort ();
      if (pp_graph_finish (&g) != 0)
	abort ();
      for (int dir = 0; dir < 3; dir++)
	{
	  pp_dfs d;
	  if (pp_dfs_init (&d, &g, (enum pp_dfs_direction) dir, 0, NULL, NULL) != 0)
	    abort ();
	  uint32_t root = dir == PP_DFS_PREDS ? DEEP_NODES - 1 : 0;
	  pp_dfs_step s;
	  uint32_t maxdepth = 0, depth = 0, nback = 0;
	  pp_dfs_root (&d, root);
	  for (uint32_t steps = 0; steps <= 4 * DEEP_NODES && pp_dfs_next (&d, &s);
	       steps++)
	    {
	      if (s.event == PP_DFS_ENTER && ++depth > maxdepth)
		maxdepth = depth;
	      else if (s.event == PP_DFS_LEAVE)
		depth--;
	      else if (s.event == PP_DFS_BACK)
		nback++;
	    }
	  /* The whole chain is one tree path; the loop edge closes it once.  */
	  bool ok = d.npre == DEEP_NODES && d.npost == DEEP_NODES
		    && maxdepth == DEEP_NODES && nback == (uint32_t) looped;
	  for (uint32_t i = 0; i < DEEP_NODES && ok; i++)
	    {
	      uint32_t v = dir == PP_DFS_PREDS ? DEEP_NODES - 1 - i : i;
	      ok = d.pre[v] == i && d.post[v] == DEEP_NODES - 1 - i;
	    }
	  unit_check (&prop_deep, ok,
		      "%s chain (%s): %u reached, depth %u, %u back edges",
		      looped ? "looped" : "open", direction_name[dir], d.npre,
		      maxdepth, nback);
	  pp_dfs_free (&d);
	}
      pp_graph_free (&g);
    }
}

/* Hand-checked walks: a diamond with a loop, in every direction.  */
static void
test_hand (void)
{
  /* 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 1 (e4), 3 -> 3 (e5).  */
  pp_graph g;
  pp_graph_init (&g, 5, 0, 3);
  static const uint32_t ends[][2] = { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 },
				      { 3, 1 }, { 3, 3 } };
  for (unsigned i = 0; i < 6; i++)
    pp_graph_add_edge (&g, ends[i][0], ends[i][1], i == 4 ? PP_EDGE_FAKE : 0);
  pp_graph_finish (&g);
  struct
  {
    enum pp_dfs_direction dir;
    uint32_t root, skip;
    const char *expect;
  } cases[] = {
    { PP_DFS_SUCCS, 0, 0, "E-0 E1@0 E3@2 B1@4 B3@5 L3 L1 E2@1 C3@3 L2 L0" },
    { PP_DFS_SUCCS, 0, PP_EDGE_FAKE, "E-0 E1@0 E3@2 B3@5 L3 L1 E2@1 C3@3 L2 L0" },
    { PP_DFS_PREDS, 3, 0, "E-3 E1@2 E0@0 L0 B3@4 L1 E2@3 C0@1 L2 B3@5 L3" },
    { PP_DFS_BOTH, 0, 0,
      "E-0 E1@0 E3@2 B1@4 B3@5 E2@3 B0@1 L2 B3@5 L3 C3@4 L1 C2@1 L0" },
    { PP_DFS_SUCCS, 4, 0, "E-4 L4" },
  };
  bool ok = true;
  char got[256] = "", why[512] = "";
  for (unsigned i = 0; i < sizeof cases / sizeof *cases && ok; i++)
    {
      pp_dfs d;
      pp_dfs_init (&d, &g, cases[i].dir, cases[i].skip, NULL, NULL);
      pp_dfs_root (&d, cases[i].root);
      pp_dfs_step s;
      size_t len = 0;
      got[0] = '\0';
      while (pp_dfs_next (&d, &s) && len < sizeof got - 16)
	{
	  static const char letter[] = "ELBC";
	  if (s.event == PP_DFS_LEAVE)
	    len += (size_t) snprintf (got + len, sizeof got - len, "%sL%u",
				      len ? " " : "", s.dst);
	  else if (s.edge == NONE)
	    len += (size_t) snprintf (got + len, sizeof got - len, "%sE-%u",
				      len ? " " : "", s.dst);
	  else
	    len += (size_t) snprintf (got + len, sizeof got - len, "%s%c%u@%u",
				      len ? " " : "", letter[s.event], s.dst, s.edge);
	}
      ok = strcmp (got, cases[i].expect) == 0;
      if (!ok)
	snprintf (why, sizeof why, "case %u: got \"%s\", expected \"%s\"", i, got,
		  cases[i].expect);
      pp_dfs_free (&d);
    }
  unit_check (&prop_reference, ok, "%s", why);

  /* The API edges: no node, out of range, a second walk from a reached node.  */
  pp_graph empty;
  pp_graph_init (&empty, 0, 0, 0);
  pp_graph_finish (&empty);
  pp_dfs d;
  ok = pp_dfs_init (&d, &empty, PP_DFS_SUCCS, 0, NULL, NULL) == 0
       && !pp_dfs_root (&d, 0) && !pp_dfs_next (&d, &(pp_dfs_step) { 0 })
       && d.npre == 0;
  pp_dfs_free (&d);
  pp_dfs_init (&d, &g, PP_DFS_SUCCS, 0, NULL, NULL);
  pp_dfs_run (&d, 1);
  ok = ok && d.npre == 2 && !pp_dfs_root (&d, 3) && pp_dfs_root (&d, 0);
  pp_dfs_free (&d);
  unit_check (&prop_api, ok, "empty graph or reached root mishandled");
  pp_graph_free (&empty);
  pp_graph_free (&g);
}

int
main (void)
{
  test_hand ();
  test_random ();
  test_deep ();
  unit_report (&prop_reach);
  unit_report (&prop_orders);
  unit_report (&prop_tree);
  unit_report (&prop_edges);
  unit_report (&prop_steps);
  unit_report (&prop_reference);
  unit_report (&prop_api);
  unit_report (&prop_deep);
  return unit_exit_status ();
}
