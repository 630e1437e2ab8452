/* Oracle tests for corelib/ dominators and minimum coverage instrumentation.

   The oracle knows nothing of dominators or inference graphs.  It enumerates, by
   brute force over (node, covered set) states, every distinct set of blocks and
   edges that one execution can cover: a walk from ENTRY that ends at EXIT, or is
   stopped at a block that cannot reach EXIT any more; in the model the edge modes
   plan for, a pinned edge between two blocks also ends a walk (a leave) or starts
   one (a re-entry).  The coverage of a run is any union of such "walk covers".
   Because that family is closed under union, probes S determine target x exactly
   when every walk cover W containing x has a probe outside U_x, the union of the
   walk covers without x: if some W has none, the runs U_x and U_x + W look the same
   through S and differ in x; conversely two such runs give a walk cover with x
   whose probes all lie in U_x.  So validity, the inexact blocks, and minimality (a
   minimum hitting set of the sets W \ U_x) all come from the walk covers.  Psi is
   checked on every walk cover and on random unions of them: the coverage of any run
   is such a union, and Psi, an "or" over hit probes, distributes over unions.

   Graphs, up to renumbering of blocks: every CFG of up to 5 nodes with simple edges
   (at most 9 edges in the edge modes), every 4-node CFG of up to 7 edges among
   doubled edges, fake leaves, fake re-entries and dead ends, every 6-node CFG of up
   to 8 edges (7 in the edge modes); thousands of random small ones under the oracle
   (loops, irreducible, self loops, parallel, fake, abnormal, unreachable, dead
   ends); random larger ones against sampled executions; 100k-node graphs.  Each
   property prints one PASS/FAIL line; a failure names the first graph (seed) that
   broke it.  */

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coverage.h"
#include "dominators.h"
#include "unit.h"

#define ENTRY 0u
#define EXIT 1u
#define NONE UINT32_MAX

#define BASE_SEED 0xc0fe7a9e2024ull
#define NRANDOM_ORACLE 4000
#define NRANDOM_SAMPLED 1000
#define MAX_SAMPLED_NODES 300
#define NDOM_GRAPHS 3000
#define LARGE_NODES 100000
/* Unions of 2-4 walk covers run through Psi per graph and mode, besides every walk
   cover.  */
#define UNIONS 16

static struct unit_property
  prop_dom_naive = { .name = "dominators: idom and dominance equal naive data flow, both directions" },
  prop_dom_large = { .name = "dominators: 100k-node chains and random graphs, no recursion" },
  prop_bad_input = { .name = "coverage: malformed graphs, modes and probes are refused" },
  prop_plan_shape = { .name = "coverage: probes ascending, unique, never ENTRY/EXIT/pinned; deterministic" },
  prop_paper_examples = { .name = "coverage: the paper's examples 1-4 get 2, 2, 1 and 2k block probes" },
  prop_exact[3] = {
    { .name = "block-cover: Psi equals every reachable block coverage (exhaustive and random graphs)" },
    { .name = "edge-cover: Psi equals every reachable edge coverage (exhaustive and random graphs)" },
    { .name = "block-cover-edge-probes: Psi equals every reachable block coverage, inexact blocks sound" },
  },
  prop_valid[3] = {
    { .name = "block-cover: every block is determined by the probes (walk-cover oracle)" },
    { .name = "edge-cover: every probe-able edge is determined by the probes (walk-cover oracle)" },
    { .name = "block-cover-edge-probes: determined blocks, inexact exactly the undeterminable ones" },
  },
  prop_minimal[3] = {
    { .name = "block-cover: no smaller valid block set exists (brute force)" },
    { .name = "edge-cover: no smaller valid probe-able edge set exists (brute force)" },
    { .name = "block-cover-edge-probes: at most twice the brute-force optimum" },
  },
  prop_weighted[3] = {
    { .name = "block-cover, weighted: the cheapest of the smallest valid block sets (brute force)" },
    { .name = "edge-cover, weighted: the cheapest of the smallest valid edge sets (brute force)" },
    { .name = "block-cover-edge-probes, weighted: valid, at most twice the cheapest valid set" },
  },
  prop_true_model = { .name = "edge modes: Psi exact in the uncut model when abnormal edges join blocks" },
  prop_targets = { .name = "block modes, some blocks targets: targets determined (block probes: no more of them), the rest inexact and sound" },
  prop_sampled = { .name = "all modes: Psi exact on sampled executions of random graphs up to 300 nodes" },
  prop_large = { .name = "all modes: 100k-node graphs planned and inferred exactly in the test budget" };

/* ------------------------------------------------------------------------- */
/* Test graphs.  */

struct tgraph
{
  uint32_t n, m;
  uint32_t src[64], dst[64], flags[64];
};

static void
tg_add (struct tgraph *t, uint32_t src, uint32_t dst, uint32_t flags)
{
  t->src[t->m] = src;
  t->dst[t->m] = dst;
  t->flags[t->m++] = flags;
}

static int
tg_build (const struct tgraph *t, pp_graph *g)
{
  pp_graph_init (g, t->n, ENTRY, EXIT);
  for (uint32_t e = 0; e < t->m; e++)
    if (pp_graph_add_edge (g, t->src[e], t->dst[e], t->flags[e]) == UINT32_MAX)
      return -1;
  return pp_graph_finish (g);
}

static void
tg_describe (const struct tgraph *t, char *buf, size_t size)
{
  size_t len = (size_t) snprintf (buf, size, "%u nodes:", t->n);
  for (uint32_t e = 0; e < t->m && len < size; e++)
    len += (size_t) snprintf (buf + len, size - len, " %u>%u%s", t->src[e], t->dst[e],
			      t->flags[e] & PP_EDGE_FAKE ? "f"
			      : t->flags[e] & PP_EDGE_ABNORMAL ? "a"
			      : t->flags[e] & PP_EDGE_EXIT_ENTRY ? "c" : "");
}

/* ------------------------------------------------------------------------- */
/* The walk-cover oracle.  Items: node v is bit v, edge e is bit n + e.  */

typedef uint64_t set;

static inline set
bit (uint32_t i)
{
  return (set) 1 << i;
}

/* Open-addressing hash set of (mask, node) pairs.  */
struct hset
{
  size_t cap, count;
  set *mask;
  uint32_t *node;		/* NONE: empty slot */
};

static void
hset_init (struct hset *h)
{
  h->cap = 1024;
  h->count = 0;
  h->mask = malloc (h->cap * sizeof *h->mask);
  h->node = malloc (h->cap * sizeof *h->node);
  for (size_t i = 0; i < h->cap; i++)
    h->node[i] = NONE;
}

static void
hset_free (struct hset *h)
{
  free (h->mask);
  free (h->node);
}

static inline size_t
hset_slot (const struct hset *h, set mask, uint32_t node)
{
  uint64_t z = mask * 0x9e3779b97f4a7c15ull ^ node * 0xbf58476d1ce4e5b9ull;
  z ^= z >> 29;
  size_t i = (size_t) z & (h->cap - 1);
  while (h->node[i] != NONE && (h->mask[i] != mask || h->node[i] != node))
    i = (i + 1) & (h->cap - 1);
  return i;
}

/* Inserts; returns whether the pair was new.  */
static int
hset_add (struct hset *h, set mask, uint32_t node)
{
  if (2 * (h->count + 1) > h->cap)
    {
      struct hset bigger = { .cap = 2 * h->cap, .count = h->count };
      bigger.mask = malloc (bigger.cap * sizeof *bigger.mask);
      bigger.node = malloc (bigger.cap * sizeof *bigger.node);
      for (size_t i = 0; i < bigger.cap; i++)
	bigger.node[i] = NONE;
      for (size_t i = 0; i < h->cap; i++)
	if (h->node[i] != NONE)
	  {
	    size_t j = hset_slot (&bigger, h->mask[i], h->node[i]);
	    bigger.mask[j] = h->mask[i];
	    bigger.node[j] = h->node[i];
	  }
      hset_free (h);
      *h = bigger;
    }
  size_t i = hset_slot (h, mask, node);
  if (h->node[i] != NONE)
    return 0;
  h->mask[i] = mask;
  h->node[i] = node;
  h->count++;
  return 1;
}

