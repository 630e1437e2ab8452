/* pathprof dot: every function's control-flow graph as Graphviz input (DOT) on
   stdout, one digraph holding one cluster per function, so that dot -Tsvg draws
   the whole profile as one picture.  Blocks show their number, short source lines
   and count (counting modes) or coverage (coverage modes); edges their count, or
   their coverage where the mode determines it.  Blocks and edges that carry a
   probe of the plan are bold, fake edges dashed, whatever did not run grey; the
   EXIT -> ENTRY edge is left out.  With --paths N, the N hottest paths of each
   function of the paths mode get colours of their own and a legend.  Everything
   drawn comes from the report layer (report.h) and, for the paths, from
   path-counts.h; nothing is inferred here.  Node, edge and cluster ids and
   classes in the SVG (u<unit>f<function>b<block>, ...e<edge>) are documented in
   pathprof(1) for scripts and style sheets.  */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "commands.h"
#include "path-counts.h"
#include "report.h"

/* What did not run, and what the mode cannot tell about an edge.  */
#define GREY_FILL "#d9d9d9"
#define GREY_INK "#707070"
#define GREY_EDGE "#a0a0a0"

/* The colours of the hottest paths, saturated for edges and pale for blocks
   (ColorBrewer's Set1 and Pastel1, with a cyan for the eighth); past them, hues
   a golden angle apart.  */
static const char *const path_inks[] = {
  "#e41a1c", "#377eb8", "#4daf4a", "#984ea3",
  "#ff7f00", "#a65628", "#f781bf", "#17becf",
};
static const char *const path_tints[] = {
  "#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4",
  "#fed9a6", "#e5d8bd", "#fddaec", "#b3ecf2",
};
#define NPATH_COLOURS (sizeof path_inks / sizeof *path_inks)

static void
print_path_colour (uint32_t rank, bool tint)
{
  if (rank < NPATH_COLOURS)
    {
      fputs (tint ? path_tints[rank] : path_inks[rank], stdout);
      return;
    }
  double hue = 0.61803398874989 * rank;
  hue -= (double) (uint64_t) hue;
  printf ("%.3f %.3f %.3f", hue, tint ? 0.25 : 0.85, tint ? 1.0 : 0.75);
}

