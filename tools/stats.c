/* pathprof stats: how much instrumentation each function, unit and the whole
   profile carries: blocks, edges, probes or counters, and probes per block and
   per edge; in the counter modes (edge-counts, block-counts) how many counter
   increments the recorded runs made.  In the paths mode also each function's
   number of paths, and per unit the work its probes did in the recorded runs
   next to what Ball and Larus' simple placement would have done
   (path-counts.h, path_probe_work).  A trace file gets the trace mode's
   table: each function's witnesses (not the edge counts that show and lcov
   read from it), then its threads and the size of what they recorded.  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "path-counts.h"
#include "trace-file.h"

struct totals
{
  uint64_t blocks, edges, values;
  uint64_t probes;		/* paths mode: edges with a probe */
  uint64_t paths;		/* paths mode: potential paths (saturating) */
  /* Paths modes: functions counting their paths in a counter array, their
     interesting paths in preferential slots (ppp, residual), all in a table.  */
  uint64_t in_arrays, in_slots, in_tables;
  uint64_t table_counts;	/* paths counted in hash tables (sparse counts) */
  uint64_t increments;		/* counter modes: the sum of the counters, what
				   the recorded runs paid */
  path_probe_work work;		/* paths mode */
};

/* Blocks without ENTRY and EXIT, edges without the fake and closing ones: what
   the program's code has.  */
static struct totals
code_totals (const pp_function_notes *fn)
{
  struct totals t = { .blocks = fn->nblocks >= 2 ? fn->nblocks - 2 : 0 };
  for (uint32_t e = 0; e < fn->nedges; e++)
    if (!(fn->edges[e].flags & (PP_EDGE_FAKE | PP_EDGE_EXIT_ENTRY)))
      t.edges++;
  return t;
}

/* The code, its values, and the probes' sites (several probes of one site, a
   path count and a register update, are one probe of the table).  */
static struct totals
function_totals (const report_function *f)
{
  const pp_function_notes *fn = f->notes;
  struct totals t = code_totals (fn);
  t.values = fn->nvalues;
  for (uint32_t i = 0; i < f->plan.nprobes; i++)
    {
      const pp_probe *p = &f->plan.probes[i];
      t.probes += i == 0 || p->site != p[-1].site || p->where != p[-1].where;
    }
  return t;
}

static void
add_totals (struct totals *sum, const struct totals *t)
{
  sum->blocks += t->blocks;
  sum->edges += t->edges;
  sum->values += t->values;
  sum->probes += t->probes;
  sum->paths = pp_sat_add (sum->paths, t->paths);
  sum->in_arrays += t->in_arrays;
  sum->in_slots += t->in_slots;
  sum->table_counts = pp_sat_add (sum->table_counts, t->table_counts);
  sum->increments = pp_sat_add (sum->increments, t->increments);
  sum->in_tables += t->in_tables;
  sum->work.paths = pp_sat_add (sum->work.paths, t->work.paths);
  sum->work.counts = pp_sat_add (sum->work.counts, t->work.counts);
  sum->work.updates = pp_sat_add (sum->work.updates, t->work.updates);
  sum->work.simple_updates = pp_sat_add (sum->work.simple_updates,
					 t->work.simple_updates);
}

enum table_kind
{
  TABLE_VALUES,			/* one column of counters, probes or values */
  TABLE_PATHS,			/* probes, counters and paths */
  TABLE_SITES,			/* one column of probe sites (no values: the
				   interprocedural mode) */
};

static enum table_kind
table_kind_of (const pp_mode_info *mode)
{
  return pp_mode_counts_paths (mode) ? TABLE_PATHS
	 : pp_probe_has_value_index ((uint8_t) mode->value_action) ? TABLE_VALUES
	 : TABLE_SITES;
}

/* What the values column of a mode's table counts.  */
static const char *
values_name (const pp_mode_info *mode)
{
  return mode->value_action == PP_PROBE_COUNT ? "counters" : "probes";
}

static void
print_header (enum table_kind kind, const char *values)
{
  if (kind == TABLE_PATHS)
    printf ("%10s %10s %10s %10s %10s %10s %20s  %s\n", "blocks", "edges",
	    "probes", "per block", "per edge", "counters", "paths", "function");
  else
    printf ("%10s %10s %10s %10s %10s  %s\n", "blocks", "edges", values,
	    "per block", "per edge", "function");
}

