/* pathprof show: every function's counts or coverage (calls, blocks, edges), then
   the sources annotated with line counts or coverage in gcov's format.  */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "report.h"

static void
print_node (const pp_graph *g, uint32_t v)
{
  if (v == g->entry)
    fputs ("ENTRY", stdout);
  else if (v == g->exit)
    fputs ("EXIT", stdout);
  else
    printf ("%" PRIu32, v);
}

/* Lines of the function's own file are shown bare, others with their file.  */
static void
print_block_lines (const pp_unit_notes *notes, const pp_function_notes *fn,
		   const pp_block_notes *b)
{
  if (b->nlines == 0)
    {
      fputs (", no lines", stdout);
      return;
    }
  fputs (", lines", stdout);
  for (uint32_t i = 0; i < b->nlines; i++)
    {
      fputs (i ? ", " : " ", stdout);
      if (b->lines[i].file != fn->decl_file)
	printf ("%s:", notes->files[b->lines[i].file]);
      printf ("%" PRIu32, b->lines[i].line);
    }
}

static const char *const coverage_names[] = {
  [REPORT_NOT_DETERMINED] = "not inferred",
  [REPORT_NOT_COVERED] = "not covered",
  [REPORT_COVERED] = "covered",
};

static void
print_edge_flags (uint32_t flags, bool first)
{
  for (size_t i = 0; i < report_nedge_flag_names; i++)
    if (flags & report_edge_flag_names[i].flag)
      {
	printf ("%s%s", first ? ": " : ", ",
		report_edge_flag_names[i].name);
	first = false;
      }
}

static void
print_function (const report_unit *ru, const report_function *f)
{
  const pp_function_notes *fn = f->notes;
  const pp_graph *g = &f->graph;
  printf ("function %s", fn->name);
  if (strcmp (fn->asm_name, fn->name) != 0)
    printf (" (%s)", fn->asm_name);
  printf (" at %s:%" PRIu32 ": ", ru->notes.files[fn->decl_file], fn->decl_line);
  if (ru->counts)
    printf ("called %" PRIu64 " time%s\n", f->calls, f->calls == 1 ? "" : "s");
  else
    puts (f->called ? "called" : "not called");
  for (uint32_t v = 0; v < fn->nblocks; v++)
    {
      fputs ("  block ", stdout);
      print_node (g, v);
      if (ru->counts)
	printf (": count %" PRIu64, f->block_counts[v]);
      else if (v != g->entry && v != g->exit)
	printf (": %s%s", coverage_names[f->block_coverage[v]],
		f->block_inexact[v] ? " (inexact)" : "");
      if (v != g->entry && v != g->exit)
	print_block_lines (&ru->notes, fn, &fn->blocks[v]);
      if (fn->blocks[v].flags & PP_BLOCK_LANDING_PAD)
	fputs (", landing pad", stdout);
      putchar ('\n');
    }
  if (!ru->edges_determined && ru->counts)
    printf ("  edges: counts only where mode %s determines them\n",
	    pp_mode_name (ru->notes.mode));
  else if (!ru->edges_determined)
    printf ("  edges: coverage not determined by mode %s\n",
	    pp_mode_name (ru->notes.mode));
  for (uint32_t e = 0; e < fn->nedges; e++)
    {
      fputs ("  edge ", stdout);
      print_node (g, fn->edges[e].src);
      fputs (" -> ", stdout);
      print_node (g, fn->edges[e].dst);
      /* A fake leave is negative when calls returned more often than they
	 were made (a forked child).  */
      if (ru->counts && f->edge_source[e] == REPORT_EDGE_UNMEASURED)
	printf (": count %s", report_edge_source_names[f->edge_source[e]]);
      else if (ru->counts && fn->edges[e].flags & PP_EDGE_FAKE)
	printf (": count %" PRId64 ", %s", (int64_t) f->edge_counts[e],
		report_edge_source_names[f->edge_source[e]]);
      else if (ru->counts)
	printf (": count %" PRIu64 ", %s", f->edge_counts[e],
		report_edge_source_names[f->edge_source[e]]);
      else if (ru->edges_determined)
	printf (": %s", coverage_names[f->edge_coverage[e]]);
      print_edge_flags (fn->edges[e].flags,
			!ru->edges_determined && !ru->counts);
      putchar ('\n');
    }
}

/* gcov's prefix of an annotated line: the count, "-" for a line without code,
   "#####" for one never run ("=====" when only exception paths reach it), and a
   "*" after the count of a line with a block that never ran.  A line of a coverage
   mode shows "covered" rather than a count.  */