struct oracle
{
  uint32_t n, m;
  bool reached[64], dead[64];
  size_t ncovers;
  set *covers;
};

static void
oracle_free (struct oracle *o)
{
  free (o->covers);
}

static bool
middle_pinned (const struct tgraph *t, uint32_t e)
{
  return (t->flags[e] & PP_EDGE_PINNED) && !(t->flags[e] & PP_EDGE_EXIT_ENTRY)
	 && t->src[e] != ENTRY && t->dst[e] != EXIT;
}

static void
oracle_reach (const struct tgraph *t, uint32_t from, bool backward, bool *seen)
{
  uint32_t stack[64], depth = 0;
  memset (seen, 0, 64 * sizeof *seen);
  seen[from] = true;
  stack[depth++] = from;
  while (depth > 0)
    {
      uint32_t v = stack[--depth];
      for (uint32_t e = 0; e < t->m; e++)
	{
	  if (t->flags[e] & PP_EDGE_EXIT_ENTRY)
	    continue;
	  uint32_t a = backward ? t->dst[e] : t->src[e];
	  uint32_t b = backward ? t->src[e] : t->dst[e];
	  if (a == v && !seen[b])
	    {
	      seen[b] = true;
	      stack[depth++] = b;
	    }
	}
    }
}

/* Enumerates the walk covers.  EDGE_ITEMS: track edges too (else only nodes).
   CUT: pinned edges between blocks end walks and start new ones.  Returns false
   when the state space exceeds LIMIT.  */
static bool
oracle_run (const struct tgraph *t, bool edge_items, bool cut, size_t limit,
	    struct oracle *o)
{
  bool reaches_exit[64];
  o->n = t->n;
  o->m = t->m;
  o->ncovers = 0;
  o->covers = NULL;
  oracle_reach (t, ENTRY, false, o->reached);
  oracle_reach (t, EXIT, true, reaches_exit);
  for (uint32_t v = 0; v < t->n; v++)
    o->dead[v] = o->reached[v] && !reaches_exit[v];

  struct hset states, covers;
  hset_init (&states);
  hset_init (&covers);
  size_t stack_cap = 1024, depth = 0;
  set *stack_mask = malloc (stack_cap * sizeof *stack_mask);
  uint32_t *stack_node = malloc (stack_cap * sizeof *stack_node);
#define PUSH(MASK, NODE)						\
  do {									\
    if (hset_add (&states, (MASK), (NODE)))				\
      {									\
	if (depth == stack_cap)						\
	  {								\
	    stack_cap *= 2;						\
	    stack_mask = realloc (stack_mask, stack_cap * sizeof *stack_mask); \
	    stack_node = realloc (stack_node, stack_cap * sizeof *stack_node); \
	  }								\
	stack_mask[depth] = (MASK);					\
	stack_node[depth++] = (NODE);					\
      }									\
  } while (0)
#define EBIT(E) (edge_items ? bit (t->n + (E)) : 0)

  PUSH (bit (ENTRY), ENTRY);
  if (cut)
    for (uint32_t e = 0; e < t->m; e++)
      if (middle_pinned (t, e) && o->reached[t->src[e]])
	PUSH (bit (t->dst[e]) | EBIT (e), t->dst[e]);
  bool ok = true;
  while (depth > 0 && ok)
    {
      set mask = stack_mask[--depth];
      uint32_t u = stack_node[depth];
      if (u == EXIT || o->dead[u])
	hset_add (&covers, mask, 0);
      for (uint32_t e = 0; e < t->m; e++)
	{
	  if (t->src[e] != u || (t->flags[e] & PP_EDGE_EXIT_ENTRY))
	    continue;
	  if (cut && middle_pinned (t, e))
	    hset_add (&covers, mask | EBIT (e), 0);
	  else
	    PUSH (mask | EBIT (e) | bit (t->dst[e]), t->dst[e]);
	}
      ok = states.count <= limit;
    }
#undef PUSH
#undef EBIT
  if (ok)
    {
      o->covers = malloc ((covers.count ? covers.count : 1) * sizeof *o->covers);
      for (size_t i = 0; i < covers.cap; i++)
	if (covers.node[i] != NONE)
	  o->covers[o->ncovers++] = covers.mask[i];
    }
  free (stack_mask);
  free (stack_node);
  hset_free (&states);
  hset_free (&covers);
  return ok;
}

/* The sets W \ U_x (restricted to PROBEABLE) that a valid probe set must hit, for
   target item x; returns false when one is empty (x cannot be determined).  Appends
   to CONS.  */
static bool
constraints_of (const struct oracle *o, uint32_t x, set probeable, set *cons,
		size_t *ncons)
{
  set outside = 0;
  for (size_t i = 0; i < o->ncovers; i++)
    if (!(o->covers[i] & bit (x)))
      outside |= o->covers[i];
  bool determinable = true;
  for (size_t i = 0; i < o->ncovers; i++)
    if (o->covers[i] & bit (x))
      {
	set need = o->covers[i] & ~outside & probeable;
	if (!need)
	  determinable = false;
	else
	  cons[(*ncons)++] = need;
      }
  return determinable;
}

/* Keeps only the inclusion-minimal distinct sets.  */
static size_t
minimal_sets (set *cons, size_t n)
{
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    {
      bool dominated = false;
      for (size_t j = 0; j < n && !dominated; j++)
	dominated = j != i && (cons[j] & cons[i]) == cons[j]
		    && (cons[j] != cons[i] || j < i);
      if (!dominated)
	cons[kept++] = cons[i];
    }
  return kept;
}

/* Whether some set of at most BUDGET items added to CHOSEN hits every constraint:
   branch on the items of the smallest constraint not yet hit.  */
static bool
hittable (const set *cons, size_t n, set chosen, int budget)
{
  size_t best = n;
  int best_size = 65;
  for (size_t i = 0; i < n; i++)
    if (!(cons[i] & chosen) && __builtin_popcountll (cons[i]) < best_size)
      {
	best = i;
	best_size = __builtin_popcountll (cons[i]);
      }
  if (best == n)
    return true;
  if (budget == 0)
    return false;
  for (set rest = cons[best]; rest; rest &= rest - 1)
    if (hittable (cons, n, chosen | (rest & -rest), budget - 1))
      return true;
  return false;
}

/* Lowers *BEST to the cost of the cheapest set of at most BUDGET items that,
   added to CHOSEN (of cost COST), hits every constraint.  Item costs are
   positive, so a branch that costs *BEST already stops.  */
static void
cheapest_hitting (const set *cons, size_t n, set chosen, int budget, double cost,
		  const double *item_cost, double *best)
{
  if (cost >= *best)
    return;
  size_t pick = n;
  int pick_size = 65;
  for (size_t i = 0; i < n; i++)
    if (!(cons[i] & chosen) && __builtin_popcountll (cons[i]) < pick_size)
      {
	pick = i;
	pick_size = __builtin_popcountll (cons[i]);
      }
  if (pick == n)
    {
      *best = cost;
      return;
    }
  if (budget == 0)
    return;
  for (set rest = cons[pick]; rest; rest &= rest - 1)
    {
      uint32_t item = (uint32_t) __builtin_ctzll (rest);
      cheapest_hitting (cons, n, chosen | bit (item), budget - 1,
			cost + item_cost[item], item_cost, best);
    }
}

/* ------------------------------------------------------------------------- */
/* Checking one graph in one mode against the oracle.  */

static const char *const mode_names[3] = { "blocks", "edges", "blocks-by-edges" };

struct ctx
{
  unsigned long long seed;
  char desc[512];
};

/* Items and the plan's probes as bits.  */
static set
target_items (const struct tgraph *t, enum pp_coverage_mode mode)
{
  set s = 0;
  if (mode == PP_COVER_EDGES)
    {
      for (uint32_t e = 0; e < t->m; e++)
	if (!(t->flags[e] & PP_EDGE_PINNED))
	  s |= bit (t->n + e);
    }
  else
    for (uint32_t v = 0; v < t->n; v++)
      if (v != ENTRY && v != EXIT)
	s |= bit (v);
  return s;
}

