/* Tests of the mode table and the plan layer (corelib/format/modes.h, plan.h): on random
   and structured CFGs, every mode's planner gives a plan of the promised shape;
   the notes record it and the tool reads back exactly the same probes (sites,
   actions, value indices; path operands are not recorded); the CFG checksum
   does not depend on the mode; corrupted value indices are refused with a
   message; the weighting policy falls back to the heuristic without GCC's
   estimates.  Each property prints one PASS/FAIL line naming the first graph
   (seed) that broke it.  */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgeprof.h"
#include "modes.h"
#include "notes.h"
#include "plan.h"
#include "profile.h"
#include "unit.h"
#include "gen-cfg.h"

#define BASE_SEED 0x91a2b3c4d5ull
#define NGRAPHS 2000

static struct unit_property
  prop_table = { .name = "modes: names and numbers look each other up, one row each" },
  prop_shape = { .name = "plan: probes sorted by site (edges, then blocks), one site's probes together" },
  prop_values = { .name = "plan: value probes store each of the function's values once, at the mode's site" },
  prop_paths = { .name = "plan: path probes only in path modes, trace probes only in the trace mode, interprocedural probes only in modes with calls, path counts in an array or a table as the limit says" },
  prop_round_trip = { .name = "plan: the notes record the plan; reading it back gives the same probes" },
  prop_checksum = { .name = "plan: the CFG checksum is the same in every mode and survives encoding" },
  prop_corrupt = { .name = "plan: a value twice, missing or at the wrong site is refused" },
  prop_weights = { .name = "plan: the weighting falls back to the heuristic without GCC's estimates, and a previous run's counts order it" },
  prop_cover_sites = { .name = "plan: block-cover takes the edge-probe plan exactly when it weighs less and sees every block a report shows, else the block-probe plan" },
  prop_count_choice = { .name = "plan: a coverage mode counts exactly when edge counting's chords weigh less than its coverage probes, measure no abnormal edge and every block reaches EXIT; its counters are those chords" };

/* Coverage plans that counted, of all (the log).  */
static unsigned long cover_counted, cover_counting_plans;

/* Block-cover plans that took edge probes, of all (the log).  */
static unsigned long cover_by_edges, cover_plans;

static void
check_table (void)
{
  for (unsigned i = 0; i < pp_nmodes; i++)
    {
      const pp_mode_info *m = &pp_modes[i];
      unit_check (&prop_table, pp_mode_lookup (m->mode) == m
		  && pp_mode_by_name (m->name) == m
		  && strcmp (pp_mode_name (m->mode), m->name) == 0
		  && m->planner < PP_PLANNER_COUNT
		  && (m->value_kind == PP_VALUES_U8 || m->value_kind == PP_VALUES_U64),
		  "row %u (%s) does not look itself up", i, m->name);
    }
  unit_check (&prop_table, pp_mode_lookup (0) == NULL && pp_mode_by_name ("x") == NULL
	      && pp_mode_by_name (NULL) == NULL
	      && strcmp (pp_mode_name (1000), "unknown") == 0,
	      "unknown modes are found");
}

/* The notes of graph g with no lines, as the plugin describes a function.  */
static void
graph_notes (const pp_graph *g, pp_function_notes *fn)
{
  memset (fn, 0, sizeof *fn);
  fn->asm_name = "f";
  fn->name = "f";
  fn->nblocks = g->nnodes;
  fn->blocks = calloc (g->nnodes, sizeof *fn->blocks);
  fn->nedges = g->nedges;
  fn->edges = calloc (g->nedges + 1, sizeof *fn->edges);
  if (!fn->blocks || !fn->edges)
    abort ();
  for (uint32_t e = 0; e < g->nedges; e++)
    fn->edges[e] = (pp_edge_notes) { g->edges[e].src, g->edges[e].dst,
				     g->edges[e].flags, -1 };
}

static void
free_graph_notes (pp_function_notes *fn)
{
  free (fn->blocks);
  free (fn->edges);
}

/* Encodes a one-function unit of MODE and decodes it again.  */
static bool
encode_decode (const pp_function_notes *fn, uint32_t mode, pp_unit_notes *out)
{
  char *files[1] = { "/src/a.c" };
  pp_unit_notes n = { .mode = mode, .depth = 1, .unit_name = "/src/a.c", .nfiles = 1,
		      .files = files, .nfunctions = 1,
		      .functions = (pp_function_notes *) fn };
  unsigned char *buf;
  size_t len;
  char err[256];
  if (pp_notes_encode (&n, &buf, &len))
    abort ();
  int rc = pp_notes_decode (buf, len, out, err, sizeof err);
  free (buf);
  return rc == 0;
}