static void
print_percent (uint64_t part, uint64_t whole)
{
  if (whole == 0)
    printf (" %10s", "-");
  else
    printf (" %9.1f%%", 100.0 * (double) part / (double) whole);
}

static void
print_row (enum table_kind kind, const struct totals *t, const char *what)
{
  uint64_t probes = kind == TABLE_VALUES ? t->values : t->probes;
  printf ("%10" PRIu64 " %10" PRIu64 " %10" PRIu64, t->blocks, t->edges, probes);
  print_percent (probes, t->blocks);
  print_percent (probes, t->edges);
  if (kind == TABLE_PATHS)
    printf (" %10" PRIu64 " %20" PRIu64, t->values, t->paths);
  printf ("  %s\n", what);
}

static void
print_per_path (uint64_t n, uint64_t paths)
{
  if (paths)
    printf (" (%.2f per path)", (double) n / (double) paths);
}

/* The path tables and the dynamic work of a paths-mode unit or total.  */
static void
print_work (const char *indent, const struct totals *t)
{
  const path_probe_work *w = &t->work;
  printf ("%sfunctions: %" PRIu64 " count their paths in counter arrays, %"
	  PRIu64 " in hash tables", indent, t->in_arrays, t->in_tables);
  if (t->in_slots)
    printf (", %" PRIu64 " their interesting paths in preferential slots and the "
	    "others in hash tables", t->in_slots);
  putchar ('\n');
  printf ("%sran %" PRIu64 " path%s: %" PRIu64 " path counts and %" PRIu64
	  " register updates", indent, w->paths, w->paths == 1 ? "" : "s",
	  w->counts, w->updates);
  print_per_path (w->updates, w->paths);
  printf ("; the simple placement: %" PRIu64 " register updates",
	  w->simple_updates);
  print_per_path (w->simple_updates, w->paths);
  putchar ('\n');
  printf ("%spath ends counted in hash tables: %" PRIu64 " of %" PRIu64, indent,
	  t->table_counts, w->paths);
  if (w->paths)
    printf (" (%.1f%%)", 100.0 * (double) t->table_counts / (double) w->paths);
  putchar ('\n');
}

/* What a counter mode's counters did in the recorded runs.  */
static void
print_increments (const char *indent, const struct totals *t)
{
  printf ("%sran %" PRIu64 " counter increment%s\n", indent, t->increments,
	  t->increments == 1 ? "" : "s");
}

/* The statistics of one function: from its notes, and for the paths mode from
   its numbering and recorded paths.  */
static int
function_stats (const report_unit *ru, const report_function *f,
		struct totals *t, char *err, size_t errlen)
{
  *t = function_totals (f);
  if (ru->mode->value_action == PP_PROBE_COUNT)
    {
      const uint64_t *values = (const uint64_t *) ru->data->values
			       + f->notes->value_offset;
      for (uint32_t v = 0; v < f->notes->nvalues; v++)
	t->increments = pp_sat_add (t->increments, values[v]);
    }
  if (!pp_mode_counts_paths (ru->mode))
    return 0;
  function_paths fp;
  int rc = function_paths_load (&fp, f, ru->data, err, errlen);
  if (rc == 0)
    {
      t->paths = fp.numbering->npaths;
      t->in_slots = f->notes->nkeys != 0;
      t->in_arrays = f->notes->nvalues != 0 && !t->in_slots;
      t->in_tables = f->notes->nvalues == 0;
      for (uint32_t i = 0; i < ru->data->nsparse; i++)
	if (ru->data->sparse[i].function == f->index)
	  t->table_counts = pp_sat_add (t->table_counts, ru->data->sparse[i].count);
      rc = function_path_work (f, &fp, &t->work, err, errlen);
    }
  function_paths_free (&fp);
  return rc;
}