static void
print_line_prefix (const line_count *l, uint32_t lineno)
{
  char count[32];
  if (!l || !l->exists)
    strcpy (count, "-");
  else if (l->uncounted && l->covered)
    strcpy (count, "covered");
  else if (l->count && !l->uncounted)
    snprintf (count, sizeof count, "%" PRIu64 "%s", l->count,
	      l->has_unexecuted_block ? "*" : "");
  else
    strcpy (count, l->unexceptional ? "#####" : "=====");
  printf ("%9s:%5" PRIu32 ":", count, lineno);
}

static FILE *
open_source (const char *path, const char *source_dir, char **opened)
{
  if (!source_dir)
    {
      *opened = strdup (path);
      return *opened ? fopen (path, "r") : NULL;
    }
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  size_t len = strlen (source_dir) + 1 + strlen (base) + 1;
  if (!(*opened = malloc (len)))
    return NULL;
  snprintf (*opened, len, "%s/%s", source_dir, base);
  return fopen (*opened, "r");
}

/* Prints one source annotated with its line counts.  A source that cannot be read
   gets its counts without text.  Returns 0, or -1 on allocation failure.  */
static int
print_source (const line_source *s, const char *source_dir)
{
  bool any = false;
  for (uint32_t i = 0; i < s->nlines && !any; i++)
    any = s->lines[i].exists;
  if (!any)
    return 0;

  char *opened = NULL;
  FILE *in = open_source (s->path, source_dir, &opened);
  if (!opened)
    return -1;
  if (!in)
    tool_error (opened, "note: cannot read the source (%s); showing the counts "
		"only", strerror (errno));
  printf ("\n%9s:%5u:Source:%s\n", "-", 0u, s->path);

  char *text = NULL;
  size_t cap = 0;
  /* s->lines[next]: the first at lineno or later.  64 bits: line UINT32_MAX
     can have code.  */
  uint64_t lineno = 1;
  uint32_t next = 0;
  for (; lineno <= UINT32_MAX; lineno++)
    {
      ssize_t len = in ? getline (&text, &cap, in) : -1;
      while (next < s->nlines && s->lines[next].line < lineno)
	next++;
      if (len < 0)
	{
	  /* Past the text (or none): only the lines with code, not every
	     number up to the last (a #line directive may say 4000000000).  */
	  while (next < s->nlines && !s->lines[next].exists)
	    next++;
	  if (next == s->nlines)
	    break;
	  lineno = s->lines[next].line;
	}
      const line_count *l = next < s->nlines && s->lines[next].line == lineno
			    ? &s->lines[next] : NULL;
      print_line_prefix (l, (uint32_t) lineno);
      if (len > 0 && text[len - 1] == '\n')
	text[--len] = '\0';
      if (len >= 0)
	fputs (text, stdout);
      putchar ('\n');
    }
  free (text);
  if (in)
    fclose (in);
  free (opened);
  return 0;
}

int
show_command (int argc, char **argv)
{
  const char *function_name = NULL, *source_dir = NULL, *path;
  const tool_option options[] = {
    { .name = "function", .text = &function_name },
    { .name = "source-dir", .text = &source_dir },
    { .name = NULL },
  };
  report r;
  int started = tool_open_report (argc, argv, options, true, &path, &r);
  if (started >= 0)
    return started;

  bool found = false;
  for (uint32_t u = 0; u < r.nunits; u++)
    {
      const report_unit *ru = &r.units[u];
      bool unit_shown = false;
      for (uint32_t i = 0; i < ru->notes.nfunctions; i++)
	{
	  if (!report_function_selected (&ru->functions[i], function_name))
	    continue;
	  if (!unit_shown)
	    printf ("%sunit %s: mode %s, runs %" PRIu64 "\n", found ? "\n" : "",
		    ru->data->name, pp_mode_name (ru->notes.mode),
		    ru->data->runs);
	  unit_shown = found = true;
	  print_function (ru, &ru->functions[i]);
	}
    }
  if (function_name && !found)
    {
      tool_error (path, "no function named '%s'", function_name);
      report_free (&r);
      return EXIT_FAILURE;
    }

  report_lines lines;
  int status = report_lines_compute (&lines, &r, function_name);
  for (uint32_t s = 0; s < lines.lc.nsources && status == 0; s++)
    status = print_source (&lines.lc.sources[s], source_dir);
  if (status)
    tool_error (path, "out of memory");
  report_lines_free (&lines);
  report_free (&r);
  return status ? EXIT_FAILURE : EXIT_SUCCESS;
}
