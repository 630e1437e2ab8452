/* pathprof residual: the paths a field run took that the tests never did (the
   residual mode, built from a paths profile of the test suite), per function
   with their counts, blocks and source lines, then the summary of the thesis'
   table 3.1:

     untested paths            executed paths not among the tested ones, and
                               their share of the executed paths
     untested path executions  how often they ran, share of path executions
     functions                 functions with an untested path
     untested edges            edges an untested path took that no tested
                               path contains
     paths without new edges   untested paths in functions with no untested
                               edge: new only as combinations of tested edges

   and last "N untested paths in M functions".  The segments a run of
   interproc-residual took that its segments profile never did count the same
   way, per root function, the edges those of its supergraph (segments.h).  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "ip-counts.h"

struct residual_totals
{
  uint64_t executed, untested;		/* distinct paths */
  uint64_t executions, untested_executions;
  uint64_t functions, untested_edges, without_new_edges;
};

/* Marks the edges of path NUMBER (and the cut it ends on) in ON.  */
static void
mark_edges (const pp_paths *p, uint64_t number, uint32_t *edges, bool *on)
{
  pp_path path = { .edges = edges };
  if (pp_paths_decode (p, number, &path) != PP_PATHS_OK)
    return;
  for (uint32_t k = 0; k < path.nedges; k++)
    on[path.edges[k]] = true;
  if (path.end_edge != PP_PATH_NONE)
    on[path.end_edge] = true;
}

/* A function (or root) with UNTESTED paths, whose edges TAKEN and TESTED
   marked, to the totals.  */
static void
add_untested (struct residual_totals *t, uint64_t untested, const bool *taken,
	      const bool *tested, uint32_t nedges)
{
  uint64_t new_edges = 0;
  for (uint32_t e = 0; e < nedges; e++)
    new_edges += taken[e] && !tested[e];
  t->untested += untested;
  t->functions++;
  t->untested_edges += new_edges;
  if (new_edges == 0)
    t->without_new_edges += untested;
}

static bool
is_residual (const report_unit *ru)
{
  return ru->mode->untested && !ru->mode->calls;
}

/* Marks the S edges of segment NUMBER of root R in ON.  */
static void
mark_segment (const report_root *R, uint64_t number, uint32_t *edges, bool *on)
{
  if (number < R->paths->npaths)
    mark_edges (R->paths, number, edges, on);
}