static int
trace_stats (const char *path)
{
  trace_file t;
  char err[512];
  if (trace_file_read (path, &t, err, sizeof err))
    {
      tool_error (path, "%s", err);
      return EXIT_FAILURE;
    }
  struct totals total = { 0 };
  for (uint32_t u = 0; u < t.nunits; u++)
    {
      const trace_unit *tu = &t.units[u];
      printf ("%sunit %s: mode trace\n", u ? "\n" : "", tu->name);
      print_header (TABLE_VALUES, "witnesses");
      struct totals unit = { 0 };
      for (uint32_t f = 0; f < tu->notes.nfunctions; f++)
	{
	  struct totals ft = code_totals (&tu->notes.functions[f]);
	  ft.values = tu->functions[f].nwitness;
	  print_row (TABLE_VALUES, &ft, tu->notes.functions[f].name);
	  add_totals (&unit, &ft);
	}
      print_row (TABLE_VALUES, &unit, "(unit)");
      add_totals (&total, &unit);
    }
  uint64_t bits = 0;
  for (uint32_t i = 0; i < t.nthreads; i++)
    bits += t.threads[i].nbits;
  printf ("%stotal: %" PRIu32 " unit%s, mode trace\n", t.nunits ? "\n" : "",
	  t.nunits, t.nunits == 1 ? "" : "s");
  print_header (TABLE_VALUES, "witnesses");
  print_row (TABLE_VALUES, &total, "(total)");
  /* A packed file's records are its threads' raw bits (as pathprof trace's
     last line counts them); what they take there is said after.  */
  printf ("  %" PRIu32 " thread%s recorded %" PRIu64 " bytes of trace",
	  t.nthreads, t.nthreads == 1 ? "" : "s", (bits + 7) / 8);
  if (t.packed_bytes)
    printf (", packed into %" PRIu64 " bytes", t.packed_bytes);
  putchar ('\n');
  trace_file_free (&t);
  return EXIT_SUCCESS;
}

int
stats_command (int argc, char **argv)
{
  const char *path;
  int parsed = tool_file_arguments (argc, argv, NULL, "profile file", &path);
  if (parsed >= 0)
    return parsed;
  if (trace_file_is_trace (path))
    return trace_stats (path);

  report r;
  if (tool_load_report (&r, path, false))
    return EXIT_FAILURE;
  struct totals total = { 0 };
  uint32_t first_mode = 0;
  bool one_mode = true;
  int status = EXIT_SUCCESS;
  for (uint32_t u = 0; u < r.nunits && status == EXIT_SUCCESS; u++)
    {
      const report_unit *ru = &r.units[u];
      uint32_t mode = ru->notes.mode;
      enum table_kind kind = table_kind_of (ru->mode);
      if (u == 0)
	first_mode = mode;
      one_mode &= mode == first_mode;
      printf ("%sunit %s: mode %s\n", u ? "\n" : "", ru->data->name,
	      pp_mode_name (mode));
      print_header (kind, values_name (ru->mode));
      struct totals unit = { 0 };
      for (uint32_t i = 0; i < ru->notes.nfunctions; i++)
	{
	  const report_function *f = &ru->functions[i];
	  char err[512];
	  struct totals t;
	  if (function_stats (ru, f, &t, err, sizeof err))
	    {
	      tool_error (path, "unit %s, function %s: %s", ru->data->name,
			  f->notes->name, err);
	      status = EXIT_FAILURE;
	      break;
	    }
	  print_row (kind, &t, f->notes->name);
	  add_totals (&unit, &t);
	}
      if (status != EXIT_SUCCESS)
	break;
      print_row (kind, &unit, "(unit)");
      if (kind == TABLE_PATHS)
	print_work ("  ", &unit);
      else if (ru->mode->value_action == PP_PROBE_COUNT)
	print_increments ("  ", &unit);
      add_totals (&total, &unit);
    }
  if (status == EXIT_SUCCESS)
    {
      printf ("%stotal: %" PRIu32 " unit%s, ", r.nunits ? "\n" : "", r.nunits,
	      r.nunits == 1 ? "" : "s");
      if (r.nunits == 0)
	puts ("no mode");
      else if (one_mode)
	printf ("mode %s\n", pp_mode_name (first_mode));
      else
	puts ("several modes");
      bool paths = r.nunits && one_mode && pp_mode_counts_paths (r.units[0].mode);
      enum table_kind kind = r.nunits && one_mode ? table_kind_of (r.units[0].mode)
			     : TABLE_VALUES;
      print_header (kind, !r.nunits || !one_mode ? "values"
			  : values_name (r.units[0].mode));
      print_row (kind, &total, "(total)");
      if (paths)
	print_work ("  ", &total);
      else if (r.nunits && one_mode
	       && r.units[0].mode->value_action == PP_PROBE_COUNT)
	print_increments ("  ", &total);
    }
  report_free (&r);
  return status;
}
