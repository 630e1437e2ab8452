/* The report layer: reading a profile and turning each unit's values into
   per-function facts.  */

#include "report.h"
#include "ip-counts.h"
#include "trace-file.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coverage.h"
#include "edgeprof.h"
#include "path-counts.h"

const struct report_edge_flag_name report_edge_flag_names[] = {
  { PP_EDGE_FAKE, "fake" },
  { PP_EDGE_ABNORMAL, "abnormal" },
  { PP_EDGE_EH, "eh" },
  { PP_EDGE_EXIT_ENTRY, "exit-entry" },
  { PP_EDGE_FALLTHRU, "fallthru" },
  { PP_EDGE_TRUE, "true" },
  { PP_EDGE_FALSE, "false" },
  { PP_EDGE_PATH_END, "path-end" },
  { PP_EDGE_PATH_COUNT, "path-count" },
  { PP_EDGE_PATH_REG, "path-reg" },
  { PP_EDGE_COUNTER, "counter" },
  { PP_EDGE_SEG_TREE, "no-probe" },
};
const size_t report_nedge_flag_names
  = sizeof report_edge_flag_names / sizeof *report_edge_flag_names;

const char *const report_edge_source_names[] = {
  [REPORT_EDGE_MEASURED] = "measured",
  [REPORT_EDGE_DERIVED] = "derived",
  [REPORT_EDGE_UNKNOWN] = "unknown",
  [REPORT_EDGE_UNMEASURED] = "not determined",
};

/* A mode reader fills, from the unit's values and f->plan, f->edge_counts,
   f->edge_source and f->unknown_edges (counting modes) or f->block_coverage,
   f->edge_coverage and f->block_inexact (coverage modes); f->graph is built and
   the arrays are zeroed.  Returns 0, or -1 with a reason in err.  */
typedef int (*mode_reader_fn) (report_function *f, const pp_unit_data *u,
			       const pp_mode_info *mode, char *err, size_t errlen);

static int read_edge_counts (report_function *f, const pp_unit_data *u,
			     const pp_mode_info *mode, char *err, size_t errlen);
static int read_block_counts (report_function *f, const pp_unit_data *u,
			      const pp_mode_info *mode, char *err, size_t errlen);
static int read_coverage (report_function *f, const pp_unit_data *u,
			  const pp_mode_info *mode, char *err, size_t errlen);

/* What the values mean comes from the mode's row (corelib/format/modes.h); how to turn
   them into counts or coverage, from here: one reader a family of modes
   (the trace's none: its counts are in its trace file).  */
static const mode_reader_fn mode_readers[PP_FAMILY_COUNT] = {
  [PP_FAMILY_EDGE_COUNTS] = read_edge_counts,
  [PP_FAMILY_BLOCK_COUNTS] = read_block_counts,
  [PP_FAMILY_COVERAGE] = read_coverage,
  [PP_FAMILY_PATHS] = report_read_paths,
  [PP_FAMILY_INTERPROC] = report_read_interproc,
};

/* Edge counts from the counters: every edge's when the counters determine it,
   else the source NOT_DETERMINED gives (REPORT_EDGE_UNKNOWN in edge-counts,
   where only abnormal edges can be left undetermined; REPORT_EDGE_UNMEASURED in
   block-counts, which leaves them so by design).  */