/* The length of the well-formed UTF-8 sequence at s, or 0.  */
static size_t
utf8_length (const unsigned char *s)
{
  uint32_t cp, min;
  size_t n;
  if (s[0] < 0x80)
    return 1;
  if ((s[0] & 0xe0) == 0xc0)
    n = 2, cp = s[0] & 0x1f, min = 0x80;
  else if ((s[0] & 0xf0) == 0xe0)
    n = 3, cp = s[0] & 0x0f, min = 0x800;
  else if ((s[0] & 0xf8) == 0xf0)
    n = 4, cp = s[0] & 0x07, min = 0x10000;
  else
    return 0;
  for (size_t i = 1; i < n; i++)
    {
      if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
	return 0;
      cp = cp << 6 | (s[i] & 0x3f);
    }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

/* Text inside a double-quoted DOT string (an escString: Graphviz reads \" and
   \\, and gives \n, \l, \N and the like meanings of their own).  Quotes and
   backslashes are escaped; control characters and bytes that are not UTF-8 (which
   dot expects) are shown as \xHH.  */
static void
print_text (const char *s)
{
  const unsigned char *p = (const unsigned char *) s;
  while (*p)
    {
      size_t n = utf8_length (p);
      if (*p == '"' || *p == '\\')
	printf ("\\%c", *p);
      else if (n == 0 || *p < 0x20 || *p == 0x7f)
	printf ("\\\\x%02x", *p);
      else
	{
	  fwrite (p, 1, n, stdout);
	  p += n;
	  continue;
	}
      p++;
    }
}

/* The base name of a path, as print_text prints it.  */
static void
print_base_name (const char *path)
{
  const char *slash = strrchr (path, '/');
  print_text (slash && slash[1] ? slash + 1 : path);
}

static int
compare_lines (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return (x > y) - (x < y);
}

/* The source lines of a block, one text line per file in the order the files
   first appear, each with its lines as sorted ranges: "t.c:4, 6-9".  The file is
   its base name, or with full its path as recorded.  Each text line but the last
   ends in DOT's line break.  Returns 0, or -1 on allocation failure.  */
static int
print_block_lines (const pp_unit_notes *notes, const pp_block_notes *b,
		   bool full)
{
  uint32_t *lines = malloc ((b->nlines ? b->nlines : 1) * sizeof *lines);
  if (!lines)
    return -1;
  for (uint32_t i = 0; i < b->nlines; i++)
    {
      uint32_t file = b->lines[i].file;
      uint32_t k = 0;
      while (k < i && b->lines[k].file != file)
	k++;
      if (k < i)
	continue;		/* the file's lines are printed */
      uint32_t n = 0;
      for (k = i; k < b->nlines; k++)
	if (b->lines[k].file == file)
	  lines[n++] = b->lines[k].line;
      qsort (lines, n, sizeof *lines, compare_lines);
      if (i)
	fputs ("\\n", stdout);
      if (full)
	print_text (notes->files[file]);
      else
	print_base_name (notes->files[file]);
      for (k = 0; k < n;)
	{
	  uint32_t end = k;
	  while (end + 1 < n && lines[end + 1] <= lines[end] + 1)
	    end++;
	  printf ("%s%" PRIu32, k ? ", " : ":", lines[k]);
	  if (lines[end] != lines[k])
	    printf ("-%" PRIu32, lines[end]);
	  k = end + 1;
	}
    }
  free (lines);
  return 0;
}

/* A block or an edge on one of the highlighted paths, of that path's rank (0:
   the hottest).  */
struct on_path
{
  uint32_t where, rank;
};

static int
compare_on_path (const void *a, const void *b)
{
  const struct on_path *x = a, *y = b;
  if (x->where != y->where)
    return (x->where > y->where) - (x->where < y->where);
  return (x->rank > y->rank) - (x->rank < y->rank);
}

/* One function being drawn.  */
struct drawing
{
  const report_unit *ru;
  const report_function *f;
  uint32_t unit;		/* the unit's index in the report, for the ids */
  bool *edge_probe;		/* per edge: a probe of the plan is on it */
  bool *block_probe;		/* per block */
  /* The highlighted paths, hottest first, and the blocks and edges on them,
     sorted by block or edge, then by rank.  */
  function_paths paths;
  uint32_t nhot;
  struct on_path *hot_blocks, *hot_edges;
  size_t nhot_blocks, nhot_edges;
};

static int
add_on_path (struct on_path **list, size_t *n, size_t *cap, uint32_t where,
	     uint32_t rank)
{
  if (PP_RESERVE (*list, *cap, (size_t) *n + 1, 64))
    return -1;
  (*list)[(*n)++] = (struct on_path) { where, rank };
  return 0;
}

/* Sorts a list of on_path and drops repeats.  */
static void
sort_on_path (struct on_path *list, size_t *n)
{
  if (*n == 0)
    return;
  qsort (list, *n, sizeof *list, compare_on_path);
  size_t kept = 1;
  for (size_t i = 1; i < *n; i++)
    if (compare_on_path (&list[i], &list[kept - 1]) != 0)
      list[kept++] = list[i];
  *n = kept;
}

/* Loads the paths of d->f and decodes its top hottest into d->hot_blocks and
   d->hot_edges: each path's edges and the cut it ends on, the block it starts at
   and the blocks its edges enter (not the head its cut goes back to).  Returns
   0, or -1 with a reason in err.  */
static int
load_hot_paths (struct drawing *d, uint64_t top, char *err, size_t errlen)
{
  if (function_paths_load (&d->paths, d->f, d->ru->data, err, errlen))
    return -1;
  function_paths_sort_hottest (&d->paths);
  const pp_paths *p = d->paths.numbering;
  const pp_graph *g = &d->f->graph;
  d->nhot = d->paths.nexecuted < top ? d->paths.nexecuted : (uint32_t) top;
  uint32_t *edges = malloc ((p->max_path_edges ? p->max_path_edges : 1)
			    * sizeof *edges);
  size_t block_cap = 0, edge_cap = 0;
  int status = edges ? 0 : -1;
  for (uint32_t rank = 0; rank < d->nhot && status == 0; rank++)
    {
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, d->paths.executed[rank].path, &path)
	  != PP_PATHS_OK)
	abort ();		/* function_paths_load checked the range */
      status = add_on_path (&d->hot_blocks, &d->nhot_blocks, &block_cap,
			    path.start_node, rank);
      for (uint32_t k = 0; k < path.nedges && status == 0; k++)
	status = add_on_path (&d->hot_edges, &d->nhot_edges, &edge_cap,
			      path.edges[k], rank)
		 || add_on_path (&d->hot_blocks, &d->nhot_blocks, &block_cap,
				 g->edges[path.edges[k]].dst, rank);
      if (status == 0 && path.end_edge != PP_PATH_NONE)
	status = add_on_path (&d->hot_edges, &d->nhot_edges, &edge_cap,
			      path.end_edge, rank);
    }
  free (edges);
  if (status)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  sort_on_path (d->hot_blocks, &d->nhot_blocks);
  sort_on_path (d->hot_edges, &d->nhot_edges);
  return 0;
}

