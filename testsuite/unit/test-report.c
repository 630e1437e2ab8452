/* Unit tests of the coverage modes' readers (tools/report.c): random CFGs in the
   plugin's model get the plan corelib/coverage computes, random executions set the
   probes' bytes, and the profile, written to a file and loaded by report_load, must
   give back what the executions covered: every block, every probe-able edge in
   edge-cover, every line, and whether the function was called.  The same with
   the bytes as counters of 0 or 1, and with the plan the coverage planner makes
   when counting costs less (counters on edge counting's chords, set to the
   executions' edge counts), where every block can reach EXIT.  */

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include <stdio.h>
#include "coverage.h"
#include "modes.h"
#include "plan.h"
#include "../../tools/report.h"

#define MAX_NODES 14
#define MAX_EDGES 64
#define STEPS_BEFORE_LEAVING 40

struct test_graph
{
  uint32_t nnodes, nedges;
  pp_edge edges[MAX_EDGES];
};

static void
add (struct test_graph *t, uint32_t src, uint32_t dst, uint32_t flags)
{
  if (t->nedges < MAX_EDGES)
    t->edges[t->nedges++] = (pp_edge) { src, dst, flags };
}

/* A CFG as the plugin builds one: ENTRY (0) falls into block 2, blocks branch to
   blocks or return to EXIT (1), some calls may not return (fake leaves), some
   blocks are entered by longjmp (fake re-entries), EXIT -> ENTRY closes it.  */
static void
random_graph (struct test_graph *t, unsigned long long *rng)
{
  t->nnodes = 3 + unit_rand (rng) % (MAX_NODES - 2);
  t->nedges = 0;
  add (t, 0, 2, PP_EDGE_FALLTHRU);
  for (uint32_t v = 2; v < t->nnodes; v++)
    {
      uint32_t nsucc = 1 + unit_rand (rng) % 3;
      for (uint32_t i = 0; i < nsucc; i++)
	{
	  uint32_t dst = unit_rand (rng) % 5 == 0 ? 1
			 : 2 + unit_rand (rng) % (t->nnodes - 2);
	  add (t, v, dst, i == 0 ? PP_EDGE_TRUE : PP_EDGE_FALSE);
	}
      if (unit_rand (rng) % 4 == 0)
	add (t, v, 1, PP_EDGE_FAKE);
      if (unit_rand (rng) % 8 == 0)
	add (t, 0, v, PP_EDGE_FAKE);
    }
  add (t, 1, 0, PP_EDGE_EXIT_ENTRY);
}

/* One execution: a random walk from ENTRY that heads for EXIT by a shortest path
   after a while, or stops in a loop that cannot reach EXIT (as a signal would stop
   it).  Marks the blocks and edges it passes.  */
static void
random_execution (const pp_graph *g, const uint32_t *to_exit,
		  unsigned long long *rng, bool *block_ran, bool *edge_taken,
		  uint64_t *edge_count)
{
  uint32_t v = g->entry;
  for (uint32_t step = 0; v != g->exit; step++)
    {
      block_ran[v] = true;
      uint32_t e = UINT32_MAX;
      if (step >= STEPS_BEFORE_LEAVING && to_exit[v] == UINT32_MAX)
	return;
      if (step >= STEPS_BEFORE_LEAVING)
	e = to_exit[v];
      else
	{
	  uint32_t out = pp_graph_out_degree (g, v);
	  e = g->succ_edges[g->succ_start[v] + unit_rand (rng) % out];
	}
      edge_taken[e] = true;
      edge_count[e]++;
      v = g->edges[e].dst;
    }
}

/* to_exit[v]: the first edge of a shortest path from v to EXIT, or UINT32_MAX.  */
static void
shortest_paths_to_exit (const pp_graph *g, uint32_t *to_exit)
{
  uint32_t queue[MAX_NODES], head = 0, tail = 0;
  for (uint32_t v = 0; v < g->nnodes; v++)
    to_exit[v] = UINT32_MAX;
  queue[tail++] = g->exit;
  while (head < tail)
    {
      uint32_t w = queue[head++];
      for (uint32_t i = g->pred_start[w]; i < g->pred_start[w + 1]; i++)
	{
	  uint32_t e = g->pred_edges[i];
	  uint32_t v = g->edges[e].src;
	  if (g->edges[e].flags & PP_EDGE_EXIT_ENTRY || v == g->exit
	      || to_exit[v] != UINT32_MAX)
	    continue;
	  to_exit[v] = e;
	  queue[tail++] = v;
	}
    }
}