static set
probe_items (const struct tgraph *t, enum pp_coverage_mode mode)
{
  if (mode == PP_COVER_BLOCKS)
    return target_items (t, mode);
  return target_items (t, PP_COVER_EDGES);
}

static uint32_t
item_of_probe (const struct tgraph *t, enum pp_coverage_mode mode, uint32_t p)
{
  return mode == PP_COVER_BLOCKS ? p : t->n + p;
}

/* Runs Psi on the probe bits SIGNATURE (probe items that were hit).  */
static bool
psi_run (const pp_graph *g, const struct tgraph *t, enum pp_coverage_mode mode,
	 const pp_coverage_plan *plan, set signature, bool *covered, char *why,
	 size_t size)
{
  bool hit[64];
  for (uint32_t i = 0; i < plan->nprobes; i++)
    hit[i] = (signature & bit (item_of_probe (t, mode, plan->probes[i]))) != 0;
  int status = pp_coverage_infer (g, mode, plan->probes, plan->nprobes, hit, covered);
  if (status != 0)
    snprintf (why, size, "infer returned %d", status);
  return status == 0;
}

/* Compares Psi's answer with COVER on every target (exactly) and inexact target
   (soundly).  */
static bool
psi_agrees (const struct tgraph *t, enum pp_coverage_mode mode, const bool *covered,
	    set cover, set targets, set inexact, char *why, size_t size)
{
  uint32_t nitems = mode == PP_COVER_EDGES ? t->m : t->n;
  for (uint32_t i = 0; i < nitems; i++)
    {
      uint32_t item = mode == PP_COVER_EDGES ? t->n + i : i;
      bool truth = (cover & bit (item)) != 0;
      if ((targets & bit (item)) && !(inexact & bit (item)) && covered[i] != truth)
	{
	  snprintf (why, size, "%s %u: Psi says %d, truth %d (covered set 0x%llx)",
		    mode == PP_COVER_EDGES ? "edge" : "block", i, covered[i], truth,
		    (unsigned long long) cover);
	  return false;
	}
      if ((inexact & bit (item)) && covered[i] && !truth)
	{
	  snprintf (why, size, "inexact block %u reported covered", i);
	  return false;
	}
    }
  return true;
}

static set sort_probes;

static int
by_signature (const void *a, const void *b)
{
  set x = *(const set *) a & sort_probes, y = *(const set *) b & sort_probes;
  return x < y ? -1 : x > y;
}

/* Psi on every set in COVERS[0..N-1] (sorted here by what the probes see of them:
   one inference per distinct signature).  */
static bool
psi_exact_on (const pp_graph *g, const struct tgraph *t, enum pp_coverage_mode mode,
	      const pp_coverage_plan *plan, set probes, set *covers, size_t n,
	      set targets, set inexact, char *why, size_t size)
{
  bool covered[64];
  sort_probes = probes;
  qsort (covers, n, sizeof *covers, by_signature);
  for (size_t i = 0; i < n; i++)
    {
      if ((i == 0 || (covers[i] & probes) != (covers[i - 1] & probes))
	  && !psi_run (g, t, mode, plan, covers[i] & probes, covered, why, size))
	return false;
      if (!psi_agrees (t, mode, covered, covers[i], targets, inexact, why, size))
	return false;
    }
  return true;
}

static unsigned long oracle_graphs[3], oracle_skipped;