static void
drawing_free (struct drawing *d)
{
  free (d->edge_probe);
  free (d->block_probe);
  free (d->hot_blocks);
  free (d->hot_edges);
  function_paths_free (&d->paths);
}

/* The ranks of the highlighted paths through `where`: list[*cursor ..] up to
   the returned end, with *cursor moved to the first entry of `where` (lists are
   walked in increasing order of where).  */
static size_t
ranks_of (const struct on_path *list, size_t n, size_t *cursor, uint32_t where)
{
  while (*cursor < n && list[*cursor].where < where)
    ++*cursor;
  size_t end = *cursor;
  while (end < n && list[end].where == where)
    end++;
  return end;
}

static const char *const coverage_classes[] = {
  [REPORT_NOT_DETERMINED] = "not-determined",
  [REPORT_NOT_COVERED] = "not-covered",
  [REPORT_COVERED] = "covered",
};

static const char *const coverage_names[] = {
  [REPORT_NOT_DETERMINED] = "not determined",
  [REPORT_NOT_COVERED] = "not covered",
  [REPORT_COVERED] = "covered",
};

static void
print_id (const struct drawing *d)
{
  printf ("u%" PRIu32 "f%" PRIu32, d->unit, d->f->index);
}

static int
print_block (const struct drawing *d, uint32_t v, size_t *cursor)
{
  const report_function *f = d->f;
  const pp_graph *g = &f->graph;
  const pp_block_notes *b = &f->notes->blocks[v];
  bool end = v == g->entry || v == g->exit;
  /* ENTRY and EXIT have no coverage of their own: they ran when the function
     was called.  */
  uint8_t coverage = end ? (f->called ? REPORT_COVERED : REPORT_NOT_COVERED)
			 : f->block_coverage[v];
  size_t last = ranks_of (d->hot_blocks, d->nhot_blocks, cursor, v);
  size_t first = *cursor;

  fputs ("    ", stdout);
  print_id (d);
  printf ("b%" PRIu32 " [id=\"", v);
  print_id (d);
  printf ("b%" PRIu32 "\", class=\"%s %s%s%s", v,
	  v == g->entry ? "entry" : v == g->exit ? "exit" : "block",
	  coverage_classes[coverage], f->block_inexact[v] ? " inexact" : "",
	  d->block_probe[v] ? " probe" : "");
  for (size_t i = first; i < last; i++)
    printf (" hot-%" PRIu32, d->hot_blocks[i].rank + 1);
  putchar ('"');
  if (end)
    fputs (", shape=ellipse", stdout);

  fputs (", label=\"", stdout);
  if (v == g->entry)
    fputs ("ENTRY", stdout);
  else if (v == g->exit)
    fputs ("EXIT", stdout);
  else
    printf ("block %" PRIu32, v);
  if (!end && b->nlines)
    {
      fputs ("\\n", stdout);
      if (print_block_lines (&d->ru->notes, b, false))
	return -1;
    }
  if (d->ru->counts)
    printf ("\\ncount %" PRIu64, f->block_counts[v]);
  else if (!end)
    printf ("\\n%s%s", coverage_names[coverage],
	    f->block_inexact[v] ? " (inexact)" : "");
  if (b->flags & PP_BLOCK_LANDING_PAD)
    fputs ("\\nlanding pad", stdout);
  putchar ('"');

  if (!end && b->nlines)
    {
      fputs (", tooltip=\"", stdout);
      if (print_block_lines (&d->ru->notes, b, true))
	return -1;
      putchar ('"');
    }
  if (d->block_probe[v])
    fputs (", penwidth=2", stdout);
  if (last > first)
    {
      /* Stripes on boxes, wedges on ellipses; "filled,striped" would make a
	 gradient of the first two colours.  */
      printf (", style=\"%s\", fillcolor=\"",
	      last - first == 1 ? "filled" : end ? "wedged" : "striped");
      for (size_t i = first; i < last; i++)
	{
	  if (i > first)
	    putchar (':');
	  print_path_colour (d->hot_blocks[i].rank, true);
	}
      putchar ('"');
    }
  else if (coverage == REPORT_NOT_COVERED)
    fputs (", fillcolor=\"" GREY_FILL "\", fontcolor=\"" GREY_INK "\", "
	   "color=\"" GREY_INK "\"", stdout);
  fputs ("];\n", stdout);
  return 0;
}

