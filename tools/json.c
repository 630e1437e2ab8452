/* pathprof json: the whole interpreted profile as one JSON document, for programs.
   The format is stable: documented in pathprof(1), versioned by "version", and
   only ever extended by new members within a version.  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "path-counts.h"
#include "report.h"

#define JSON_FORMAT_VERSION 1

/* A JSON string.  Bytes from 0x80 up are copied: names and paths are UTF-8 on the
   systems GCC runs on.  */
static void
print_string (const char *s)
{
  putchar ('"');
  for (; *s; s++)
    {
      unsigned char ch = (unsigned char) *s;
      if (ch == '"' || ch == '\\')
	printf ("\\%c", ch);
      else if (ch < 0x20)
	printf ("\\u%04x", ch);
      else
	putchar (ch);
    }
  putchar ('"');
}

static const char *
boolean (bool b)
{
  return b ? "true" : "false";
}

static void
print_coverage (uint8_t coverage)
{
  if (coverage != REPORT_NOT_DETERMINED)
    printf (", \"covered\": %s", boolean (coverage == REPORT_COVERED));
}

static void
print_block (const report_unit *ru, const report_function *f, uint32_t v)
{
  const pp_block_notes *b = &f->notes->blocks[v];
  printf ("{\"id\": %" PRIu32 ", \"lines\": [", v);
  for (uint32_t i = 0; i < b->nlines; i++)
    printf ("%s[%" PRIu32 ", %" PRIu32 "]", i ? ", " : "", b->lines[i].file,
	    b->lines[i].line);
  putchar (']');
  print_coverage (f->block_coverage[v]);
  if (f->block_inexact[v])
    fputs (", \"inexact\": true", stdout);
  if (ru->counts)
    printf (", \"count\": %" PRIu64, f->block_counts[v]);
  if (b->flags & PP_BLOCK_LANDING_PAD)
    fputs (", \"landing_pad\": true", stdout);
  putchar ('}');
}

static void
print_edge (const report_unit *ru, const report_function *f, uint32_t e)
{
  const pp_edge_notes *edge = &f->notes->edges[e];
  printf ("{\"src\": %" PRIu32 ", \"dst\": %" PRIu32 ", \"flags\": [",
	  edge->src, edge->dst);
  bool first = true;
  for (size_t i = 0; i < report_nedge_flag_names; i++)
    if (edge->flags & report_edge_flag_names[i].flag)
      {
	printf ("%s\"%s\"", first ? "" : ", ", report_edge_flag_names[i].name);
	first = false;
      }
  putchar (']');
  print_coverage (f->edge_coverage[e]);
  if (ru->counts)
    {
      /* A fake leave is negative when calls returned more often than they
	 were made (a forked child).  */
      if (f->edge_source[e] == REPORT_EDGE_UNMEASURED)
	fputs (", \"count\": null", stdout);
      else if (edge->flags & PP_EDGE_FAKE)
	printf (", \"count\": %" PRId64, (int64_t) f->edge_counts[e]);
      else
	printf (", \"count\": %" PRIu64, f->edge_counts[e]);
      printf (", \"source\": \"%s\"",
	      report_edge_source_names[f->edge_source[e]]);
    }
  putchar ('}');
}

/* Paths mode: the function's number of paths and each executed path, by
   number: its count, the block it starts at and its edges in order (the cut it
   ends on last, when it ends on one).  */
static int
print_paths (const report_unit *ru, const report_function *f, char *err,
	     size_t errlen)
{
  function_paths fp;
  if (function_paths_load (&fp, f, ru->data, err, errlen))
    {
      function_paths_free (&fp);
      return -1;
    }
  const pp_paths *p = fp.numbering;
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  if (!edges)
    {
      function_paths_free (&fp);
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  bool preferential = ru->mode->preferential;
  printf (",\n         \"paths\": %" PRIu64, p->npaths);
  if (preferential)
    printf (", \"interesting_paths\": %" PRIu32 ", \"slots\": %" PRIu32
	    ", \"slot_span\": %" PRIu64, f->notes->ninteresting, f->notes->nkeys,
	    f->notes->ppp_span);
  fputs (", \"executed_paths\": [", stdout);
  for (uint32_t i = 0; i < fp.nexecuted; i++)
    {
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, fp.executed[i].path, &path) != PP_PATHS_OK)
	abort ();		/* function_paths_load checked the range */
      bool cut = path.end_edge != PP_PATH_NONE;
      if (cut)
	edges[path.nedges++] = path.end_edge;
      printf ("%s{\"number\": %" PRIu64 ", \"count\": %" PRIu64 ", \"start\": %"
	      PRIu32 ", \"ends_on_cut\": %s, ",
	      i ? ",\n           " : "\n           ", fp.executed[i].path,
	      fp.executed[i].count, path.start_node, boolean (cut));
      if (preferential)
	printf ("\"interesting\": %s, ",
		boolean (pp_notes_interesting (f->notes, fp.executed[i].path)));
      fputs ("\"edges\": [", stdout);
      for (uint32_t k = 0; k < path.nedges; k++)
	printf ("%s%" PRIu32, k ? ", " : "", edges[k]);
      fputs ("]}", stdout);
    }
  putchar (']');
  free (edges);
  function_paths_free (&fp);
  return 0;
}