static bool
same_probe (const pp_probe *a, const pp_probe *b)
{
  return a->action == b->action && a->site == b->site && a->where == b->where
	 && (!pp_probe_has_value_index (a->action) || a->index == b->index);
}

static void
check_shape (const pp_mode_info *m, const pp_graph *g, const pp_plan *plan,
	     uint64_t array_max, unsigned long long seed)
{
  bool sorted = true, values_ok = true, paths_ok = true;
  bool *seen = calloc (plan->nvalues + 1, sizeof *seen);
  for (uint32_t i = 0; i < plan->nprobes; i++)
    {
      const pp_probe *p = &plan->probes[i];
      bool on_block = p->site == PP_SITE_BLOCK;
      uint32_t limit = on_block ? g->nnodes : g->nedges;
      if (p->where >= limit)
	sorted = false;
      if (i > 0)
	{
	  const pp_probe *q = &plan->probes[i - 1];
	  bool q_block = q->site == PP_SITE_BLOCK;
	  bool same_site = q->site == p->site && q->where == p->where;
	  /* Ordered by (block or not, where), and one (block or not, where)
	     is one site: then a site's probes are consecutive.  */
	  if (q_block > on_block || (q_block == on_block && q->where > p->where)
	      || (q->where == p->where && q_block == on_block && !same_site))
	    sorted = false;
	}
      if (pp_probe_has_value_index (p->action))
	{
	  /* A coverage mode's function counts on edges where that costs
	     less (check_count_choice): all its values then.  */
	  bool counts = m->value_action == PP_PROBE_MARK
			&& p->action == PP_PROBE_COUNT && p->site == PP_SITE_EDGE
			&& plan->probes[0].action == PP_PROBE_COUNT;
	  if (((int) p->action != m->value_action && !counts)
	      || !(m->value_sites & PP_SITES (p->site))
	      || (p->site == PP_SITE_BLOCK) != (plan->probes[0].site == PP_SITE_BLOCK)
	      || p->index >= plan->nvalues || seen[p->index])
	    values_ok = false;
	  else
	    seen[p->index] = true;
	}
      else
	{
	  /* Path probes only in path modes, trace probes only in the trace
	     mode, interprocedural probes only in modes with calls.  */
	  int family = p->action >= PP_PROBE_IP_ENTER ? 2
		       : p->action >= PP_PROBE_TRACE_ENTER ? 1 : 0;
	  int want = m->calls ? 2 : m->traced ? 1 : pp_mode_counts_paths (m) ? 0 : -1;
	  if (family != want)
	    paths_ok = false;
	}
      if (p->site == PP_SITE_SOURCE_END
	  && !(g->edges[p->where].flags & PP_EDGE_FAKE))
	sorted = false;
      if (p->site == PP_SITE_EDGE && (g->edges[p->where].flags & PP_EDGE_PINNED))
	sorted = false;
    }
  if (m->value_action >= 0)
    for (uint32_t v = 0; v < plan->nvalues; v++)
      values_ok &= seen[v];
  if (pp_mode_counts_paths (m))
    paths_ok &= plan->path_table == (plan->npaths > array_max)
		&& plan->nvalues == (plan->path_table ? 0 : plan->npaths);
  free (seen);
  unit_check (&prop_shape, sorted, "mode %s, graph seed %llx: probes out of "
	      "order or at impossible sites", m->name, seed);
  unit_check (&prop_values, values_ok, "mode %s, graph seed %llx: values not "
	      "stored once each at the mode's site", m->name, seed);
  unit_check (&prop_paths, paths_ok, "mode %s, graph seed %llx", m->name, seed);
}