static void
print_edge (const struct drawing *d, uint32_t e, size_t *cursor)
{
  const report_function *f = d->f;
  const pp_edge_notes *edge = &f->notes->edges[e];
  bool fake = (edge->flags & PP_EDGE_FAKE) != 0;
  uint8_t coverage = f->edge_coverage[e];
  size_t last = ranks_of (d->hot_edges, d->nhot_edges, cursor, e);
  size_t first = *cursor;

  fputs ("    ", stdout);
  print_id (d);
  printf ("b%" PRIu32 " -> ", edge->src);
  print_id (d);
  printf ("b%" PRIu32 " [id=\"", edge->dst);
  print_id (d);
  printf ("e%" PRIu32 "\", class=\"%s%s%s", e, coverage_classes[coverage],
	  d->edge_probe[e] ? " probe" : "", fake ? " fake" : "");
  bool unknown = d->ru->counts && (f->edge_source[e] == REPORT_EDGE_UNKNOWN
				   || f->edge_source[e] == REPORT_EDGE_UNMEASURED);
  if (unknown)
    fputs (" unknown", stdout);
  for (size_t i = first; i < last; i++)
    printf (" hot-%" PRIu32, d->hot_edges[i].rank + 1);
  putchar ('"');

  /* A fake leave is negative when calls returned more often than they were
     made (a forked child).  */
  if (unknown)
    fputs (", label=\"?\"", stdout);
  else if (d->ru->counts && fake)
    printf (", label=\"%" PRId64 "\"", (int64_t) f->edge_counts[e]);
  else if (d->ru->counts)
    printf (", label=\"%" PRIu64 "\"", f->edge_counts[e]);
  else if (coverage != REPORT_NOT_DETERMINED)
    printf (", label=\"%s\"", coverage_names[coverage]);

  if (d->edge_probe[e] || fake)
    printf (", style=\"%s%s%s\"", d->edge_probe[e] ? "bold" : "",
	    d->edge_probe[e] && fake ? "," : "", fake ? "dashed" : "");
  if (last > first)
    {
      fputs (", penwidth=3, color=\"", stdout);
      for (size_t i = first; i < last; i++)
	{
	  if (i > first)
	    putchar (':');
	  print_path_colour (d->hot_edges[i].rank, false);
	}
      putchar ('"');
    }
  else if (coverage == REPORT_NOT_COVERED)
    fputs (", color=\"" GREY_EDGE "\", fontcolor=\"" GREY_EDGE "\"", stdout);
  fputs ("];\n", stdout);
}