/* Everything the oracle can say about one graph in one mode.  */
static void
check_graph (const struct tgraph *t, enum pp_coverage_mode mode, const struct ctx *c)
{
  pp_graph g;
  pp_coverage_plan plan;
  if (tg_build (t, &g) != 0 || pp_coverage_plan_compute (&g, mode, &plan) != 0)
    {
      unit_check (&prop_plan_shape, 0, "seed %llu %s: plan failed: %s", c->seed,
	     mode_names[mode], c->desc);
      pp_graph_free (&g);
      return;
    }
  bool edge_items = mode != PP_COVER_BLOCKS;
  bool cut = edge_items;
  struct oracle o;
  if (!oracle_run (t, edge_items, cut, 400000, &o))
    {
      oracle_skipped++;
      oracle_free (&o);
      pp_coverage_plan_free (&plan);
      pp_graph_free (&g);
      return;
    }
  oracle_graphs[mode]++;

  /* Shape.  */
  bool shape = plan.ninexact == 0 || mode == PP_COVER_BLOCKS_BY_EDGES;
  set chosen = 0, inexact = 0;
  for (uint32_t i = 0; i < plan.nprobes; i++)
    {
      uint32_t p = plan.probes[i];
      shape &= i == 0 || plan.probes[i - 1] < p;
      shape &= mode == PP_COVER_BLOCKS ? p < t->n && p != ENTRY && p != EXIT
	       : p < t->m && !(t->flags[p] & PP_EDGE_PINNED);
      if (shape)
	chosen |= bit (item_of_probe (t, mode, p));
    }
  for (uint32_t i = 0; i < plan.ninexact; i++)
    {
      shape &= plan.inexact[i] < t->n && plan.inexact[i] != ENTRY
	       && plan.inexact[i] != EXIT;
      if (shape)
	inexact |= bit (plan.inexact[i]);
    }
  pp_coverage_plan again;
  shape &= pp_coverage_plan_compute (&g, mode, &again) == 0
	   && again.nprobes == plan.nprobes
	   && !memcmp (again.probes, plan.probes, plan.nprobes * sizeof *plan.probes);
  pp_coverage_plan_free (&again);
  unit_check (&prop_plan_shape, shape, "seed %llu %s: bad probe list: %s", c->seed,
	 mode_names[mode], c->desc);
  if (!shape)
    goto out;

  /* Validity, and the inexact blocks against the undeterminable ones.  */
  set targets = target_items (t, mode), probeable = probe_items (t, mode);
  size_t cap = o.ncovers * 64 + 1, ncons = 0;
  set *cons = malloc (cap * sizeof *cons);
  set undeterminable = 0;
  uint32_t bad_item = NONE;
  for (uint32_t x = 0; x < t->n + t->m; x++)
    {
      if (!(targets & bit (x)))
	continue;
      size_t first = ncons;
      if (!constraints_of (&o, x, probeable, cons, &ncons))
	{
	  undeterminable |= bit (x);
	  ncons = first;	/* nothing to ask of the probes */
	  continue;
	}
      for (size_t i = first; i < ncons; i++)
	if (!(cons[i] & chosen) && bad_item == NONE)
	  bad_item = x;
    }
  bool valid = bad_item == NONE && undeterminable == inexact;
  unit_check (&prop_valid[mode], valid, "seed %llu %s: %s; probes 0x%llx inexact 0x%llx, "
	 "undeterminable 0x%llx, first undetermined item %d (items: nodes, then "
	 "edges from bit %u)", c->seed, mode_names[mode], c->desc,
	 (unsigned long long) chosen, (unsigned long long) inexact,
	 (unsigned long long) undeterminable, bad_item == NONE ? -1 : (int) bad_item,
	 t->n);

  /* Minimality.  */
  ncons = minimal_sets (cons, ncons);
  int size = (int) plan.nprobes;
  int below = mode == PP_COVER_BLOCKS_BY_EDGES ? (size + 1) / 2 - 1 : size - 1;
  bool minimal = below < 0 || !hittable (cons, ncons, 0, below);
  unit_check (&prop_minimal[mode], minimal, "seed %llu %s: %s: %d probes, but %d suffice",
	 c->seed, mode_names[mode], c->desc, size, below);

  /* Weighted: random edge weights 1..9; a block costs its incoming edges.  */
  {
    double w[64], item_cost[128] = { 0 };
    unsigned long long r = c->seed ^ 0x3e1947ull ^ (unsigned long long) mode;
    for (uint32_t e = 0; e < t->m; e++)
      {
	w[e] = (double) (1 + unit_rand (&r) % 9);
	item_cost[t->n + e] = w[e];
	item_cost[t->dst[e]] += w[e];
      }
    pp_coverage_plan wp;
    bool ok = pp_coverage_plan_weighted (&g, mode, w, &wp) == 0;
    set chosen_w = 0;
    double cost_w = 0;
    for (uint32_t i = 0; ok && i < wp.nprobes; i++)
      {
	uint32_t item = item_of_probe (t, mode, wp.probes[i]);
	chosen_w |= bit (item);
	cost_w += item_cost[item];
      }
    for (size_t i = 0; ok && i < ncons; i++)
      ok = (cons[i] & chosen_w) != 0;
    ok = ok && wp.ninexact == plan.ninexact
	 && !memcmp (wp.inexact, plan.inexact, wp.ninexact * sizeof *wp.inexact);
    double best = HUGE_VAL;
    if (ok && mode != PP_COVER_BLOCKS_BY_EDGES)
      {
	cheapest_hitting (cons, ncons, 0, (int) plan.nprobes, 0, item_cost, &best);
	ok = wp.nprobes == plan.nprobes && cost_w == best;
      }
    else if (ok)
      {
	cheapest_hitting (cons, ncons, 0, 64, 0, item_cost, &best);
	ok = cost_w <= 2 * best;
      }
    unit_check (&prop_weighted[mode], ok, "seed %llu %s: %s: %u probes of cost %g, "
		"the cheapest valid set costs %g", c->seed, mode_names[mode], c->desc,
		wp.nprobes, cost_w, best);
    pp_coverage_plan_free (&wp);
  }
  free (cons);

  /* Psi on the empty run, every walk cover, and unions of them.  */
  char why[256] = "";
  size_t nsets = o.ncovers + 1 + UNIONS;
  set *sets = malloc (nsets * sizeof *sets);
  unsigned long long r = c->seed ^ 0x5eedull;
  sets[0] = 0;
  memcpy (sets + 1, o.covers, o.ncovers * sizeof *sets);
  for (size_t i = o.ncovers + 1; i < nsets; i++)
    {
      sets[i] = 0;
      for (int parts = 2 + (int) (unit_rand (&r) % 3); parts > 0 && o.ncovers; parts--)
	sets[i] |= o.covers[unit_rand (&r) % o.ncovers];
    }
  bool exact = psi_exact_on (&g, t, mode, &plan, chosen, sets, nsets, targets,
			     inexact, why, sizeof why);
  free (sets);
  unit_check (&prop_exact[mode], exact, "seed %llu %s: %s: %s", c->seed, mode_names[mode],
	 c->desc, why);

  /* The uncut model: real executions may run through pinned edges between blocks.  */
  bool has_middle = false;
  for (uint32_t e = 0; e < t->m; e++)
    has_middle |= middle_pinned (t, e);
  if (cut && has_middle)
    {
      struct oracle truth;
      if (oracle_run (t, true, false, 400000, &truth))
	{
	  bool ok = psi_exact_on (&g, t, mode, &plan, chosen, truth.covers,
				  truth.ncovers, targets, inexact, why, sizeof why);
	  unit_check (&prop_true_model, ok, "seed %llu %s: %s: %s", c->seed,
		 mode_names[mode], c->desc, why);
	}
      oracle_free (&truth);
    }

  /* Only some blocks as targets (pp_coverage_plan_targets), two random
     subsets per graph.  */
  for (int round = 0; round < 2 && mode != PP_COVER_EDGES; round++)
    {
      unsigned long long r = c->seed ^ 0x7a26e7ull ^ (unsigned long long) (mode + 4 * round);
      bool target[64] = { false };
      set tset = 0;
      for (uint32_t v = 0; v < t->n; v++)
	if (v != ENTRY && v != EXIT && unit_rand (&r) % 3 != 0)
	  {
	    target[v] = true;
	    tset |= bit (v);
	  }
      pp_coverage_plan tp;
      bool ok = pp_coverage_plan_targets (&g, mode, NULL, target, &tp) == 0;
      set tchosen = 0, tinexact = 0;
      for (uint32_t i = 0; ok && i < tp.nprobes; i++)
	tchosen |= bit (item_of_probe (t, mode, tp.probes[i]));
      for (uint32_t i = 0; ok && i < tp.ninexact; i++)
	tinexact |= bit (tp.inexact[i]);
      /* Block probes: no more than for every block; a probe-free plan for
	 no target.  */
      ok = ok && (mode != PP_COVER_BLOCKS
		  || (tp.nprobes <= plan.nprobes && (tset || tp.nprobes == 0)));
      /* Every target determined, or undeterminable and inexact (edge probes);
	 every block that is neither a target nor determined is inexact.  */
      size_t tncons = 0;
      set *tcons = malloc ((o.ncovers * 64 + 1) * sizeof *tcons);
      for (uint32_t x = 0; ok && tcons && x < t->n; x++)
	{
	  if (x == ENTRY || x == EXIT)
	    continue;
	  size_t first = tncons;
	  bool determinable = constraints_of (&o, x, probe_items (t, mode), tcons, &tncons);
	  bool determined = determinable;
	  for (size_t i = first; i < tncons; i++)
	    determined &= (tcons[i] & tchosen) != 0;
	  tncons = first;
	  if (tset & bit (x))
	    ok = determined ? !(tinexact & bit (x))
			    : !determinable && (tinexact & bit (x));
	  else if (!determined)
	    ok = (tinexact & bit (x)) != 0;
	}
      free (tcons);
      char twhy[256] = "";
      if (ok)
	{
	  size_t nsets = o.ncovers + 1;
	  set *sets = malloc (nsets * sizeof *sets);
	  sets[0] = 0;
	  memcpy (sets + 1, o.covers, o.ncovers * sizeof *sets);
	  ok = psi_exact_on (&g, t, mode, &tp, tchosen, sets, nsets, tset, tinexact,
			     twhy, sizeof twhy);
	  free (sets);
	}
      unit_check (&prop_targets, ok, "seed %llu %s: %s: targets 0x%llx, probes "
		  "0x%llx (%u, all blocks %u), inexact 0x%llx %s", c->seed,
		  mode_names[mode], c->desc, (unsigned long long) tset,
		  (unsigned long long) tchosen, tp.nprobes, plan.nprobes,
		  (unsigned long long) tinexact, twhy);
      pp_coverage_plan_free (&tp);
    }

out:
  oracle_free (&o);
  pp_coverage_plan_free (&plan);
  pp_graph_free (&g);
}

static void
check_all_modes (const struct tgraph *t, unsigned long long seed, unsigned modes)
{
  struct ctx c = { .seed = seed };
  tg_describe (t, c.desc, sizeof c.desc);
  for (int mode = 0; mode < 3; mode++)
    if (modes & (1u << mode))
      check_graph (t, (enum pp_coverage_mode) mode, &c);
}

/* ------------------------------------------------------------------------- */
/* Exhaustive enumeration: every multiplicity vector over a list of edge slots,
   up to a total, keeping graphs whose blocks ENTRY reaches (and, if asked, that
   reach EXIT), one per class under renumbering of the blocks.  */

struct slot
{
  uint32_t src, dst, flags, max;
};

struct enumeration
{
  uint32_t blocks;
  struct slot slots[48];
  uint32_t nslots;
  uint32_t max_edges;
  bool all_reach_exit;
  unsigned modes;
  uint32_t perm_slot[24][48];	/* slot index under each renumbering */
  uint32_t nperms;
  unsigned long graphs;
};

static uint32_t
slot_index (const struct enumeration *en, uint32_t src, uint32_t dst, uint32_t flags)
{
  for (uint32_t i = 0; i < en->nslots; i++)
    if (en->slots[i].src == src && en->slots[i].dst == dst
	&& en->slots[i].flags == flags)
      return i;
  return NONE;
}

static void
add_slot (struct enumeration *en, uint32_t src, uint32_t dst, uint32_t flags,
	  uint32_t max)
{
  en->slots[en->nslots++] = (struct slot) { src, dst, flags, max };
}