static void
check_round_trip (const pp_mode_info *m, const pp_graph *g, const pp_plan *plan,
		  unsigned long long seed, uint64_t *checksum)
{
  pp_function_notes fn;
  graph_notes (g, &fn);
  pp_plan_to_notes (plan, &fn);
  pp_unit_notes decoded;
  bool ok = encode_decode (&fn, m->mode, &decoded);
  unit_check (&prop_checksum, ok, "mode %s, graph seed %llx: not decoded",
	      m->name, seed);
  if (ok)
    {
      const pp_function_notes *d = &decoded.functions[0];
      if (*checksum == 0)
	*checksum = d->cfg_checksum;
      unit_check (&prop_checksum, d->cfg_checksum == *checksum
		  && d->cfg_checksum == pp_notes_cfg_checksum (&fn),
		  "mode %s, graph seed %llx: checksum differs", m->name, seed);
      pp_plan back;
      char err[256];
      if (pp_plan_from_notes (d, m, &back, err, sizeof err))
	unit_check (&prop_round_trip, 0, "mode %s, graph seed %llx: %s",
		    m->name, seed, err);
      else
	{
	  bool same = back.nprobes == plan->nprobes
		      && back.nvalues == plan->nvalues;
	  for (uint32_t i = 0; same && i < back.nprobes; i++)
	    same = same_probe (&back.probes[i], &plan->probes[i]);
	  unit_check (&prop_round_trip, same, "mode %s, graph seed %llx: the "
		      "probes read back differ", m->name, seed);
	  pp_plan_free (&back);
	}
      pp_notes_free (&decoded);
    }

  /* Corruptions of the value indices (modes whose probes store values).  */
  if (m->value_action >= 0 && plan->nvalues >= 2)
    {
      pp_plan back;
      char err[256] = "";
      int32_t *slot = NULL;
      for (uint32_t e = 0; e < fn.nedges && !slot; e++)
	if (fn.edges[e].value == 1)
	  slot = &fn.edges[e].value;
      for (uint32_t v = 0; v < fn.nblocks && !slot; v++)
	if (fn.blocks[v].value == 1)
	  slot = &fn.blocks[v].value;
      *slot = 0;		/* value 0 twice, value 1 never */
      bool refused = pp_plan_from_notes (&fn, m, &back, err, sizeof err) != 0
		     && strstr (err, "corrupted profile");
      *slot = 1;
      /* A value probe where the plan has none: on a block when its values
	 are on edges, on an edge when they are on blocks (block-cover may put
	 them on either, never on both).  */
      int32_t *wrong = plan->probes[0].site != PP_SITE_BLOCK
		       ? &fn.blocks[fn.nblocks - 1].value : &fn.edges[0].value;
      int32_t saved = *wrong;
      *wrong = 1;
      err[0] = 0;
      bool refused_site = pp_plan_from_notes (&fn, m, &back, err, sizeof err) != 0
			  && strstr (err, "corrupted profile");
      *wrong = saved;
      unit_check (&prop_corrupt, refused && refused_site, "mode %s, graph seed "
		  "%llx: corrupted values read back (%s)", m->name, seed, err);
    }
  free_graph_notes (&fn);
}

/* The weight of coverage probes on SITE (a block's: its in-edges').  */
static double
site_weight (const pp_graph *g, const double *w, uint8_t site, uint32_t where)
{
  if (site != PP_SITE_BLOCK)
    return w[where];
  double sum = 0;
  for (uint32_t k = g->pred_start[where]; k < g->pred_start[where + 1]; k++)
    sum += w[g->pred_edges[k]];
  return sum;
}

/* Whether every node that ENTRY reaches reaches EXIT (not through the
   closing edge): by brute force, node by node.  */
static bool
all_reach_exit (const pp_graph *g)
{
  bool *from = calloc (g->nnodes, sizeof *from), *to = calloc (g->nnodes, sizeof *to);
  from[g->entry] = to[g->exit] = true;
  for (bool changed = true; changed;)
    {
      changed = false;
      for (uint32_t e = 0; e < g->nedges; e++)
	{
	  const pp_edge *x = &g->edges[e];
	  if (x->flags & PP_EDGE_EXIT_ENTRY)
	    continue;
	  if (from[x->src] && !from[x->dst])
	    changed = from[x->dst] = true;
	  if (to[x->dst] && !to[x->src])
	    changed = to[x->src] = true;
	}
    }
  bool all = true;
  for (uint32_t v = 0; v < g->nnodes; v++)
    all &= !from[v] || to[v];
  free (from);
  free (to);
  return all;
}

/* A coverage mode's choice to count: WITH_COUNTING (planned with counters
   costing their edge's weight) against WITHOUT (planned with no counting).  */
