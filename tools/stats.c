/* pathprof stats: how much instrumentation each function, unit and the whole
   profile carries: blocks, edges, probes or counters, and probes per block and per
   edge.  Only the notes are read, so every mode has statistics.  */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "report.h"

struct totals
{
  uint64_t blocks, edges, values;
};

/* Blocks without ENTRY and EXIT, edges without the fake and closing ones: what
   the program's code has.  */
static struct totals
function_totals (const pp_function_notes *fn)
{
  struct totals t = { fn->nblocks >= 2 ? fn->nblocks - 2 : 0, 0, fn->nvalues };
  for (uint32_t e = 0; e < fn->nedges; e++)
    if (!(fn->edges[e].flags & (PP_EDGE_FAKE | PP_EDGE_EXIT_ENTRY)))
      t.edges++;
  return t;
}

static void
add_totals (struct totals *sum, const struct totals *t)
{
  sum->blocks += t->blocks;
  sum->edges += t->edges;
  sum->values += t->values;
}

/* What a mode's values are called.  */
static const char *
values_name (uint32_t mode)
{
  return mode == PP_MODE_EDGE_COUNTS ? "counters" : "probes";
}

static void
print_header (const char *values)
{
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
print_row (const struct totals *t, const char *what)
{
  printf ("%10" PRIu64 " %10" PRIu64 " %10" PRIu64, t->blocks, t->edges,
	  t->values);
  print_percent (t->values, t->blocks);
  print_percent (t->values, t->edges);
  printf ("  %s\n", what);
}

int
stats_command (int argc, char **argv)
{
  const char *path;
  int parsed = tool_single_file_arguments (argc, argv, &path);
  if (parsed >= 0)
    return parsed;

  char err[512];
  pp_profile p;
  if (pp_profile_read_file (path, &p, NULL, err, sizeof err))
    {
      tool_error (path, "%s", err);
      return EXIT_FAILURE;
    }
  struct totals total = { 0, 0, 0 };
  uint32_t first_mode = 0;
  bool one_mode = true;
  int status = EXIT_SUCCESS;
  for (uint32_t u = 0; u < p.nunits && status == EXIT_SUCCESS; u++)
    {
      pp_unit_notes notes;
      if (report_decode_unit (&p.units[u], &notes, err, sizeof err))
	{
	  tool_error (path, "%s", err);
	  status = EXIT_FAILURE;
	  break;
	}
      if (u == 0)
	first_mode = notes.mode;
      one_mode &= notes.mode == first_mode;
      printf ("%sunit %s: mode %s\n", u ? "\n" : "", p.units[u].name,
	      pp_mode_name (notes.mode));
      print_header (values_name (notes.mode));
      struct totals unit = { 0, 0, 0 };
      for (uint32_t i = 0; i < notes.nfunctions; i++)
	{
	  struct totals t = function_totals (&notes.functions[i]);
	  print_row (&t, notes.functions[i].name);
	  add_totals (&unit, &t);
	}
      print_row (&unit, "(unit)");
      add_totals (&total, &unit);
      pp_notes_free (&notes);
    }
  if (status == EXIT_SUCCESS)
    {
      printf ("%stotal: %" PRIu32 " unit%s, ", p.nunits ? "\n" : "", p.nunits,
	      p.nunits == 1 ? "" : "s");
      if (p.nunits == 0)
	puts ("no mode");
      else if (one_mode)
	printf ("mode %s\n", pp_mode_name (first_mode));
      else
	puts ("several modes");
      print_header (p.nunits && one_mode ? values_name (first_mode) : "values");
      print_row (&total, "(total)");
    }
  pp_profile_free (&p);
  return status;
}