static int
by_root_hottest (const void *a, const void *b)
{
  const uint64_t *x = *(const uint64_t *const *) a, *y = *(const uint64_t *const *) b;
  if (x[1] != y[1])
    return x[1] < y[1] ? -1 : 1;
  if (x[2] != y[2])
    return x[2] > y[2] ? -1 : 1;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The untested segments of root ROOT, whose counts are BY[0 .. n).  */
static int
residual_root (report_program *p, uint32_t root, const uint64_t *const *by,
	       uint32_t n, struct residual_totals *t)
{
  const report_unit *ru;
  const report_function *f = report_program_function (p, root, &ru);
  const pp_function_notes *fn = f->notes;
  const report_root *R = report_program_root (p, root);
  if (!R)
    return -1;
  uint32_t nedges = R->s.g.nedges;
  uint32_t *edges = malloc ((R->paths->max_path_edges + 1) * sizeof *edges);
  bool *tested = calloc (nedges + 1, sizeof *tested);
  bool *taken = calloc (nedges + 1, sizeof *taken);
  int status = edges && tested && taken ? 0 : -1;
  uint64_t untested = 0;
  for (uint32_t i = 0; status == 0 && i < fn->ninteresting; i++)
    mark_segment (R, fn->interesting[i], edges, tested);
  for (uint32_t i = 0; status == 0 && i < n; i++)
    {
      t->executed++;
      t->executions = pp_sat_add (t->executions, by[i][2]);
      if (pp_notes_interesting (fn, by[i][0]))
	continue;
      if (untested++ == 0)
	printf ("function %s at %s:%" PRIu32 "\n", fn->name,
		ru->notes.files[fn->decl_file], fn->decl_line);
      t->untested_executions = pp_sat_add (t->untested_executions, by[i][2]);
      mark_segment (R, by[i][0], edges, taken);
      status = ip_segment_print (p, root, by[i][0], by[i][2]);
    }
  if (status == 0 && untested)
    add_untested (t, untested, taken, tested, nedges);
  free (edges);
  free (tested);
  free (taken);
  return status;
}

/* Whether program P counts the segments of interproc-residual units.  */
static bool
residual_program (const report_program *p)
{
  return p->manifest.kind == PP_IP_SEGMENTS && p->manifest.nunits
	 && p->units[0]->mode->untested;
}

/* The untested segments of every program record of interproc-residual.  */
static int
residual_segments (report *r, const char *function_name,
		   struct residual_totals *t)
{
  int status = 0;
  for (uint32_t i = 0; i < r->nprograms && status == 0; i++)
    {
      report_program *p = &r->programs[i];
      const pp_unit_data *u = p->data;
      if (!residual_program (p))
	continue;
      const uint64_t **by = malloc ((u->nwide + 1) * sizeof *by);
      if (!by)
	return -1;
      for (uint32_t k = 0; k < u->nwide; k++)
	by[k] = u->wide + (size_t) k * 3;
      qsort (by, u->nwide, sizeof *by, by_root_hottest);
      for (uint32_t k = 0, j; k < u->nwide && status == 0; k = j)
	{
	  for (j = k; j < u->nwide && by[j][1] == by[k][1]; j++)
	    ;
	  const report_unit *ru;
	  const report_function *f = report_program_function (p, (uint32_t) by[k][1], &ru);
	  if (report_function_selected (f, function_name))
	    status = residual_root (p, (uint32_t) by[k][1], by + k, j - k, t);
	}
      free (by);
    }
  return status;
}

static int
residual_function (const report_unit *ru, const report_function *f, void *data,
		   char *err, size_t errlen)
{
  struct residual_totals *t = data;
  const pp_function_notes *fn = f->notes;
  function_paths fp;
  if (function_paths_load (&fp, f, ru->data, err, errlen))
    {
      function_paths_free (&fp);
      return -1;
    }
  const pp_paths *p = fp.numbering;
  uint32_t nedges = f->graph.nedges;
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  bool *tested = calloc (nedges + 1, sizeof *tested);
  bool *taken = calloc (nedges + 1, sizeof *taken);
  int status = edges && tested && taken ? 0 : -1;
  uint64_t untested = 0;
  for (uint32_t i = 0; status == 0 && i < fn->ninteresting; i++)
    mark_edges (p, fn->interesting[i], edges, tested);
  function_paths_sort_hottest (&fp);
  for (uint32_t i = 0; status == 0 && i < fp.nexecuted; i++)
    {
      const path_count *pc = &fp.executed[i];
      t->executed++;
      t->executions = pp_sat_add (t->executions, pc->count);
      if (pp_notes_interesting (f->notes, pc->path))
	continue;
      if (untested++ == 0)
	printf ("function %s at %s:%" PRIu32 "\n", fn->name,
		ru->notes.files[fn->decl_file], fn->decl_line);
      t->untested_executions = pp_sat_add (t->untested_executions, pc->count);
      mark_edges (p, pc->path, edges, taken);
      status = paths_print_path (ru, f, p, pc, "", edges);
    }
  if (status == 0 && untested)
    add_untested (t, untested, taken, tested, nedges);
  if (status)
    snprintf (err, errlen, "out of memory");
  free (edges);
  free (tested);
  free (taken);
  function_paths_free (&fp);
  return status;
}

static double
percent (uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

int
residual_command (int argc, char **argv)
{
  const char *function_name = NULL, *path;
  const tool_option options[] = {
    { .name = "function", .text = &function_name },
    { .name = NULL },
  };
  report r;
  int started = tool_open_report (argc, argv, options, false, &path, &r);
  if (started >= 0)
    return started;
  struct residual_totals t = { 0 };
  struct each_path_function walk = {
    .file = path, .function_name = function_name, .unit_wanted = is_residual,
    .mode_option = "residual", .each = residual_function, .data = &t,
  };
  bool segments = false, functions = false;
  for (uint32_t u = 0; u < r.nunits; u++)
    {
      segments |= r.units[u].mode->untested && r.units[u].mode->calls;
      functions |= is_residual (&r.units[u]);
    }
  int status = functions || !segments ? paths_each_function (&r, &walk) : 0;
  if (status == 0 && segments && residual_segments (&r, function_name, &t))
    {
      tool_error (path, "out of memory");
      status = -1;
    }
  if (status == 0)
    {
      printf ("%suntested paths: %" PRIu64 " of %" PRIu64 " executed (%.1f%%)\n",
	      t.untested ? "\n" : "", t.untested, t.executed,
	      percent (t.untested, t.executed));
      printf ("untested path executions: %" PRIu64 " of %" PRIu64 " (%.1f%%)\n",
	      t.untested_executions, t.executions,
	      percent (t.untested_executions, t.executions));
      printf ("functions with untested paths: %" PRIu64 "\n", t.functions);
      printf ("untested edges: %" PRIu64 "\n", t.untested_edges);
      printf ("untested paths in functions with no untested edge: %" PRIu64
	      " (%.1f%%)\n", t.without_new_edges,
	      percent (t.without_new_edges, t.untested));
      printf ("%" PRIu64 " untested path%s in %" PRIu64 " function%s\n",
	      t.untested, t.untested == 1 ? "" : "s", t.functions,
	      t.functions == 1 ? "" : "s");
    }
  report_free (&r);
  return status ? EXIT_FAILURE : EXIT_SUCCESS;
}