/* Every permutation of the blocks 2..blocks+1, as slot maps.  */
static void
build_permutations (struct enumeration *en)
{
  uint32_t perm[4] = { 0, 1, 2, 3 };
  uint32_t k = en->blocks;
  en->nperms = 0;
  for (;;)
    {
      uint32_t map[6] = { ENTRY, EXIT, 0, 0, 0, 0 };
      for (uint32_t i = 0; i < k; i++)
	map[2 + i] = 2 + perm[i];
      for (uint32_t s = 0; s < en->nslots; s++)
	en->perm_slot[en->nperms][s]
	  = slot_index (en, map[en->slots[s].src], map[en->slots[s].dst],
			en->slots[s].flags);
      en->nperms++;
      /* Next permutation in lexicographic order.  */
      int i = (int) k - 2;
      while (i >= 0 && perm[i] > perm[i + 1])
	i--;
      if (i < 0)
	return;
      int j = (int) k - 1;
      while (perm[j] < perm[i])
	j--;
      uint32_t tmp = perm[i];
      perm[i] = perm[j];
      perm[j] = tmp;
      for (int a = i + 1, b = (int) k - 1; a < b; a++, b--)
	{
	  tmp = perm[a];
	  perm[a] = perm[b];
	  perm[b] = tmp;
	}
    }
}

static bool
canonical (const struct enumeration *en, const uint32_t *mult)
{
  for (uint32_t p = 1; p < en->nperms; p++)
    {
      uint32_t permuted[48];
      for (uint32_t s = 0; s < en->nslots; s++)
	permuted[en->perm_slot[p][s]] = mult[s];
      for (uint32_t s = 0; s < en->nslots; s++)
	{
	  if (permuted[s] < mult[s])
	    return false;
	  if (permuted[s] > mult[s])
	    break;
	}
    }
  return true;
}