static int
print_function (const report_unit *ru, const report_function *f, char *err,
		size_t errlen)
{
  const pp_function_notes *fn = f->notes;
  fputs ("        {\"name\": ", stdout);
  print_string (fn->name);
  fputs (", \"asm_name\": ", stdout);
  print_string (fn->asm_name);
  printf (", \"file\": %" PRIu32 ", \"line\": %" PRIu32 ", \"values\": %"
	  PRIu32 ", \"called\": %s", fn->decl_file, fn->decl_line, fn->nvalues,
	  boolean (f->called));
  if (ru->counts)
    printf (", \"calls\": %" PRIu64, f->calls);
  fputs (",\n         \"blocks\": [", stdout);
  for (uint32_t v = 0; v < fn->nblocks; v++)
    {
      fputs (v ? ",\n           " : "\n           ", stdout);
      print_block (ru, f, v);
    }
  fputs ("],\n         \"edges\": [", stdout);
  for (uint32_t e = 0; e < fn->nedges; e++)
    {
      fputs (e ? ",\n           " : "\n           ", stdout);
      print_edge (ru, f, e);
    }
  putchar (']');
  if (pp_mode_counts_paths (ru->mode) && print_paths (ru, f, err, errlen))
    return -1;
  putchar ('}');
  return 0;
}

/* Returns 0, or -1 after printing why (the profile is FILE).  */
static int
print_unit (const report_unit *ru, const char *file)
{
  fputs ("    {\"name\": ", stdout);
  print_string (ru->data->name);
  printf (", \"mode\": \"%s\", \"runs\": %" PRIu64 ", \"checksum\": \"%016"
	  PRIx64 "\",\n     \"files\": [", pp_mode_name (ru->notes.mode),
	  ru->data->runs, ru->data->checksum);
  for (uint32_t i = 0; i < ru->notes.nfiles; i++)
    {
      fputs (i ? ", " : "", stdout);
      print_string (ru->notes.files[i]);
    }
  fputs ("],\n     \"functions\": [", stdout);
  for (uint32_t i = 0; i < ru->notes.nfunctions; i++)
    {
      fputs (i ? ",\n" : "\n", stdout);
      char err[512];
      if (print_function (ru, &ru->functions[i], err, sizeof err))
	{
	  putchar ('\n');
	  tool_error (file, "unit %s, function %s: %s", ru->data->name,
		      ru->functions[i].notes->name, err);
	  return -1;
	}
    }
  fputs ("]}", stdout);
  return 0;
}

static void
print_source (const line_source *s)
{
  fputs ("    {\"path\": ", stdout);
  print_string (s->path);
  fputs (", \"lines\": [", stdout);
  bool first = true;
  for (uint32_t i = 0; i < s->nlines; i++)
    {
      const line_count *l = &s->lines[i];
      if (!l->exists)
	continue;
      printf ("%s{\"line\": %" PRIu32 ", \"covered\": %s",
	      first ? "\n      " : ",\n      ", l->line, boolean (l->covered));
      if (!l->uncounted)
	printf (", \"count\": %" PRIu64, l->count);
      putchar ('}');
      first = false;
    }
  fputs ("]}", stdout);
}

int
json_command (int argc, char **argv)
{
  const char *path;
  report r;
  int started = tool_open_report (argc, argv, NULL, true, &path, &r);
  if (started >= 0)
    return started;
  report_lines lines;
  if (report_lines_compute (&lines, &r, NULL))
    {
      tool_error (path, "out of memory");
      report_lines_free (&lines);
      report_free (&r);
      return EXIT_FAILURE;
    }
  printf ("{\"format\": \"pathprof\", \"version\": %d,\n \"units\": [",
	  JSON_FORMAT_VERSION);
  for (uint32_t u = 0; u < r.nunits; u++)
    {
      fputs (u ? ",\n" : "\n", stdout);
      if (print_unit (&r.units[u], path))
	{
	  report_lines_free (&lines);
	  report_free (&r);
	  return EXIT_FAILURE;
	}
    }
  fputs ("],\n \"sources\": [", stdout);
  bool first = true;
  for (uint32_t s = 0; s < lines.lc.nsources; s++)
    {
      const line_source *src = &lines.lc.sources[s];
      bool has_lines = false;
      for (uint32_t l = 0; l < src->nlines && !has_lines; l++)
	has_lines = src->lines[l].exists;
      if (!has_lines)
	continue;
      fputs (first ? "\n" : ",\n", stdout);
      print_source (src);
      first = false;
    }
  fputs ("]}\n", stdout);
  report_lines_free (&lines);
  report_free (&r);
  return EXIT_SUCCESS;
}