static const struct
{
  uint32_t mode;
  enum pp_coverage_mode core_mode;
} modes[] = {
  { PP_MODE_BLOCK_COVER, PP_COVER_BLOCKS },
  { PP_MODE_EDGE_COVER, PP_COVER_EDGES },
  { PP_MODE_BLOCK_COVER_EDGE_PROBES, PP_COVER_BLOCKS_BY_EDGES },
};

/* One function of one unit, its graph t planned in mode; block v has source line
   10 + v.  */
struct test_unit
{
  pp_unit_notes notes;
  pp_function_notes fn;
  pp_block_notes blocks[MAX_NODES];
  pp_line_ref lines[MAX_NODES];
  pp_edge_notes edges[MAX_EDGES];
  char *files[1];
};

static void
build_notes (struct test_unit *tu, uint32_t mode, const struct test_graph *t,
	     const pp_coverage_plan *plan)
{
  memset (tu, 0, sizeof *tu);
  tu->files[0] = (char *) "/src/t.c";
  tu->fn = (pp_function_notes) { .asm_name = (char *) "f", .name = (char *) "f",
				 .decl_line = 10, .nvalues = plan->nprobes,
				 .nblocks = t->nnodes, .blocks = tu->blocks,
				 .nedges = t->nedges, .edges = tu->edges };
  for (uint32_t v = 0; v < t->nnodes; v++)
    {
      tu->lines[v] = (pp_line_ref) { 0, 10 + v };
      tu->blocks[v] = (pp_block_notes) { 0, -1, v >= 2, &tu->lines[v] };
    }
  for (uint32_t e = 0; e < t->nedges; e++)
    tu->edges[e] = (pp_edge_notes) { t->edges[e].src, t->edges[e].dst,
				     t->edges[e].flags, -1 };
  for (uint32_t i = 0; i < plan->nprobes; i++)
    if (mode == PP_MODE_BLOCK_COVER)
      tu->blocks[plan->probes[i]].value = (int32_t) i;
    else
      tu->edges[plan->probes[i]].value = (int32_t) i;
  tu->notes = (pp_unit_notes) { .mode = mode, .unit_name = (char *) "/src/t.c",
				.nfiles = 1, .files = tu->files,
				.nfunctions = 1, .functions = &tu->fn };
}

/* Writes a profile of one unit with these notes and values to path.  */
static int
write_profile (const char *path, const pp_unit_notes *notes, uint32_t value_kind,
	       uint8_t *values, uint32_t nvalues)
{
  unsigned char *nbuf, *pbuf;
  size_t nlen, plen;
  if (pp_notes_encode (notes, &nbuf, &nlen))
    return -1;
  pp_unit_data u = { .name = (char *) "/src/t.c",
		     .checksum = pp_hash64 (nbuf, nlen, PP_HASH_SEED), .runs = 1,
		     .notes_len = (uint32_t) nlen, .notes = nbuf,
		     .value_kind = value_kind, .nvalues = nvalues,
		     .values = values };
  pp_profile p = { .nunits = 1, .cap = 1, .units = &u };
  int rc = pp_profile_encode (&p, &pbuf, &plen);
  free (nbuf);
  if (rc)
    return -1;
  FILE *out = fopen (path, "wb");
  rc = out && fwrite (pbuf, 1, plen, out) == plen ? 0 : -1;
  if (out && fclose (out))
    rc = -1;
  free (pbuf);
  return rc;
}

/* Checks the report of one function against what the executions covered;
   returns a reason or NULL.  */
static const char *
check_report (const report *r, const report_lines *rl, uint32_t mode,
	      const pp_graph *g, const bool *block_ran, const bool *edge_taken,
	      char *why, size_t whylen)
{
  const report_function *f = &r->units[0].functions[0];
  for (uint32_t v = 2; v < g->nnodes; v++)
    {
      bool covered = f->block_coverage[v] == REPORT_COVERED;
      if (covered != block_ran[v] && !(f->block_inexact[v] && !covered))
	{
	  snprintf (why, whylen, "block %" PRIu32 ": ran %d, covered %d%s", v,
		    block_ran[v], covered, f->block_inexact[v] ? " (inexact)" : "");
	  return why;
	}
      const line_count *l = line_source_find (&rl->lc.sources[0], 10 + v);
      if (!l || l->covered != covered || !l->uncounted)
	{
	  snprintf (why, whylen, "line %" PRIu32 ": covered %d, block %d", 10 + v,
		    l->covered, covered);
	  return why;
	}
    }
  if (mode == PP_MODE_BLOCK_COVER)
    for (uint32_t v = 0; v < g->nnodes; v++)
      if (f->block_inexact[v])
	return "an inexact block with block probes";
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint8_t expected = REPORT_NOT_DETERMINED;
      if (mode == PP_MODE_EDGE_COVER && !(g->edges[e].flags & PP_EDGE_PINNED))
	expected = edge_taken[e] ? REPORT_COVERED : REPORT_NOT_COVERED;
      if (f->edge_coverage[e] != expected)
	{
	  snprintf (why, whylen, "edge %" PRIu32 ": taken %d, coverage %d", e,
		    edge_taken[e], f->edge_coverage[e]);
	  return why;
	}
    }
  if (f->called != block_ran[2] && !(f->block_inexact[2] && !f->called))
    return "called differs from the block after ENTRY";
  return NULL;
}