static void
check_count_choice (const pp_mode_info *m, const pp_graph *g, const double *w,
		    const pp_plan *without, const pp_plan *with_counting,
		    unsigned long long seed)
{
  double cost = 0;
  for (uint32_t i = 0; i < without->nprobes; i++)
    cost += site_weight (g, w, without->probes[i].site, without->probes[i].where);
  int32_t *counter = malloc ((g->nedges + 1) * sizeof *counter);
  int pinned = 0;
  int n = pp_plan_edge_counters (g, w, counter, &pinned);
  double counting = 0;
  for (uint32_t e = 0; e < g->nedges; e++)
    if (counter[e] >= 0)
      counting += w[e];
  bool count = n >= 0 && pinned == 0 && all_reach_exit (g)
	       && counting < cost * (1 - 1e-9);
  bool ok;
  if (count)
    {
      ok = with_counting->nvalues == (uint32_t) n
	   && with_counting->nprobes == (uint32_t) n;
      for (uint32_t i = 0; ok && i < with_counting->nprobes; i++)
	{
	  const pp_probe *p = &with_counting->probes[i];
	  ok = p->action == PP_PROBE_COUNT && p->site == PP_SITE_EDGE
	       && counter[p->where] == (int32_t) p->index
	       && with_counting->edge_flags
	       && (with_counting->edge_flags[p->where] & PP_EDGE_COUNTER);
	}
    }
  else
    {
      ok = with_counting->nprobes == without->nprobes;
      for (uint32_t i = 0; ok && i < without->nprobes; i++)
	ok = same_probe (&with_counting->probes[i], &without->probes[i]);
    }
  cover_counted += count;
  cover_counting_plans++;
  unit_check (&prop_count_choice, ok, "mode %s, graph seed %llx: coverage probes "
	      "weigh %.17g, counters %.17g (%d pinned): %s", m->name, seed, cost,
	      counting, pinned, count ? "should count" : "should not count");
  free (counter);
}

/* Block-cover's choice between its two plans, both made again here.  */
static void
check_cover_sites (const pp_graph *g, const pp_function_notes *fn,
		   const double *w, const pp_plan *plan, unsigned long long seed)
{
  pp_coverage_plan vv, ve;
  if (pp_plan_coverage_of (g, fn, PP_COVER_BLOCKS, w, &vv))
    abort ();
  if (pp_plan_coverage_of (g, fn, PP_COVER_BLOCKS_BY_EDGES, w, &ve))
    abort ();
  double cost_vv = 0, cost_ve = 0;
  for (uint32_t i = 0; i < vv.nprobes; i++)
    cost_vv += site_weight (g, w, PP_SITE_BLOCK, vv.probes[i]);
  for (uint32_t i = 0; i < ve.nprobes; i++)
    cost_ve += site_weight (g, w, PP_SITE_EDGE, ve.probes[i]);
  /* The blocks a report shows: with lines (none here) or entered from
     ENTRY by a real edge.  */
  bool sees_all = true;
  for (uint32_t i = 0; i < ve.ninexact; i++)
    for (uint32_t k = g->succ_start[g->entry]; k < g->succ_start[g->entry + 1]; k++)
      {
	const pp_edge *e = &g->edges[g->succ_edges[k]];
	if (!(e->flags & PP_EDGE_FAKE) && e->dst == ve.inexact[i])
	  sees_all = false;
      }
  bool edges = cost_ve < cost_vv * (1 - 1e-9) && sees_all;
  const pp_coverage_plan *want = edges ? &ve : &vv;
  bool ok = plan->nprobes == want->nprobes;
  for (uint32_t i = 0; ok && i < plan->nprobes; i++)
    ok = plan->probes[i].where == want->probes[i]
	 && (plan->probes[i].site == PP_SITE_BLOCK) == !edges;
  cover_by_edges += edges;
  cover_plans++;
  unit_check (&prop_cover_sites, ok, "graph seed %llx: block probes weigh %.17g, "
	      "edge probes %.17g%s (plan: %u on %s)", seed, cost_vv, cost_ve,
	      sees_all ? "" : " (not seeing every block shown)", plan->nprobes, plan->nprobes && plan->probes[0].site == PP_SITE_BLOCK ? "blocks" : "edges");
  pp_coverage_plan_free (&vv);
  pp_coverage_plan_free (&ve);
}