static int
edge_counts_from_counters (report_function *f, const pp_unit_data *u,
			   const int32_t *counter_of_edge, uint8_t not_determined,
			   char *err, size_t errlen)
{
  const pp_function_notes *fn = f->notes;
  bool *known = malloc ((fn->nedges ? fn->nedges : 1) * sizeof *known);
  if (!known)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  const uint64_t *counters
    = fn->nvalues ? (const uint64_t *) u->values + fn->value_offset : NULL;
  int rc = pp_propagate_counts_signed_fakes (&f->graph, counter_of_edge, counters,
					     f->edge_counts, known);
  if (rc == 0 || rc == 2)
    for (uint32_t e = 0; e < fn->nedges; e++)
      {
	if (counter_of_edge[e] >= 0)
	  f->edge_source[e] = REPORT_EDGE_MEASURED;
	else if (rc == 0 || known[e])
	  f->edge_source[e] = REPORT_EDGE_DERIVED;
	else
	  {
	    f->edge_source[e] = not_determined;
	    f->edge_counts[e] = 0;
	    f->unknown_edges += not_determined == REPORT_EDGE_UNKNOWN;
	  }
      }
  free (known);
  switch (rc)
    {
    case 0:
    case 2:
      return 0;
    case 1:
      snprintf (err, errlen, "the counters contradict the control-flow graph "
		"(stale or corrupted profile)");
      return -1;
    default:
      snprintf (err, errlen, "out of memory");
      return -1;
    }
}

/* Edge counters on the chords of a spanning tree: the other edges are derived by
   flow propagation.  */
static int
read_edge_counts (report_function *f, const pp_unit_data *u,
		  const pp_mode_info *mode, char *err, size_t errlen)
{
  (void) mode;
  int32_t *counter_of_edge = pp_plan_counter_of_edge (&f->plan, f->notes->nedges);
  if (!counter_of_edge)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  int status = edge_counts_from_counters (f, u, counter_of_edge,
					  REPORT_EDGE_UNKNOWN, err, errlen);
  free (counter_of_edge);
  return status;
}

/* Vertex profiling with edge counters (Ball & Larus 1994, s3.3): the edges the
   counters determine get their counts, the others are not determined; the flow
   counts of figure 8 give every block's count (and line's) all the same.  */