/* How a case's values are kept: coverage bytes, the same as counters of 0
   or 1 (a unit where other functions count), or the counters of the plan
   the coverage planner makes when counting costs less.  */
enum variant
{
  BYTES,
  WIDE_BYTES,
  COUNTED,
};

/* Cases of COUNTED whose graph let the planner count (the others: some
   block cannot reach EXIT, or an abnormal edge would be measured).  */
static unsigned long counted_cases;

/* One random graph and run in one mode; returns a reason or NULL.  */
static const char *
one_case (const char *path, uint32_t mi, enum variant variant,
	  unsigned long long *rng, char *why, size_t whylen)
{
  struct test_graph t;
  random_graph (&t, rng);
  pp_graph g;
  if (pp_graph_init (&g, t.nnodes, 0, 1))
    return "out of memory";
  for (uint32_t e = 0; e < t.nedges; e++)
    pp_graph_add_edge (&g, t.edges[e].src, t.edges[e].dst, t.edges[e].flags);
  pp_coverage_plan plan;
  if (pp_graph_finish (&g)
      || pp_coverage_plan_compute (&g, modes[mi].core_mode, &plan))
    {
      pp_graph_free (&g);
      return "cannot plan";
    }
  /* The planner's plan, counting wherever it may: a counter costs next to
     nothing.  */
  pp_plan counting = { 0 };
  if (variant == COUNTED)
    {
      double w[MAX_EDGES];
      for (uint32_t e = 0; e < g.nedges; e++)
	w[e] = 1;
      pp_plan_input in = { .weights = w, .counter_cost = 1e-6 };
      const pp_mode_info *m = pp_mode_lookup (modes[mi].mode);
      const char *ignored;
      if (pp_plan_mode (m, &g, &in, &counting, &ignored) != PP_PLAN_OK)
	{
	  pp_coverage_plan_free (&plan);
	  pp_graph_free (&g);
	  return "cannot plan by counting";
	}
      if (!counting.nprobes || counting.probes[0].action != PP_PROBE_COUNT)
	{
	  pp_plan_free (&counting);
	  pp_coverage_plan_free (&plan);
	  pp_graph_free (&g);
	  return NULL;
	}
      counted_cases++;
    }
  bool block_ran[MAX_NODES] = { false }, edge_taken[MAX_EDGES] = { false };
  uint64_t edge_count[MAX_EDGES] = { 0 };
  uint32_t to_exit[MAX_NODES];
  shortest_paths_to_exit (&g, to_exit);
  uint32_t runs = unit_rand (rng) % 4;
  for (uint32_t i = 0; i < runs; i++)
    random_execution (&g, to_exit, rng, block_ran, edge_taken, edge_count);
  uint8_t values[MAX_EDGES + 1];
  uint64_t wide[MAX_EDGES + 1];
  uint32_t nvalues = variant == COUNTED ? counting.nvalues : plan.nprobes;
  for (uint32_t i = 0; i < plan.nprobes; i++)
    values[i] = modes[mi].mode == PP_MODE_BLOCK_COVER
		? block_ran[plan.probes[i]] : edge_taken[plan.probes[i]];
  for (uint32_t i = 0; i < nvalues; i++)
    wide[i] = variant == COUNTED
	      ? edge_count[counting.probes[i].where] : values[i];

  struct test_unit tu;
  if (variant == COUNTED)
    {
      pp_coverage_plan none = { plan.mode, 0, NULL, 0, NULL };
      build_notes (&tu, modes[mi].mode, &t, &none);
      pp_plan_to_notes (&counting, &tu.fn);
    }
  else
    build_notes (&tu, modes[mi].mode, &t, &plan);
  const char *failure = NULL;
  char err[512];
  report r;
  report_lines rl;
  if (variant == BYTES
      ? write_profile (path, &tu.notes, PP_VALUES_U8, values, nvalues)
      : write_profile (path, &tu.notes, PP_VALUES_U64, (uint8_t *) wide, nvalues))
    failure = "cannot write the profile";
  else if (report_load (&r, path, err, sizeof err))
    {
      snprintf (why, whylen, "report_load: %s", err);
      failure = why;
    }
  else
    {
      if (report_lines_compute (&rl, &r, NULL))
	failure = "out of memory";
      else
	failure = check_report (&r, &rl, modes[mi].mode, &g, block_ran,
				edge_taken, why, whylen);
      report_lines_free (&rl);
      report_free (&r);
    }
  pp_plan_free (&counting);
  pp_coverage_plan_free (&plan);
  pp_graph_free (&g);
  return failure;
}