static void
enumerate_graph (struct enumeration *en, const uint32_t *mult)
{
  struct tgraph t = { .n = 2 + en->blocks };
  for (uint32_t s = 0; s < en->nslots; s++)
    for (uint32_t k = 0; k < mult[s]; k++)
      tg_add (&t, en->slots[s].src, en->slots[s].dst, en->slots[s].flags);
  bool reached[64], reaches_exit[64];
  oracle_reach (&t, ENTRY, false, reached);
  oracle_reach (&t, EXIT, true, reaches_exit);
  for (uint32_t v = 2; v < t.n; v++)
    if (!reached[v] || (en->all_reach_exit && !reaches_exit[v]))
      return;
  if (!canonical (en, mult))
    return;
  tg_add (&t, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  en->graphs++;
  check_all_modes (&t, en->graphs, en->modes);
}

static void
enumerate (struct enumeration *en)
{
  uint32_t mult[48] = { 0 };
  build_permutations (en);
  for (;;)
    {
      uint32_t total = 0;
      for (uint32_t s = 0; s < en->nslots; s++)
	total += mult[s];
      if (total <= en->max_edges)
	enumerate_graph (en, mult);
      uint32_t s = 0;
      while (s < en->nslots && mult[s] == en->slots[s].max)
	mult[s++] = 0;
      if (s == en->nslots)
	return;
      mult[s]++;
    }
}

/* Blocks 2..k+1; normal edges ENTRY -> b, b -> b' (self loops too), b -> EXIT, each
   up to NORMAL times; fake re-entries and leaves when FAKES.  */
static void
setup_enumeration (struct enumeration *en, uint32_t k, uint32_t normal, bool fakes,
		   uint32_t max_edges, bool all_reach_exit, unsigned modes)
{
  memset (en, 0, sizeof *en);
  en->blocks = k;
  en->max_edges = max_edges;
  en->all_reach_exit = all_reach_exit;
  en->modes = modes;
  for (uint32_t b = 2; b < 2 + k; b++)
    {
      add_slot (en, ENTRY, b, 0, normal);
      if (fakes)
	add_slot (en, ENTRY, b, PP_EDGE_FAKE, 1);
      for (uint32_t c = 2; c < 2 + k; c++)
	add_slot (en, b, c, 0, normal);
      add_slot (en, b, EXIT, 0, normal);
      if (fakes)
	add_slot (en, b, EXIT, PP_EDGE_FAKE, 1);
    }
}

static unsigned long exhaustive_counts[5];

static void
test_exhaustive (void)
{
  static struct enumeration en;
  /* Up to 5 nodes, simple edges: every graph for blocks, few edges for the edge
     modes (their oracle tracks edges, so its state space grows with them).  */
  for (uint32_t k = 1; k <= 3; k++)
    {
      setup_enumeration (&en, k, 1, false, 64, true, 1u << PP_COVER_BLOCKS);
      enumerate (&en);
      exhaustive_counts[0] += en.graphs;
      setup_enumeration (&en, k, 1, false, k < 3 ? 64 : 9, true,
			 1u << PP_COVER_EDGES | 1u << PP_COVER_BLOCKS_BY_EDGES);
      enumerate (&en);
      exhaustive_counts[1] += en.graphs;
    }
  /* 4 nodes with parallel edges, fake leaves and re-entries, dead ends.  */
  setup_enumeration (&en, 2, 2, true, 7, false, 7);
  enumerate (&en);
  exhaustive_counts[2] = en.graphs;
  /* 6 nodes, simple edges, at most 8 of them (7 for the edge modes).  */
  setup_enumeration (&en, 4, 1, false, 8, true, 1u << PP_COVER_BLOCKS);
  enumerate (&en);
  exhaustive_counts[3] = en.graphs;
  setup_enumeration (&en, 4, 1, false, 7, true,
		     1u << PP_COVER_EDGES | 1u << PP_COVER_BLOCKS_BY_EDGES);
  enumerate (&en);
  exhaustive_counts[4] = en.graphs;
}

/* ------------------------------------------------------------------------- */
/* Random graphs: small ones for the oracle, larger ones for sampled executions.  */

static uint32_t
rnd (unsigned long long *s, uint32_t bound)
{
  return (uint32_t) (unit_rand (s) % bound);
}

static void
random_small (unsigned long long *s, struct tgraph *t)
{
  uint32_t k = 1 + rnd (s, 5);
  uint32_t m = 1 + rnd (s, 9);
  t->n = 2 + k;
  t->m = 0;
  tg_add (t, ENTRY, 2 + rnd (s, k), 0);
  for (uint32_t i = 0; i < m; i++)
    {
      uint32_t r = rnd (s, 100);
      uint32_t a = 2 + rnd (s, k), b = 2 + rnd (s, k);
      if (r < 12)
	tg_add (t, ENTRY, b, PP_EDGE_FAKE);
      else if (r < 24)
	tg_add (t, a, EXIT, PP_EDGE_FAKE);
      else if (r < 30)
	tg_add (t, a, b, PP_EDGE_ABNORMAL);
      else if (r < 33)
	tg_add (t, a, b, PP_EDGE_FAKE);
      else if (r < 38)
	tg_add (t, ENTRY, b, 0);
      else if (r < 40)
	tg_add (t, ENTRY, EXIT, 0);
      else if (r < 55)
	tg_add (t, a, EXIT, 0);
      else
	tg_add (t, a, b, 0);
    }
  tg_add (t, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
}

static void
test_random_oracle (void)
{
  for (unsigned long long i = 0; i < NRANDOM_ORACLE; i++)
    {
      unsigned long long seed = BASE_SEED + i, s = seed;
      struct tgraph t;
      random_small (&s, &t);
      check_all_modes (&t, seed, 7);
    }
}

/* A larger random graph in a pp_graph: a spine of blocks with random forward,
   backward (loops, irreducible), self and parallel edges, fake leaves and
   re-entries, abnormal edges, and some blocks left unreachable or dead-ended.  */
static int
random_large (unsigned long long *s, uint32_t blocks, pp_graph *g)
{
  uint32_t n = blocks + 2;
  pp_graph_init (g, n, ENTRY, EXIT);
  bool ok = pp_graph_add_edge (g, ENTRY, 2, 0) != UINT32_MAX;
  for (uint32_t b = 2; b < n && ok; b++)
    {
      uint32_t r = rnd (s, 100);
      uint32_t next = b + 1 < n ? b + 1 : EXIT;
      if (r >= 3)		/* else b's successors are only random ones */
	ok &= pp_graph_add_edge (g, b, next, 0) != UINT32_MAX;
      uint32_t extra = rnd (s, 3);
      for (uint32_t i = 0; i < extra && ok; i++)
	{
	  uint32_t kind = rnd (s, 100), c = 2 + rnd (s, blocks);
	  uint32_t near = b + 1 + rnd (s, 6);
	  if (near >= n)
	    near = EXIT;
	  if (kind < 8)
	    ok &= pp_graph_add_edge (g, b, EXIT, PP_EDGE_FAKE) != UINT32_MAX;
	  else if (kind < 14)
	    ok &= pp_graph_add_edge (g, ENTRY, b, PP_EDGE_FAKE) != UINT32_MAX;
	  else if (kind < 17)
	    ok &= pp_graph_add_edge (g, b, c, PP_EDGE_ABNORMAL) != UINT32_MAX;
	  else if (kind < 25)
	    ok &= pp_graph_add_edge (g, b, b, 0) != UINT32_MAX;
	  else if (kind < 35)
	    ok &= pp_graph_add_edge (g, b, next, 0) != UINT32_MAX;
	  else if (kind < 55)
	    ok &= pp_graph_add_edge (g, b, c, 0) != UINT32_MAX;
	  else
	    ok &= pp_graph_add_edge (g, b, near, 0) != UINT32_MAX;
	}
    }
  ok &= pp_graph_add_edge (g, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY) != UINT32_MAX;
  return ok ? pp_graph_finish (g) : -1;
}

/* Random executions in the true model: walks from ENTRY that end at EXIT, or stop
   at a block that cannot reach EXIT.  DIST is the distance to EXIT (NONE: dead).
   Marks the walk's blocks and edges.  */
static void
random_walk (const pp_graph *g, const uint32_t *dist, unsigned long long *s,
	     bool *node_cov, bool *edge_cov)
{
  uint32_t v = ENTRY;
  uint32_t budget = 4 * g->nnodes + 16;
  node_cov[v] = true;
  while (v != EXIT)
    {
      if (dist[v] == NONE && rnd (s, 8) == 0)
	return;			/* stopped while stuck */
      uint32_t deg = g->succ_start[v + 1] - g->succ_start[v];
      if (deg == 0)
	return;			/* stuck for good */
      uint32_t e = NONE;
      if (budget > 0)
	{
	  budget--;
	  e = g->succ_edges[g->succ_start[v] + rnd (s, deg)];
	  if (dist[v] != NONE && rnd (s, 3) == 0)
	    e = NONE;
	}
      if (e == NONE)
	{
	  if (dist[v] == NONE)
	    return;
	  for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
	    if (dist[g->edges[g->succ_edges[i]].dst] == dist[v] - 1)
	      e = g->succ_edges[i];
	}
      edge_cov[e] = true;
      v = g->edges[e].dst;
      node_cov[v] = true;
    }
}

static uint32_t *
exit_distances (const pp_graph *g)
{
  uint32_t *dist = malloc (g->nnodes * sizeof *dist);
  uint32_t *queue = malloc (g->nnodes * sizeof *queue);
  uint32_t head = 0, tail = 0;
  for (uint32_t v = 0; v < g->nnodes; v++)
    dist[v] = NONE;
  dist[EXIT] = 0;
  queue[tail++] = EXIT;
  while (head < tail)
    {
      uint32_t v = queue[head++];
      for (uint32_t i = g->pred_start[v]; i < g->pred_start[v + 1]; i++)
	{
	  const pp_edge *e = &g->edges[g->pred_edges[i]];
	  if (!(e->flags & PP_EDGE_EXIT_ENTRY) && dist[e->src] == NONE)
	    {
	      dist[e->src] = dist[v] + 1;
	      queue[tail++] = e->src;
	    }
	}
    }
  free (queue);
  return dist;
}

/* Plans G in every mode and checks Psi on NRUNS runs of 1-3 random executions.  */
static void
check_sampled (const pp_graph *g, unsigned long long seed, int nruns,
	       struct unit_property *p)
{
  uint32_t *dist = exit_distances (g);
  bool *node_cov = malloc (g->nnodes * sizeof *node_cov);
  bool *edge_cov = malloc (g->nedges * sizeof *edge_cov);
  bool *covered = malloc ((g->nnodes > g->nedges ? g->nnodes : g->nedges)
			  * sizeof *covered);
  bool *inexact = calloc (g->nnodes, sizeof *inexact);
  unsigned long long s = seed;
  for (int mode = 0; mode < 3; mode++)
    {
      pp_coverage_plan plan;
      if (pp_coverage_plan_compute (g, (enum pp_coverage_mode) mode, &plan) != 0)
	{
	  unit_check (p, 0, "seed %llu %s: plan failed", seed, mode_names[mode]);
	  continue;
	}
      bool *hit = malloc ((plan.nprobes ? plan.nprobes : 1) * sizeof *hit);
      memset (inexact, 0, g->nnodes * sizeof *inexact);
      for (uint32_t i = 0; i < plan.ninexact; i++)
	inexact[plan.inexact[i]] = true;
      bool ok = true;
      for (int run = 0; run < nruns && ok; run++)
	{
	  memset (node_cov, 0, g->nnodes * sizeof *node_cov);
	  memset (edge_cov, 0, g->nedges * sizeof *edge_cov);
	  int walks = run == 0 ? 0 : 1 + (int) rnd (&s, 3);
	  for (int w = 0; w < walks; w++)
	    random_walk (g, dist, &s, node_cov, edge_cov);
	  for (uint32_t i = 0; i < plan.nprobes; i++)
	    hit[i] = mode == PP_COVER_BLOCKS ? node_cov[plan.probes[i]]
		     : edge_cov[plan.probes[i]];
	  if (pp_coverage_infer (g, (enum pp_coverage_mode) mode, plan.probes,
				 plan.nprobes, hit, covered) != 0)
	    {
	      unit_check (p, 0, "seed %llu %s: infer failed", seed, mode_names[mode]);
	      ok = false;
	      break;
	    }
	  if (mode == PP_COVER_EDGES)
	    {
	      for (uint32_t e = 0; e < g->nedges && ok; e++)
		if (!(g->edges[e].flags & PP_EDGE_PINNED) && covered[e] != edge_cov[e])
		  {
		    unit_check (p, 0, "seed %llu edges run %d: edge %u: Psi %d, truth %d",
			   seed, run, e, covered[e], edge_cov[e]);
		    ok = false;
		  }
	    }
	  else
	    for (uint32_t v = 2; v < g->nnodes && ok; v++)
	      if (inexact[v] ? covered[v] && !node_cov[v] : covered[v] != node_cov[v])
		{
		  unit_check (p, 0, "seed %llu %s run %d: block %u: Psi %d, truth %d", seed,
			 mode_names[mode], run, v, covered[v], node_cov[v]);
		  ok = false;
		}
	  if (ok)
	    unit_check (p, 1, "");
	}
      free (hit);
      pp_coverage_plan_free (&plan);
    }
  free (dist);
  free (node_cov);
  free (edge_cov);
  free (covered);
  free (inexact);
}

static void
test_random_sampled (void)
{
  for (unsigned long long i = 0; i < NRANDOM_SAMPLED; i++)
    {
      unsigned long long seed = BASE_SEED ^ (i << 20), s = seed;
      pp_graph g;
      uint32_t blocks = 1 + rnd (&s, MAX_SAMPLED_NODES - 2);
      if (random_large (&s, blocks, &g) != 0)
	unit_check (&prop_sampled, 0, "seed %llu: graph construction failed", seed);
      else
	check_sampled (&g, seed, 4, &prop_sampled);
      pp_graph_free (&g);
    }
}

/* ------------------------------------------------------------------------- */
/* Dominators against naive data flow: Dom(root) = {root}, Dom(v) = {v} + the
   intersection of Dom(p) over reached predecessors p.  */

#define WORDS(n) (((n) + 63) / 64)

static bool
dominators_match (const pp_graph *g, uint32_t root, bool reverse, uint32_t skip,
		  char *why, size_t size)
{
  uint32_t n = g->nnodes, w = WORDS (n);
  pp_domtree t;
  if (pp_dominators (g, root, reverse, skip, &t) != 0)
    {
      snprintf (why, size, "allocation failed");
      return false;
    }
  uint64_t *dom = malloc ((size_t) n * w * sizeof *dom);
  bool *reached = calloc (n, sizeof *reached);
  uint32_t *stack = malloc (n * sizeof *stack), depth = 0;
  reached[root] = true;
  stack[depth++] = root;
  while (depth > 0)
    {
      uint32_t v = stack[--depth];
      for (uint32_t e = 0; e < g->nedges; e++)
	{
	  const pp_edge *ed = &g->edges[e];
	  uint32_t a = reverse ? ed->dst : ed->src, b = reverse ? ed->src : ed->dst;
	  if (a == v && !(ed->flags & skip) && !reached[b])
	    {
	      reached[b] = true;
	      stack[depth++] = b;
	    }
	}
    }
  for (uint32_t v = 0; v < n; v++)
    for (uint32_t i = 0; i < w; i++)
      dom[(size_t) v * w + i] = v == root ? (i == root / 64 ? bit (root % 64) : 0)
				: ~(uint64_t) 0;
  bool changed = true;
  uint64_t *meet = malloc (w * sizeof *meet);
  while (changed)
    {
      changed = false;
      for (uint32_t v = 0; v < n; v++)
	{
	  if (v == root || !reached[v])
	    continue;
	  for (uint32_t i = 0; i < w; i++)
	    meet[i] = ~(uint64_t) 0;
	  for (uint32_t e = 0; e < g->nedges; e++)
	    {
	      const pp_edge *ed = &g->edges[e];
	      uint32_t a = reverse ? ed->dst : ed->src, b = reverse ? ed->src : ed->dst;
	      if (b == v && !(ed->flags & skip) && reached[a])
		for (uint32_t i = 0; i < w; i++)
		  meet[i] &= dom[(size_t) a * w + i];
	    }
	  meet[v / 64] |= bit (v % 64);
	  for (uint32_t i = 0; i < w; i++)
	    if (meet[i] != dom[(size_t) v * w + i])
	      {
		dom[(size_t) v * w + i] = meet[i];
		changed = true;
	      }
	}
    }
  bool ok = true;
  for (uint32_t v = 0; v < n && ok; v++)
    {
      /* The immediate dominator is the strict dominator with most dominators.  */
      uint32_t idom = PP_DOM_NONE, best = 0;
      for (uint32_t d = 0; d < n && reached[v] && v != root; d++)
	if (d != v && (dom[(size_t) v * w + d / 64] & bit (d % 64)))
	  {
	    uint32_t count = 0;
	    for (uint32_t i = 0; i < w; i++)
	      count += (uint32_t) __builtin_popcountll (dom[(size_t) d * w + i]);
	    if (idom == PP_DOM_NONE || count > best)
	      {
		idom = d;
		best = count;
	      }
	  }
      if (t.idom[v] != idom)
	{
	  snprintf (why, size, "idom(%u) = %u, naive %u", v, t.idom[v], idom);
	  ok = false;
	}
      for (uint32_t u = 0; u < n && ok; u++)
	{
	  bool naive = reached[v] && reached[u]
		       && (dom[(size_t) v * w + u / 64] & bit (u % 64));
	  if (pp_dominates (&t, u, v) != naive)
	    {
	      snprintf (why, size, "dominates(%u, %u) = %d, naive %d", u, v,
			pp_dominates (&t, u, v), naive);
	      ok = false;
	    }
	}
    }
  free (meet);
  free (dom);
  free (reached);
  free (stack);
  pp_domtree_free (&t);
  return ok;
}

static void
test_dominators (void)
{
  for (unsigned long long i = 0; i < NDOM_GRAPHS; i++)
    {
      unsigned long long seed = BASE_SEED * 3 + i, s = seed;
      uint32_t n = 2 + rnd (&s, i < NDOM_GRAPHS - 50 ? 40 : 300);
      uint32_t m = rnd (&s, 3 * n + 1);
      pp_graph g;
      pp_graph_init (&g, n, ENTRY, EXIT);
      for (uint32_t e = 0; e < m; e++)
	{
	  uint32_t a = rnd (&s, n), b = rnd (&s, n);
	  /* Mostly forward edges so that much is reached, some back edges.  */
	  if (rnd (&s, 4) != 0 && b < a)
	    {
	      uint32_t tmp = a;
	      a = b;
	      b = tmp;
	    }
	  pp_graph_add_edge (&g, a, b, rnd (&s, 10) == 0 ? PP_EDGE_EXIT_ENTRY : 0);
	}
      pp_graph_finish (&g);
      char why[128];
      uint32_t skip = rnd (&s, 2) ? PP_EDGE_EXIT_ENTRY : 0;
      uint32_t root = rnd (&s, n);
      bool ok = dominators_match (&g, root, false, skip, why, sizeof why)
		&& dominators_match (&g, root, true, skip, why, sizeof why);
      unit_check (&prop_dom_naive, ok, "seed %llu (%u nodes, %u edges, root %u): %s", seed,
	     n, m, root, why);
      pp_graph_free (&g);
    }
}

/* ------------------------------------------------------------------------- */
/* Named checks: the paper's examples, malformed input, 100k-node graphs.  */

static uint32_t
plan_size (const pp_graph *g, enum pp_coverage_mode mode)
{
  pp_coverage_plan plan;
  if (pp_coverage_plan_compute (g, mode, &plan) != 0)
    return NONE;
  uint32_t size = plan.nprobes;
  pp_coverage_plan_free (&plan);
  return size;
}

/* Example 4 for K diamonds in series (example 1 is K = 1), with self loops on every
   block when SELF_LOOPS and no diamonds (example 3: a chain of K blocks) when
   CHAIN.  */
static void
paper_graph (pp_graph *g, uint32_t k, bool chain, bool self_loops)
{
  uint32_t per = chain ? 1 : 3;
  uint32_t n = 2 + 1 + per * k;
  pp_graph_init (g, n, ENTRY, EXIT);
  pp_graph_add_edge (g, ENTRY, 2, 0);
  for (uint32_t i = 0; i < k; i++)
    {
      uint32_t top = 2 + per * i;
      if (chain)
	pp_graph_add_edge (g, top, top + 1, 0);
      else
	{
	  pp_graph_add_edge (g, top, top + 1, 0);
	  pp_graph_add_edge (g, top, top + 2, 0);
	  pp_graph_add_edge (g, top + 1, top + 3, 0);
	  pp_graph_add_edge (g, top + 2, top + 3, 0);
	}
    }
  if (self_loops)
    for (uint32_t v = 2; v < n; v++)
      pp_graph_add_edge (g, v, v, 0);
  pp_graph_add_edge (g, n - 1, EXIT, 0);
  pp_graph_add_edge (g, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  pp_graph_finish (g);
}

static void
test_paper_examples (void)
{
  pp_graph g;
  paper_graph (&g, 1, false, false);
  uint32_t size = plan_size (&g, PP_COVER_BLOCKS);
  unit_check (&prop_paper_examples, size == 2, "example 1: %u probes", size);
  pp_graph_free (&g);

  /* Example 2 with the edges its profiles {}, {v1, v3}, {v1, v2, v3} imply: v1 -> v2,
     v2 -> v3, v1 -> v3 (v2 ambiguous, and one of v1, v3).  */
  pp_graph_init (&g, 5, ENTRY, EXIT);
  pp_graph_add_edge (&g, ENTRY, 2, 0);
  pp_graph_add_edge (&g, 2, 3, 0);
  pp_graph_add_edge (&g, 3, 4, 0);
  pp_graph_add_edge (&g, 2, 4, 0);
  pp_graph_add_edge (&g, 4, EXIT, 0);
  pp_graph_add_edge (&g, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  pp_graph_finish (&g);
  size = plan_size (&g, PP_COVER_BLOCKS);
  unit_check (&prop_paper_examples, size == 2, "example 2: %u probes", size);
  pp_graph_free (&g);

  paper_graph (&g, 50, true, true);
  size = plan_size (&g, PP_COVER_BLOCKS);
  unit_check (&prop_paper_examples, size == 1, "example 3: %u probes", size);
  pp_graph_free (&g);

  paper_graph (&g, 50, false, false);
  size = plan_size (&g, PP_COVER_BLOCKS);
  unit_check (&prop_paper_examples, size == 100, "example 4, k = 50: %u probes", size);
  pp_graph_free (&g);
}

static void
test_bad_input (void)
{
  pp_graph g;
  pp_coverage_plan plan;
  bool covered[8], hit[1] = { true };
  uint32_t probe;

  pp_graph_init (&g, 3, ENTRY, EXIT);
  pp_graph_add_edge (&g, ENTRY, 2, 0);
  pp_graph_add_edge (&g, 2, ENTRY, 0);
  pp_graph_add_edge (&g, 2, EXIT, 0);
  pp_graph_finish (&g);
  unit_check (&prop_bad_input, pp_coverage_plan_compute (&g, PP_COVER_BLOCKS, &plan)
	 == PP_COVERAGE_BAD_GRAPH && plan.nprobes == 0, "edge into ENTRY accepted");
  pp_graph_free (&g);

  pp_graph_init (&g, 3, ENTRY, EXIT);
  pp_graph_add_edge (&g, ENTRY, 2, 0);
  pp_graph_add_edge (&g, 2, EXIT, 0);
  pp_graph_add_edge (&g, EXIT, 2, 0);
  pp_graph_finish (&g);
  unit_check (&prop_bad_input, pp_coverage_check_graph (&g) == PP_COVERAGE_BAD_GRAPH,
	 "edge out of EXIT accepted");
  pp_graph_free (&g);

  pp_graph_init (&g, 3, ENTRY, ENTRY);
  pp_graph_finish (&g);
  unit_check (&prop_bad_input, pp_coverage_check_graph (&g) == PP_COVERAGE_BAD_GRAPH,
	 "ENTRY == EXIT accepted");
  pp_graph_free (&g);

  pp_graph_init (&g, 3, ENTRY, EXIT);
  pp_graph_add_edge (&g, ENTRY, 2, 0);
  pp_graph_add_edge (&g, 2, EXIT, 0);
  pp_graph_add_edge (&g, 2, EXIT, PP_EDGE_FAKE);
  pp_graph_add_edge (&g, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  pp_graph_finish (&g);
  unit_check (&prop_bad_input, pp_coverage_plan_compute (&g, (enum pp_coverage_mode) 7,
						    &plan) == PP_COVERAGE_BAD_MODE,
	 "mode 7 accepted");
  probe = ENTRY;
  unit_check (&prop_bad_input, pp_coverage_infer (&g, PP_COVER_BLOCKS, &probe, 1, hit,
					     covered) == PP_COVERAGE_BAD_PROBE,
	 "probe on ENTRY accepted");
  probe = 3;
  unit_check (&prop_bad_input, pp_coverage_infer (&g, PP_COVER_BLOCKS, &probe, 1, hit,
					     covered) == PP_COVERAGE_BAD_PROBE,
	 "probe on a missing block accepted");
  probe = 2;
  unit_check (&prop_bad_input, pp_coverage_infer (&g, PP_COVER_EDGES, &probe, 1, hit,
					     covered) == PP_COVERAGE_BAD_PROBE,
	 "probe on a fake edge accepted");
  probe = 1;
  unit_check (&prop_bad_input, pp_coverage_infer (&g, PP_COVER_EDGES, &probe, 1, hit,
					     covered) == 0 && covered[1] && covered[0],
	 "probe on a real edge refused or not inferred");
  pp_graph_free (&g);
}

/* A chain of N blocks, each with a self loop, a fake leave every 7 blocks and a
   re-entry every 11: deep dominator trees and long inference chains.  */
static void
large_chain (pp_graph *g, uint32_t n)
{
  pp_graph_init (g, n + 2, ENTRY, EXIT);
  pp_graph_add_edge (g, ENTRY, 2, 0);
  for (uint32_t b = 2; b < n + 2; b++)
    {
      pp_graph_add_edge (g, b, b + 1 < n + 2 ? b + 1 : EXIT, 0);
      pp_graph_add_edge (g, b, b, 0);
      if (b % 7 == 0)
	pp_graph_add_edge (g, b, EXIT, PP_EDGE_FAKE);
      if (b % 11 == 0)
	pp_graph_add_edge (g, ENTRY, b, PP_EDGE_FAKE);
    }
  pp_graph_add_edge (g, EXIT, ENTRY, PP_EDGE_EXIT_ENTRY);
  pp_graph_finish (g);
}

static void
test_large (void)
{
  pp_graph g;
  /* Dominators of a plain 100k chain, both directions: depth 100k.  */
  pp_graph_init (&g, LARGE_NODES, ENTRY, EXIT);
  pp_graph_add_edge (&g, ENTRY, 2, 0);
  for (uint32_t b = 2; b + 1 < LARGE_NODES; b++)
    pp_graph_add_edge (&g, b, b + 1, 0);
  pp_graph_add_edge (&g, LARGE_NODES - 1, EXIT, 0);
  pp_graph_finish (&g);
  pp_domtree dom, pdom;
  bool ok = pp_dominators (&g, ENTRY, false, 0, &dom) == 0
	    && pp_dominators (&g, EXIT, true, 0, &pdom) == 0;
  ok = ok && dom.idom[LARGE_NODES - 1] == LARGE_NODES - 2
       && pdom.idom[2] == 3 && pp_dominates (&dom, 2, EXIT)
       && pp_dominates (&pdom, EXIT, ENTRY) && !pp_dominates (&dom, 5, 4);
  unit_check (&prop_dom_large, ok, "wrong dominators on a 100k chain");
  pp_domtree_free (&dom);
  pp_domtree_free (&pdom);
  uint32_t size = plan_size (&g, PP_COVER_BLOCKS);
  unit_check (&prop_large, size == 1, "100k chain: %u block probes", size);
  pp_graph_free (&g);

  large_chain (&g, LARGE_NODES);
  ok = pp_dominators (&g, ENTRY, false, PP_EDGE_EXIT_ENTRY, &dom) == 0;
  unit_check (&prop_dom_large, ok, "dominators failed on the 100k chain with fakes");
  pp_domtree_free (&dom);
  check_sampled (&g, BASE_SEED, 3, &prop_large);
  pp_graph_free (&g);

  unsigned long long s = BASE_SEED * 7;
  ok = random_large (&s, LARGE_NODES, &g) == 0
       && pp_dominators (&g, EXIT, true, PP_EDGE_EXIT_ENTRY, &pdom) == 0;
  unit_check (&prop_dom_large, ok, "post-dominators failed on a random 100k graph");
  pp_domtree_free (&pdom);
  check_sampled (&g, BASE_SEED * 7, 3, &prop_large);
  pp_graph_free (&g);
}

int
main (void)
{
  clock_t start = clock ();
  test_dominators ();
  test_bad_input ();
  test_paper_examples ();
  test_exhaustive ();
  test_random_oracle ();
  test_random_sampled ();
  test_large ();

  unit_report (&prop_dom_naive);
  unit_report (&prop_dom_large);
  unit_report (&prop_bad_input);
  unit_report (&prop_paper_examples);
  unit_report (&prop_plan_shape);
  for (int mode = 0; mode < 3; mode++)
    {
      unit_report (&prop_valid[mode]);
      unit_report (&prop_weighted[mode]);
      unit_report (&prop_minimal[mode]);
      unit_report (&prop_exact[mode]);
    }
  unit_report (&prop_true_model);
  unit_report (&prop_targets);
  unit_report (&prop_sampled);
  unit_report (&prop_large);
  printf ("# exhaustive: %lu graphs of up to 5 nodes (block mode), %lu of up to 5 "
	  "nodes with at most 9 edges on 3 blocks (edge modes), %lu 4-node graphs with "
	  "parallel/fake edges and dead ends, %lu 6-node graphs with at most 8 edges "
	  "(%lu with 7, edge modes); oracle runs per mode %lu/%lu/%lu (%lu skipped); "
	  "%.1f s\n", exhaustive_counts[0], exhaustive_counts[1], exhaustive_counts[2],
	  exhaustive_counts[3], exhaustive_counts[4], oracle_graphs[0], oracle_graphs[1],
	  oracle_graphs[2],
	  oracle_skipped, (double) (clock () - start) / CLOCKS_PER_SEC);
  return unit_exit_status ();
}