static int
read_block_counts (report_function *f, const pp_unit_data *u,
		   const pp_mode_info *mode, char *err, size_t errlen)
{
  (void) mode;
  const pp_function_notes *fn = f->notes;
  int32_t *counter_of_edge = pp_plan_counter_of_edge (&f->plan, f->notes->nedges);
  f->flow_counts = calloc (fn->nedges ? fn->nedges : 1, sizeof *f->flow_counts);
  if (!counter_of_edge || !f->flow_counts)
    {
      free (counter_of_edge);
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  int status = edge_counts_from_counters (f, u, counter_of_edge,
					  REPORT_EDGE_UNMEASURED, err, errlen);
  if (status == 0)
    {
      const uint64_t *counters
	= fn->nvalues ? (const uint64_t *) u->values + fn->value_offset : NULL;
      int rc = pp_propagate_vertex_counts (&f->graph, counter_of_edge, counters,
					   f->flow_counts);
      if (rc)
	{
	  snprintf (err, errlen, rc < 0 ? "out of memory"
		    : "the counters contradict the control-flow graph "
		    "(stale or corrupted profile)");
	  status = -1;
	}
    }
  free (counter_of_edge);
  return status;
}

static uint8_t
coverage_of (bool covered)
{
  return covered ? REPORT_COVERED : REPORT_NOT_COVERED;
}

static int
coverage_error (int rc, char *err, size_t errlen)
{
  if (rc == PP_COVERAGE_NOMEM)
    snprintf (err, errlen, "out of memory");
  else
    snprintf (err, errlen, "the probes do not fit the control-flow graph "
	      "(stale or corrupted profile)");
  return -1;
}

/* Marks the blocks whose coverage the mode's probes do not determine: in
   block-cover those without lines that no line's block needs
   (pp_plan_coverage_of), with edge probes those no set of edge probes
   determines (and in block-cover those without lines the edge probes
   skip).  */
static int
find_inexact_blocks (report_function *f, const pp_mode_info *info,
		     enum pp_coverage_mode mode, char *err, size_t errlen)
{
  pp_coverage_plan plan;
  int rc = pp_plan_coverage_of (&f->graph, pp_mode_shown_blocks (info) ? f->notes
				: NULL, mode, NULL, &plan);
  if (rc)
    return coverage_error (rc, err, errlen);
  for (uint32_t i = 0; i < plan.ninexact; i++)
    f->block_inexact[plan.inexact[i]] = true;
  pp_coverage_plan_free (&plan);
  return 0;
}

static void coverage_from_counts (report_function *f);

/* A coverage mode's function that counts its edges: the counts by flow, as
   edge-counts derives them, then what is covered (no block is inexact).  */
static int
read_counted_coverage (report_function *f, const pp_unit_data *u,
		       const pp_mode_info *info, char *err, size_t errlen)
{
  const pp_function_notes *fn = f->notes;
  size_t nedges = fn->nedges ? fn->nedges : 1;
  int32_t *counter_of_edge = pp_plan_counter_of_edge (&f->plan, fn->nedges);
  f->edge_counts = calloc (nedges, sizeof *f->edge_counts);
  f->edge_source = calloc (nedges, sizeof *f->edge_source);
  f->block_counts = calloc (fn->nblocks, sizeof *f->block_counts);
  int status = -1;
  if (!counter_of_edge || !f->edge_counts || !f->edge_source || !f->block_counts)
    snprintf (err, errlen, "out of memory");
  else
    status = edge_counts_from_counters (f, u, counter_of_edge,
					REPORT_EDGE_UNKNOWN, err, errlen);
  free (counter_of_edge);
  if (status == 0)
    {
      for (uint32_t v = 0; v < fn->nblocks; v++)
	f->block_counts[v] = line_counts_node_count (&f->graph, f->edge_counts, v);
      coverage_from_counts (f);
      /* What the mode reports, as with coverage bytes.  */
      for (uint32_t e = 0; e < fn->nedges; e++)
	if (!info->edges_determined || (f->graph.edges[e].flags & PP_EDGE_PINNED))
	  f->edge_coverage[e] = REPORT_NOT_DETERMINED;
    }
  /* A coverage profile reports no counts.  */
  free (f->edge_counts);
  free (f->edge_source);
  free (f->block_counts);
  f->edge_counts = NULL;
  f->edge_source = NULL;
  f->block_counts = NULL;
  return status;
}

/* One-byte probes, 1 when reached: block probes (block-cover) or edge probes (the
   other coverage modes).  Every block's coverage is inferred; in edge-cover every
   probe-able edge's too, and the blocks' from the same edge probes.  */
static int
read_coverage (report_function *f, const pp_unit_data *u,
	       const pp_mode_info *info, char *err, size_t errlen)
{
  const pp_function_notes *fn = f->notes;
  const pp_graph *g = &f->graph;
  /* A function counts its edges where that costs less (pp_plan_coverage).  */
  if (f->plan.nprobes && f->plan.probes[0].action == PP_PROBE_COUNT)
    return read_counted_coverage (f, u, info, err, errlen);
  /* Block-cover's probes are on the function's blocks, or on its edges
     (pp_plan_coverage): pp_plan_from_notes refused a mix.  */
  bool block_probes = f->plan.nprobes ? f->plan.probes[0].site == PP_SITE_BLOCK
		      : (info->value_sites & PP_SITES (PP_SITE_BLOCK)) != 0;
  size_t nvalues = fn->nvalues ? fn->nvalues : 1;
  size_t nids = fn->nblocks > fn->nedges ? fn->nblocks : fn->nedges;
  uint32_t *probes = malloc (nvalues * sizeof *probes);
  bool *hit = malloc (nvalues * sizeof *hit);
  bool *covered = malloc ((nids ? nids : 1) * sizeof *covered);
  int status = -1;
  if (!probes || !hit || !covered)
    {
      snprintf (err, errlen, "out of memory");
      goto out;
    }
  /* pp_plan_from_notes checked that each value has exactly one probe, at the
     mode's site.  */
  /* Coverage bytes, or counters of 0 or 1 (of runs) in a unit where
     functions count.  */
  for (uint32_t i = 0; i < f->plan.nprobes; i++)
    {
      const pp_probe *p = &f->plan.probes[i];
      uint32_t k = fn->value_offset + p->index;
      probes[p->index] = p->where;
      hit[p->index] = u->value_kind == PP_VALUES_U8
		      ? ((const uint8_t *) u->values)[k] != 0
		      : ((const uint64_t *) u->values)[k] != 0;
    }

  if (info->edges_determined)
    {
      int rc = pp_coverage_infer (g, PP_COVER_EDGES, probes, fn->nvalues, hit,
				  covered);
      if (rc)
	{
	  coverage_error (rc, err, errlen);
	  goto out;
	}
      for (uint32_t e = 0; e < fn->nedges; e++)
	f->edge_coverage[e] = g->edges[e].flags & PP_EDGE_PINNED
			      ? REPORT_NOT_DETERMINED : coverage_of (covered[e]);
    }
  /* Edge probes that tell every probe-able edge's coverage tell every block's
     that any edge probes can tell.  */
  int rc = pp_coverage_infer (g, block_probes ? PP_COVER_BLOCKS
			      : PP_COVER_BLOCKS_BY_EDGES,
			      probes, fn->nvalues, hit, covered);
  if (rc)
    {
      coverage_error (rc, err, errlen);
      goto out;
    }
  for (uint32_t v = 0; v < fn->nblocks; v++)
    if (v != g->entry && v != g->exit)
      f->block_coverage[v] = coverage_of (covered[v]);
  status = find_inexact_blocks (f, info, block_probes ? PP_COVER_BLOCKS
			       : PP_COVER_BLOCKS_BY_EDGES, err, errlen);

out:
  free (probes);
  free (hit);
  free (covered);
  return status;
}

/* The coverage that counts imply.  A fake leave's count is negative when calls
   returned more often than they were made (a forked child).  */
static void
coverage_from_counts (report_function *f)
{
  const pp_graph *g = &f->graph;
  for (uint32_t v = 0; v < g->nnodes; v++)
    if (v != g->entry && v != g->exit)
      f->block_coverage[v] = coverage_of (f->block_counts[v] != 0);
  for (uint32_t e = 0; e < g->nedges; e++)
    {
      uint64_t count = f->edge_counts[e];
      if (f->edge_source[e] == REPORT_EDGE_UNKNOWN
	  || f->edge_source[e] == REPORT_EDGE_UNMEASURED)
	f->edge_coverage[e] = REPORT_NOT_DETERMINED;
      else if (g->edges[e].flags & PP_EDGE_FAKE)
	f->edge_coverage[e] = coverage_of ((int64_t) count > 0);
      else
	f->edge_coverage[e] = coverage_of (count != 0);
    }
}

int
report_decode_unit (const pp_unit_data *u, pp_unit_notes *notes, char *err,
		    size_t errlen)
{
  char why[256];
  if (pp_notes_decode (u->notes, u->notes_len, notes, why, sizeof why))
    {
      snprintf (err, errlen, "unit '%s': %s", u->name, why);
      return -1;
    }
  if (pp_notes_check_values (notes, u->nvalues, why, sizeof why))
    {
      snprintf (err, errlen, "unit '%s': %s", u->name, why);
      pp_notes_free (notes);
      return -1;
    }
  return 0;
}

static void finish_counts (report_function *f, const pp_mode_info *mode);

static int
load_function (report_function *f, const pp_function_notes *fn,
	       const pp_unit_data *u, const pp_mode_info *mode,
	       mode_reader_fn reader, char *err, size_t errlen)
{
  if (pp_notes_function_graph (fn, &f->graph))
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  f->notes = fn;
  if (pp_plan_from_notes (fn, mode, &f->plan, err, errlen))
    return -1;
  size_t nedges = fn->nedges ? fn->nedges : 1;
  f->block_coverage = calloc (fn->nblocks, sizeof *f->block_coverage);
  f->edge_coverage = calloc (nedges, sizeof *f->edge_coverage);
  f->block_inexact = calloc (fn->nblocks, sizeof *f->block_inexact);
  if (mode->counts)
    {
      f->edge_counts = calloc (nedges, sizeof *f->edge_counts);
      f->edge_source = calloc (nedges, sizeof *f->edge_source);
      f->block_counts = calloc (fn->nblocks, sizeof *f->block_counts);
    }
  if (!f->block_coverage || !f->edge_coverage || !f->block_inexact
      || (mode->counts
	  && (!f->edge_counts || !f->edge_source || !f->block_counts)))
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  if (reader (f, u, mode, err, errlen))
    return -1;
  finish_counts (f, mode);
  return 0;
}

/* Block counts, calls and coverage from the edge counts (again after the
   interprocedural mode's program records added theirs).  */
static void
finish_counts (report_function *f, const pp_mode_info *mode)
{
  const pp_graph *g = &f->graph;
  const pp_function_notes *fn = f->notes;
  f->calls = 0;
  if (mode->counts)
    {
      for (uint32_t v = 0; v < fn->nblocks; v++)
	f->block_counts[v] = f->flow_counts
			     ? line_counts_node_flow (g, f->flow_counts, v)
			     : line_counts_node_count (g, f->edge_counts, v);
      for (uint32_t i = g->succ_start[g->entry];
	   i < g->succ_start[g->entry + 1]; i++)
	{
	  uint32_t e = g->succ_edges[i];
	  if (!(g->edges[e].flags & PP_EDGE_FAKE))
	    f->calls = pp_sat_add (f->calls, f->edge_counts[e]);
	}
      coverage_from_counts (f);
    }
  for (uint32_t i = g->succ_start[g->entry]; i < g->succ_start[g->entry + 1];
       i++)
    {
      const pp_edge *e = &g->edges[g->succ_edges[i]];
      if (!(e->flags & PP_EDGE_FAKE)
	  && f->block_coverage[e->dst] == REPORT_COVERED)
	f->called = true;
    }
}

static int
load_unit (report_unit *ru, const pp_unit_data *u, char *err, size_t errlen)
{
  char why[256];
  ru->data = u;
  if (report_decode_unit (u, &ru->notes, err, errlen))
    return -1;
  const pp_mode_info *mode = pp_mode_lookup (ru->notes.mode);
  mode_reader_fn reader = mode ? mode_readers[mode->family] : NULL;
  if (!reader)
    {
      snprintf (err, errlen, "unit '%s': mode '%s' cannot be reported by this "
		"version of pathprof", u->name,
		pp_mode_name (ru->notes.mode));
      return -1;
    }
  if (!pp_mode_value_kind_ok (mode, u->value_kind))
    {
      snprintf (err, errlen, "unit '%s': mode '%s' with values of the wrong "
		"kind (%" PRIu32 ")", u->name,
		pp_mode_name (ru->notes.mode), u->value_kind);
      return -1;
    }
  ru->mode = mode;
  ru->counts = mode->counts;
  ru->edges_determined = mode->edges_determined;
  ru->functions = calloc (ru->notes.nfunctions ? ru->notes.nfunctions : 1,
			  sizeof *ru->functions);
  if (!ru->functions)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  for (uint32_t i = 0; i < ru->notes.nfunctions; i++)
    ru->functions[i].index = i;
  for (uint32_t i = 0; i < ru->notes.nfunctions; i++)
    if (load_function (&ru->functions[i], &ru->notes.functions[i], u, mode,
		       reader, why, sizeof why))
      {
	snprintf (err, errlen, "unit '%s': function '%s': %s", u->name,
		  ru->notes.functions[i].name, why);
	return -1;
      }
  return 0;
}

int
report_load (report *r, const char *path, char *err, size_t errlen)
{
  memset (r, 0, sizeof *r);
  if (trace_file_is_trace (path))
    {
      /* A trace: the edge counts of its regeneration.  */
      trace_file t;
      if (trace_file_read (path, &t, err, errlen))
	return -1;
      int rc = trace_file_to_profile (&t, &r->profile, err, errlen);
      trace_file_free (&t);
      if (rc)
	return -1;
    }
  else if (pp_profile_read_file (path, &r->profile, NULL, err, errlen))
    return -1;
  r->units = calloc (r->profile.nunits ? r->profile.nunits : 1,
		     sizeof *r->units);
  if (!r->units)
    {
      snprintf (err, errlen, "out of memory");
      report_free (r);
      return -1;
    }
  uint32_t nprograms = 0;
  for (uint32_t i = 0; i < r->profile.nunits; i++)
    {
      if (report_is_program (&r->profile.units[i]))
	{
	  nprograms++;
	  continue;
	}
      /* Counted first so that report_free releases a partly loaded unit.  */
      if (load_unit (&r->units[r->nunits++], &r->profile.units[i], err, errlen))
	{
	  report_free (r);
	  return -1;
	}
    }
  r->programs = calloc (nprograms + 1, sizeof *r->programs);
  if (!r->programs)
    {
      snprintf (err, errlen, "out of memory");
      report_free (r);
      return -1;
    }
  for (uint32_t i = 0; i < r->profile.nunits; i++)
    if (report_is_program (&r->profile.units[i]))
      {
	report_program *p = &r->programs[r->nprograms++];
	p->data = &r->profile.units[i];
	if (report_program_load (p, r, err, errlen))
	  {
	    report_free (r);
	    return -1;
	  }
      }
  /* The interprocedural units' counts are in now: what follows from them,
     and EXIT -> ENTRY, which no path takes, by flow conservation.  */
  for (uint32_t i = 0; i < r->nunits; i++)
    if (r->units[i].mode->calls)
      for (uint32_t j = 0; j < r->units[i].notes.nfunctions; j++)
	{
	  report_function *f = &r->units[i].functions[j];
	  const pp_graph *g = &f->graph;
	  if (!r->units[i].numbered)
	    {
	      /* No run could number its paths (the run said why).  */
	      for (uint32_t e = 0; e < g->nedges; e++)
		f->edge_source[e] = REPORT_EDGE_UNKNOWN;
	      f->unknown_edges = g->nedges;
	    }
	  uint64_t entries = 0;
	  for (uint32_t k = g->succ_start[g->entry]; k < g->succ_start[g->entry + 1]; k++)
	    entries = pp_sat_add (entries, f->edge_counts[g->succ_edges[k]]);
	  for (uint32_t e = 0; e < g->nedges; e++)
	    if (g->edges[e].flags & PP_EDGE_EXIT_ENTRY)
	      f->edge_counts[e] = entries;
	  finish_counts (f, r->units[i].mode);
	}
  return 0;
}

void
report_free (report *r)
{
  for (uint32_t i = 0; i < r->nunits; i++)
    {
      report_unit *ru = &r->units[i];
      if (ru->functions)
	for (uint32_t j = 0; j < ru->notes.nfunctions; j++)
	  {
	    report_function *f = &ru->functions[j];
	    if (f->notes)
	      pp_graph_free (&f->graph);
	    pp_plan_free (&f->plan);
	    free (f->edge_counts);
	    free (f->edge_source);
	    free (f->block_counts);
	    free (f->flow_counts);
	    free (f->block_coverage);
	    free (f->edge_coverage);
	    free (f->block_inexact);
	  }
      free (ru->functions);
      pp_notes_free (&ru->notes);
    }
  for (uint32_t i = 0; i < r->nprograms; i++)
    report_program_free (&r->programs[i]);
  free (r->programs);
  free (r->units);
  pp_profile_free (&r->profile);
  memset (r, 0, sizeof *r);
}

bool
report_function_selected (const report_function *f, const char *name)
{
  return !name || strcmp (f->notes->name, name) == 0
	 || strcmp (f->notes->asm_name, name) == 0;
}

/* path without "." components, repeated slashes and "dir/.." pairs, so that one file
   reached by different spellings (#include "./x.c") is one source, as in gcov.
   Returns a malloc'd string, or NULL.  */
static char *
canonical_path (const char *path)
{
  size_t len = strlen (path);
  char *out = malloc (len + 2);
  if (!out)
    return NULL;
  bool absolute = path[0] == '/';
  size_t n = 0;			/* length of out */
  size_t kept = 0;		/* components in out that a ".." may remove */
  for (const char *p = path; *p;)
    {
      size_t c = strcspn (p, "/");
      if ((c == 1 && p[0] == '.') || c == 0)
	;
      else if (c == 2 && p[0] == '.' && p[1] == '.' && (kept || absolute))
	{
	  if (kept)
	    {
	      while (n > 0 && out[n - 1] != '/')
		n--;
	      if (n > 0)
		n--;
	      kept--;
	    }
	}
      else
	{
	  if (n > 0 || absolute)
	    out[n++] = '/';
	  memcpy (out + n, p, c);
	  n += c;
	  kept += !(c == 2 && p[0] == '.' && p[1] == '.');
	}
      p += c + (p[c] == '/');
    }
  if (n == 0)
    out[n++] = absolute ? '/' : '.';
  out[n] = '\0';
  return out;
}

/* Adds the lines of the selected functions of ru, whose files are sources map[].  */
static int
add_unit_lines (report_lines *rl, const report_unit *ru, const uint32_t *map,
		const char *function_name)
{
  uint32_t n = ru->notes.nfunctions;
  /* Which blocks ran, per function of a coverage unit, until the commit.  */
  bool **ran = calloc (n ? n : 1, sizeof *ran);
  int status = ran ? 0 : -1;
  for (uint32_t i = 0; i < n && status == 0; i++)
    {
      const report_function *f = &ru->functions[i];
      if (!report_function_selected (f, function_name))
	continue;
      if (ru->counts)
	{
	  status = f->flow_counts
		   ? line_counts_add_flow_function (&rl->lc, &f->graph,
						    f->flow_counts,
						    f->notes->blocks, map)
		   : line_counts_add_function (&rl->lc, &f->graph,
					       f->edge_counts, f->notes->blocks,
					       map);
	  continue;
	}
      ran[i] = malloc (f->graph.nnodes * sizeof **ran);
      if (!ran[i])
	{
	  status = -1;
	  break;
	}
      for (uint32_t v = 0; v < f->graph.nnodes; v++)
	ran[i][v] = f->block_coverage[v] == REPORT_COVERED;
      status = line_counts_add_covered_function (&rl->lc, &f->graph, ran[i],
						 f->notes->blocks, map);
    }
  if (status == 0)
    status = line_counts_commit (&rl->lc);
  for (uint32_t i = 0; ran && i < n; i++)
    free (ran[i]);
  free (ran);
  return status;
}

int
report_lines_compute (report_lines *rl, const report *r,
		      const char *function_name)
{
  line_counts_init (&rl->lc);
  rl->nunits = 0;
  rl->source_of_file = calloc (r->nunits ? r->nunits : 1,
			       sizeof *rl->source_of_file);
  if (!rl->source_of_file)
    return -1;
  rl->nunits = r->nunits;
  for (uint32_t u = 0; u < r->nunits; u++)
    {
      const report_unit *ru = &r->units[u];
      uint32_t *map = calloc (ru->notes.nfiles ? ru->notes.nfiles : 1,
			      sizeof *map);
      if (!map)
	return -1;
      rl->source_of_file[u] = map;
      for (uint32_t i = 0; i < ru->notes.nfiles; i++)
	{
	  char *path = canonical_path (ru->notes.files[i]);
	  int rc = path ? line_counts_source (&rl->lc, path, &map[i]) : -1;
	  free (path);
	  if (rc)
	    return -1;
	}
      if (add_unit_lines (rl, ru, map, function_name))
	return -1;
    }
  return 0;
}

void
report_lines_free (report_lines *rl)
{
  for (uint32_t u = 0; u < rl->nunits; u++)
    free (rl->source_of_file[u]);
  free (rl->source_of_file);
  line_counts_free (&rl->lc);
  memset (rl, 0, sizeof *rl);
}