static void
check_graph (const pp_graph *g, unsigned long long seed)
{
  double *w = malloc ((g->nedges + 1) * sizeof *w);
  double *h = malloc ((g->nedges + 1) * sizeof *h);
  double *est = malloc ((g->nedges + 1) * sizeof *est);
  if (!w || !h || !est)
    abort ();
  for (uint32_t e = 0; e < g->nedges; e++)
    est[e] = (double) (seed % 7 + e % 5);
  int used = pp_plan_weights (g, PP_WEIGHTS_GCC, NULL, NULL, w);
  bool ok = used == PP_WEIGHTS_HEURISTIC && pp_weights_heuristic (g, h) == 0
	    && memcmp (w, h, g->nedges * sizeof *w) == 0;
  ok &= pp_plan_weights (g, PP_WEIGHTS_GCC, est, NULL, h) == PP_WEIGHTS_GCC
	&& memcmp (h, est, g->nedges * sizeof *h) == 0;
  ok &= pp_plan_weights (g, PP_WEIGHTS_UNIFORM, est, NULL, h) == PP_WEIGHTS_UNIFORM;
  /* weights=profile: GCC's estimate (or the heuristic) where the run has no
     counts; with counts, a more frequent edge weighs more, and among equal
     counts the one GCC (or the heuristic) thinks hotter.  */
  ok &= pp_plan_weights (g, PP_WEIGHTS_PROFILE, est, NULL, h) == PP_WEIGHTS_GCC
	&& memcmp (h, est, g->nedges * sizeof *h) == 0;
  uint64_t *counts = malloc ((g->nedges + 1) * sizeof *counts);
  for (uint32_t e = 0; e < g->nedges; e++)
    counts[e] = (seed >> (e % 16)) % 3 == 0 ? 0 : (seed * (e + 1)) % 1000003;
  for (int with_est = 0; with_est < 2; with_est++)
    {
      const double *by = with_est ? est : w;	/* w: the heuristic's */
      ok &= pp_plan_weights (g, PP_WEIGHTS_PROFILE, with_est ? est : NULL, counts,
			     h) == PP_WEIGHTS_PROFILE;
      for (uint32_t a = 0; a < g->nedges; a++)
	for (uint32_t b = 0; b < g->nedges; b++)
	  if (counts[a] > counts[b] || (counts[a] == counts[b] && by[a] > by[b]))
	    ok &= h[a] > h[b];
    }
  free (counts);
  unit_check (&prop_weights, ok, "graph seed %llx", seed);

  uint64_t checksum = 0;
  uint64_t array_max = seed % 3 == 0 ? 0 : seed % 3 == 1 ? 4 : 4096;
  /* The interprocedural mode's planner reads the calls (none here) from the
     notes, as the plugin gives them.  */
  pp_function_notes fn;
  graph_notes (g, &fn);
  for (unsigned i = 0; i < pp_nmodes; i++)
    {
      const pp_mode_info *m = &pp_modes[i];
      pp_plan_input in = { .weights = m->weighted ? w : NULL,
			   .path_array_max = array_max,
			   .notes = &fn };
      pp_plan plan;
      const char *why = NULL;
      int rc = pp_plan_mode (m, g, &in, &plan, &why);
      if (rc != PP_PLAN_OK)
	{
	  unit_check (&prop_shape, 0, "mode %s, graph seed %llx: planning "
		      "failed (%d: %s)", m->name, seed, rc, why ? why : "");
	  continue;
	}
      check_shape (m, g, &plan, array_max, seed);
      check_round_trip (m, g, &plan, seed, &checksum);
      if (m->mode == PP_MODE_BLOCK_COVER)
	check_cover_sites (g, &fn, w, &plan, seed);
      if (m->value_action == PP_PROBE_MARK)
	{
	  /* Where counting weighs less, the function counts instead.  */
	  pp_plan counted;
	  in.counter_cost = 1;
	  if (pp_plan_mode (m, g, &in, &counted, &why) != PP_PLAN_OK)
	    abort ();
	  check_shape (m, g, &counted, array_max, seed);
	  check_round_trip (m, g, &counted, seed, &checksum);
	  check_count_choice (m, g, w, &plan, &counted, seed);
	  pp_plan_free (&counted);
	}
      pp_plan_free (&plan);
    }
  free_graph_notes (&fn);
  free (w);
  free (h);
  free (est);
}

int
main (void)
{
  check_table ();
  for (unsigned i = 0; i < NGRAPHS; i++)
    {
      unsigned long long seed = BASE_SEED + i;
      struct gen x;
      gen_init (&x, 0, seed);
      if (i % 2)
	structured_cfg (&x, 1 + rnd (&x, 4));
      else
	random_cfg (&x, 12, true, true, false);
      check_graph (&x.g, seed);
      gen_free (&x);
    }
  unit_report (&prop_table);
  unit_report (&prop_shape);
  unit_report (&prop_values);
  unit_report (&prop_paths);
  unit_report (&prop_round_trip);
  unit_report (&prop_checksum);
  unit_report (&prop_corrupt);
  unit_report (&prop_weights);
  unit_report (&prop_cover_sites);
  unit_report (&prop_count_choice);
  printf ("plan: block-cover took edge probes in %lu of %lu graphs\n",
	  cover_by_edges, cover_plans);
  printf ("plan: the coverage modes counted in %lu of %lu plans\n",
	  cover_counted, cover_counting_plans);
  return unit_exit_status ();
}