/* A profile whose notes give one value two probes, or values of the wrong kind,
   is refused with the unit and function named.  */
static void
test_refused (const char *path)
{
  struct test_graph t = { 4, 0, { { 0 } } };
  add (&t, 0, 2, PP_EDGE_FALLTHRU);
  add (&t, 2, 3, PP_EDGE_TRUE);
  add (&t, 2, 1, PP_EDGE_FALSE);
  add (&t, 3, 1, PP_EDGE_FALLTHRU);
  add (&t, 1, 0, PP_EDGE_EXIT_ENTRY);
  uint32_t probes[2] = { 2, 3 };
  pp_coverage_plan plan = { PP_COVER_BLOCKS, 2, probes, 0, NULL };
  struct test_unit tu;
  build_notes (&tu, PP_MODE_BLOCK_COVER, &t, &plan);
  tu.blocks[3].value = 0;
  uint8_t values[2] = { 1, 0 };
  char err[512] = "";
  report r;
  bool refused = write_profile (path, &tu.notes, PP_VALUES_U8, values, 2) == 0
		 && report_load (&r, path, err, sizeof err) != 0;
  unit_result (refused && strstr (err, "function 'f'")
	       && strstr (err, "two probes"), "report: a value with two probes",
	       "got '%s'", err);

  /* Coverage bytes where counters belong (edge-counts' values).  */
  build_notes (&tu, PP_MODE_EDGE_COVER, &t, &plan);
  tu.notes.mode = PP_MODE_EDGE_COUNTS;
  err[0] = '\0';
  refused = write_profile (path, &tu.notes, PP_VALUES_U8, values, 2) == 0
	    && report_load (&r, path, err, sizeof err) != 0;
  unit_result (refused && strstr (err, "wrong kind"),
	       "report: counts in coverage bytes", "got '%s'", err);

  /* A coverage byte among a counting function's counters.  */
  build_notes (&tu, PP_MODE_EDGE_COVER, &t, &plan);
  tu.edges[2].flags |= PP_EDGE_COUNTER;
  uint64_t counters[2] = { 1, 0 };
  err[0] = '\0';
  refused = write_profile (path, &tu.notes, PP_VALUES_U64, (uint8_t *) counters,
			   2) == 0
	    && report_load (&r, path, err, sizeof err) != 0;
  unit_result (refused && strstr (err, "corrupted profile"),
	       "report: counters mixed with coverage bytes", "got '%s'", err);
}

int
main (void)
{
  char path[] = "/tmp/pathprof-test-report-XXXXXX";
  int fd = mkstemp (path);
  if (fd < 0)
    {
      unit_result (0, "report: temporary file", "mkstemp failed");
      return unit_exit_status ();
    }
  close (fd);
  static const char *const variant_names[] = {
    [BYTES] = "", [WIDE_BYTES] = ", bytes as counters",
    [COUNTED] = ", counting where it may" };
  for (uint32_t mi = 0; mi < sizeof modes / sizeof *modes; mi++)
    for (enum variant v = BYTES; v <= COUNTED; v++)
      {
	unsigned long long rng = 42 + mi;
	const char *failure = NULL;
	char why[640], name[96];
	uint32_t i = 0;
	counted_cases = 0;
	for (; i < 2000 && !failure; i++)
	  failure = one_case (path, mi, v, &rng, why, sizeof why);
	snprintf (name, sizeof name, "report: %s on random graphs%s",
		  pp_mode_name (modes[mi].mode), variant_names[v]);
	unit_result (!failure && (v != COUNTED || counted_cases >= 200), name,
		     "case %" PRIu32 ": %s (%lu counted)", i - 1,
		     failure ? failure : "", counted_cases);
	if (v == COUNTED)
	  printf ("report: %s counted in %lu of 2000 graphs\n",
		  pp_mode_name (modes[mi].mode), counted_cases);
      }
  test_refused (path);
  unlink (path);
  return unit_exit_status ();
}