/* The legend of the highlighted paths: each path's colour, number and count.  */
static void
print_legend (const struct drawing *d)
{
  fputs ("    ", stdout);
  print_id (d);
  fputs ("legend [id=\"", stdout);
  print_id (d);
  printf ("legend\", class=\"legend\", shape=plaintext, style=\"\", "
	  "label=<<table border=\"0\" cellspacing=\"2\">"
	  "<tr><td colspan=\"2\">hottest of %" PRIu32 " executed path%s</td>"
	  "</tr>", d->paths.nexecuted, d->paths.nexecuted == 1 ? "" : "s");
  for (uint32_t rank = 0; rank < d->nhot; rank++)
    {
      fputs ("<tr><td bgcolor=\"", stdout);
      print_path_colour (rank, false);
      printf ("\" width=\"16\"> </td><td align=\"left\">path %" PRIu64
	      ": count %" PRIu64 "</td></tr>", d->paths.executed[rank].path,
	      d->paths.executed[rank].count);
    }
  fputs ("</table>>];\n", stdout);
}

/* The cluster's title: the function, where it is declared, the mode and whether
   (or how often) it was called.  */
static void
print_title (const struct drawing *d)
{
  const pp_function_notes *fn = d->f->notes;
  const char *file = d->ru->notes.files[fn->decl_file];
  fputs ("    label=\"", stdout);
  print_text (fn->name);
  if (strcmp (fn->asm_name, fn->name) != 0)
    {
      fputs (" (", stdout);
      print_text (fn->asm_name);
      putchar (')');
    }
  fputs ("\\n", stdout);
  print_base_name (file);
  printf (":%" PRIu32 ", %s, ", fn->decl_line, pp_mode_name (d->ru->notes.mode));
  if (d->ru->counts)
    printf ("called %" PRIu64 " time%s", d->f->calls,
	    d->f->calls == 1 ? "" : "s");
  else
    fputs (d->f->called ? "called" : "not called", stdout);
  if (!d->ru->edges_determined)
    fputs ("\\nedge coverage not determined", stdout);
  fputs ("\";\n    tooltip=\"", stdout);
  print_text (file);
  printf (":%" PRIu32 "\";\n", fn->decl_line);
}

/* Draws function f of unit index `unit` as one cluster, with its top hottest
   paths highlighted when hot and the unit counts paths.  Returns 0, or -1 with
   a reason in err.  */
static int
print_function (const report_unit *ru, uint32_t unit, const report_function *f,
		bool hot, uint64_t top, char *err, size_t errlen)
{
  const pp_graph *g = &f->graph;
  struct drawing d = { .ru = ru, .f = f, .unit = unit };
  d.edge_probe = calloc (g->nedges ? g->nedges : 1, sizeof *d.edge_probe);
  d.block_probe = calloc (g->nnodes, sizeof *d.block_probe);
  if (!d.edge_probe || !d.block_probe)
    {
      drawing_free (&d);
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  for (uint32_t i = 0; i < f->plan.nprobes; i++)
    {
      const pp_probe *p = &f->plan.probes[i];
      if (p->site == PP_SITE_BLOCK)
	d.block_probe[p->where] = true;
      else
	d.edge_probe[p->where] = true;
    }
  if (hot && pp_mode_counts_paths (ru->mode) && top
      && load_hot_paths (&d, top, err, errlen))
    {
      drawing_free (&d);
      return -1;
    }

  fputs ("  subgraph \"cluster_", stdout);
  print_id (&d);
  fputs ("\" {\n    id=\"", stdout);
  print_id (&d);
  fputs ("\";\n    class=\"function\";\n", stdout);
  print_title (&d);
  int status = 0;
  size_t cursor = 0;
  for (uint32_t v = 0; v < g->nnodes && status == 0; v++)
    status = print_block (&d, v, &cursor);
  cursor = 0;
  for (uint32_t e = 0; e < g->nedges && status == 0; e++)
    if (!(g->edges[e].flags & PP_EDGE_EXIT_ENTRY))
      print_edge (&d, e, &cursor);
  if (status == 0 && d.nhot)
    print_legend (&d);
  if (status == 0)
    fputs ("  }\n", stdout);
  else
    snprintf (err, errlen, "out of memory");
  drawing_free (&d);
  return status;
}

/* The modes of the units of r, for a message: "edge-counts, block-cover".  */
static void
list_modes (const report *r, char *buf, size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (uint32_t u = 0; u < r->nunits; u++)
    {
      uint32_t k = 0;
      while (k < u && r->units[k].notes.mode != r->units[u].notes.mode)
	k++;
      if (k < u)
	continue;
      int n = snprintf (buf + used, len - used, "%s%s", used ? ", " : "",
			pp_mode_name (r->units[u].notes.mode));
      if (n < 0 || (size_t) n >= len - used)
	return;
      used += (size_t) n;
    }
}

int
dot_command (int argc, char **argv)
{
  const char *function_name = NULL, *path;
  bool hot = false;
  uint64_t top = 0;
  const tool_option options[] = {
    { .name = "function", .text = &function_name },
    { .name = "paths", .paths = &top, .on = &hot },
    { .name = NULL },
  };
  report r;
  int started = tool_open_report (argc, argv, options, true, &path, &r);
  if (started >= 0)
    return started;
  bool any_paths = false, found = false;
  for (uint32_t u = 0; u < r.nunits; u++)
    {
      any_paths |= pp_mode_counts_paths (r.units[u].mode);
      for (uint32_t i = 0; i < r.units[u].notes.nfunctions; i++)
	found |= report_function_selected (&r.units[u].functions[i],
					   function_name);
    }
  int status = 0;
  if (hot && !any_paths)
    {
      char modes[256];
      list_modes (&r, modes, sizeof modes);
      tool_error (path, "--paths: no unit was built in the paths mode "
		  "(-fplugin-arg-pathprof-mode=paths)%s%s",
		  r.nunits ? ", only in " : "", modes);
      status = -1;
    }
  else if (function_name && !found)
    {
      tool_error (path, "no function named '%s'", function_name);
      status = -1;
    }
  if (status)
    {
      report_free (&r);
      return EXIT_FAILURE;
    }

  char err[512];
  fputs ("digraph pathprof {\n"
	 "  node [shape=box, style=filled, fillcolor=\"#ffffff\"];\n", stdout);
  for (uint32_t u = 0; u < r.nunits && status == 0; u++)
    {
      const report_unit *ru = &r.units[u];
      for (uint32_t i = 0; i < ru->notes.nfunctions && status == 0; i++)
	{
	  const report_function *f = &ru->functions[i];
	  if (!report_function_selected (f, function_name))
	    continue;
	  status = print_function (ru, u, f, hot, top, err, sizeof err);
	  if (status)
	    tool_error (path, "unit '%s': function '%s': %s", ru->data->name,
			f->notes->name, err);
	}
    }
  if (status == 0)
    fputs ("}\n", stdout);
  report_free (&r);
  return status ? EXIT_FAILURE : EXIT_SUCCESS;
}
