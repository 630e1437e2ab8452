/* pathprof paths: per function of the paths mode, how many paths it has and ran,
   then each executed path, hottest first, decoded to its blocks and source
   lines.  */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "branch-layout.h"
#include "commands.h"
#include "path-counts.h"

static bool
has_pred (const pp_graph *g, const pp_paths *p, uint32_t v, uint8_t role,
	  uint32_t flags)
{
  for (uint32_t i = g->pred_start[v]; i < g->pred_start[v + 1]; i++)
    {
      uint32_t e = g->pred_edges[i];
      if (p->role[e] == role && (g->edges[e].flags & flags) == flags)
	return true;
    }
  return false;
}

static void
print_how (const report_function *f, const pp_paths *p, const pp_path *path)
{
  const pp_graph *g = &f->graph;
  uint32_t h = path->start_node;
  if (h != g->entry)
    {
      if (has_pred (g, p, h, PP_PATH_ROLE_BACK, 0))
	printf (", starts at loop head %" PRIu32, h);
      else if (has_pred (g, p, h, PP_PATH_ROLE_START, PP_EDGE_FAKE))
	printf (", starts at re-entry point %" PRIu32, h);
      else
	printf (", starts after a cut at %" PRIu32, h);
    }
  if (path->end_edge != PP_PATH_NONE)
    printf (", ends at %s %" PRIu32 " -> %" PRIu32,
	    p->role[path->end_edge] == PP_PATH_ROLE_BACK ? "backedge" : "cut",
	    g->edges[path->end_edge].src, g->edges[path->end_edge].dst);
  else if (path->nedges
	   && g->edges[path->edges[path->nedges - 1]].flags & PP_EDGE_FAKE)
    fputs (", leaves early", stdout);
}

/* The blocks in order, without ENTRY and EXIT.  */
static void
print_blocks (const pp_graph *g, const pp_path *path)
{
  const char *sep = " ";
  fputs ("    blocks", stdout);
  if (path->start_node != g->entry)
    {
      printf ("%s%" PRIu32, sep, path->start_node);
      sep = " -> ";
    }
  for (uint32_t i = 0; i < path->nedges; i++)
    {
      uint32_t v = g->edges[path->edges[i]].dst;
      if (v == g->exit)
	continue;
      printf ("%s%" PRIu32, sep, v);
      sep = " -> ";
    }
  putchar ('\n');
}

static bool
same_line (const pp_line_ref *a, const pp_line_ref *b)
{
  return a->file == b->file && a->line == b->line;
}

/* The source lines of the path's blocks, each once, in the order first run;
   lines of another file than the function's are shown with their file.  */
static int
print_lines (const report_unit *ru, const report_function *f,
	     const pp_path *path)
{
  const pp_function_notes *fn = f->notes;
  const pp_graph *g = &f->graph;
  size_t n = 0, cap = 0;
  pp_line_ref *seen = NULL;
  for (uint32_t i = 0; i <= path->nedges; i++)
    {
      uint32_t v = i == 0 ? path->start_node : g->edges[path->edges[i - 1]].dst;
      if (v == g->entry || v == g->exit)
	continue;
      const pp_block_notes *b = &fn->blocks[v];
      for (uint32_t l = 0; l < b->nlines; l++)
	{
	  size_t k = 0;
	  while (k < n && !same_line (&seen[k], &b->lines[l]))
	    k++;
	  if (k < n)
	    continue;
	  if (PP_RESERVE (seen, cap, n + 1, 16))
	    {
	      free (seen);
	      return -1;
	    }
	  seen[n++] = b->lines[l];
	}
    }
  fputs (n ? "    lines" : "    no lines", stdout);
  for (size_t k = 0; k < n; k++)
    {
      fputs (k ? ", " : " ", stdout);
      if (seen[k].file != fn->decl_file)
	printf ("%s:", ru->notes.files[seen[k].file]);
      printf ("%" PRIu32, seen[k].line);
    }
  putchar ('\n');
  free (seen);
  return 0;
}

/* "N paths" and, when the plan cut the function, how many it had without.  */
static int
print_potential (const report_function *f, const pp_paths *p)
{
  printf ("%" PRIu64 " path%s", p->npaths, p->npaths == 1 ? "" : "s");
  bool cut = false;
  for (uint32_t e = 0; e < f->notes->nedges; e++)
    cut |= (f->notes->edges[e].flags & PP_EDGE_PATH_END) != 0;
  if (!cut)
    return 0;
  pp_paths *uncut;
  int rc = pp_paths_number (&f->graph, NULL, &uncut);
  if (rc == PP_PATHS_ENOMEM)
    return -1;
  if (rc == PP_PATHS_OK)
    printf (" (%s without its cuts)", uncut->npaths_uncut);
  else
    printf (" (more than %" PRIu64 " without its cuts)", PP_PATHS_MAX);
  pp_paths_free (uncut);
  return 0;
}

int
paths_print_path (const report_unit *ru, const report_function *f,
		  const pp_paths *p, const path_count *pc, const char *mark,
		  uint32_t *edges)
{
  pp_path path = { .edges = edges };
  if (pp_paths_decode (p, pc->path, &path) != PP_PATHS_OK)
    abort ();			/* function_paths_load checked the range */
  printf ("  path %" PRIu64 ": count %" PRIu64 "%s", pc->path, pc->count, mark);
  print_how (f, p, &path);
  putchar ('\n');
  print_blocks (&f->graph, &path);
  return print_lines (ru, f, &path);
}

/* The preferential modes: how many paths are interesting and, when the function
   counts them in slots, how compactly (delta = span / interesting).  */
static void
print_preferential (const report_unit *ru, const report_function *f)
{
  const pp_function_notes *fn = f->notes;
  if (!ru->mode->preferential)
    return;
  printf (", %" PRIu32 " %s", fn->ninteresting,
	  ru->mode->untested ? "tested" : "interesting");
  if (fn->nkeys && fn->ninteresting)
    printf (" in %" PRIu32 " slots (delta %.2f)", fn->nkeys,
	    (double) fn->ppp_span / fn->ninteresting);
}

static int
print_function (const report_unit *ru, const report_function *f, uint64_t top,
		char *err, size_t errlen)
{
  const pp_function_notes *fn = f->notes;
  function_paths fp;
  if (function_paths_load (&fp, f, ru->data, err, errlen))
    {
      function_paths_free (&fp);
      return -1;
    }
  const pp_paths *p = fp.numbering;
  printf ("function %s", fn->name);
  if (strcmp (fn->asm_name, fn->name) != 0)
    printf (" (%s)", fn->asm_name);
  printf (" at %s:%" PRIu32 ": ", ru->notes.files[fn->decl_file], fn->decl_line);
  int status = print_potential (f, p);
  printf (", %" PRIu32 " executed", fp.nexecuted);
  if (p->npaths)
    printf (", %.1f%% path coverage",
	    100.0 * (double) fp.nexecuted / (double) p->npaths);
  print_preferential (ru, f);
  putchar ('\n');

  bool preferential = ru->mode->preferential;
  bool residual = ru->mode->untested;
  function_paths_sort_hottest (&fp);
  uint32_t *edges = malloc (p->max_path_edges * sizeof *edges);
  if (!edges)
    status = -1;
  for (uint32_t i = 0; i < fp.nexecuted && i < top && status == 0; i++)
    {
      bool interesting = pp_notes_interesting (f->notes, fp.executed[i].path);
      const char *mark = !preferential ? ""
			 : residual ? (interesting ? "" : ", untested")
			 : (interesting ? ", interesting" : "");
      status = paths_print_path (ru, f, p, &fp.executed[i], mark, edges);
    }
  if (status)
    snprintf (err, errlen, "out of memory");
  free (edges);
  function_paths_free (&fp);
  return status;
}

/* --descriptors: the descriptor the hardware path profiler's Ball-Larus
   paths (hw/, table 5.1) would give a path on the machine of
   branch-layout.h: its first block, then one outcome bit per branch it
   retires (1 unless a conditional falls through), the backedge that ends it
   included.  REASON says why the hardware sees something else: "indirect"
   (a jump table ends hardware paths), "layout" (a branch the layout makes
   backward inside the path, or a backedge it makes forward), "leave" (the
   path ends at a call that did not return), "cut" (a cut of the plan: a
   region cut or an edge into a re-entry point); "-" when it sees the same.  */
struct descriptor
{
  uint32_t start, length;
  uint64_t outcomes;
  const char *reason;
};

static void
descriptor_add (struct descriptor *d, const pp_graph *g, const uint32_t *order,
		uint32_t e, bool last)
{
  enum branch_kind k = branch_layout_kind (g, order, e);
  if (k == BRANCH_NONE)
    return;
  bool backward = order[g->edges[e].dst] <= order[g->edges[e].src];
  if (k == BRANCH_INDIRECT && !last && !d->reason)
    d->reason = "indirect";
  if (backward != last && !d->reason)
    d->reason = "layout";
  if (d->length < 64)
    d->outcomes |= (uint64_t) (k != BRANCH_COND_NOT_TAKEN) << d->length;
  d->length++;
}

static struct descriptor
path_descriptor (const pp_graph *g, const pp_paths *p, const uint32_t *order,
		 const pp_path *path)
{
  struct descriptor d = { path->start_node, 0, 0, NULL };
  if (d.start == g->entry && path->nedges)
    d.start = g->edges[path->edges[0]].dst;
  else if (d.start != g->entry && !has_pred (g, p, d.start, PP_PATH_ROLE_BACK, 0)
	   && !has_pred (g, p, d.start, PP_PATH_ROLE_START, PP_EDGE_FAKE))
    d.reason = "cut";
  for (uint32_t i = 0; i < path->nedges; i++)
    descriptor_add (&d, g, order, path->edges[i], false);
  if (path->end_edge != PP_PATH_NONE)
    {
      if (p->role[path->end_edge] != PP_PATH_ROLE_BACK)
	d.reason = "cut";
      else
	descriptor_add (&d, g, order, path->end_edge, true);
    }
  else if (path->nedges
	   && g->edges[path->edges[path->nedges - 1]].flags & PP_EDGE_FAKE)
    d.reason = "leave";
  return d;
}

static int
print_descriptors (const report_unit *ru, const report_function *f, void *data,
		   char *err, size_t errlen)
{
  char name[512];
  branch_function_name (data, f->notes->name, ru->notes.unit_name, name,
			sizeof name);
  function_paths fp;
  if (function_paths_load (&fp, f, ru->data, err, errlen))
    {
      function_paths_free (&fp);
      return -1;
    }
  const pp_paths *p = fp.numbering;
  function_paths_sort_hottest (&fp);
  uint32_t *edges = malloc ((p->max_path_edges + 1) * sizeof *edges);
  uint32_t *order = branch_layout_order (&f->graph);
  int status = edges && order ? 0 : -1;
  for (uint32_t i = 0; i < fp.nexecuted && status == 0; i++)
    {
      pp_path path = { .edges = edges };
      if (pp_paths_decode (p, fp.executed[i].path, &path) != PP_PATHS_OK)
	abort ();		/* function_paths_load checked the range */
      struct descriptor d = path_descriptor (&f->graph, p, order, &path);
      printf ("path %s bb%" PRIu32 " %" PRIu32 " 0x%" PRIx64 " %" PRIu64 " %s\n",
	      name, d.start, d.length, d.outcomes,
	      fp.executed[i].count, d.reason ? d.reason : "-");
    }
  if (status)
    snprintf (err, errlen, "out of memory");
  free (order);
  free (edges);
  function_paths_free (&fp);
  return status;
}

static bool
counts_paths (const report_unit *ru)
{
  return pp_mode_counts_paths (ru->mode);
}

static int
print_function_each (const report_unit *ru, const report_function *f, void *top,
		     char *err, size_t errlen)
{
  return print_function (ru, f, *(const uint64_t *) top, err, errlen);
}

int
paths_each_function (const report *r, const struct each_path_function *w)
{
  char err[512];
  bool any_unit = false, found = false;
  int status = 0;
  for (uint32_t u = 0; u < r->nunits && status == 0; u++)
    {
      const report_unit *ru = &r->units[u];
      if (!w->unit_wanted (ru))
	continue;
      any_unit = true;
      bool unit_shown = false;
      for (uint32_t i = 0; i < ru->notes.nfunctions && status == 0; i++)
	{
	  const report_function *f = &ru->functions[i];
	  if (!report_function_selected (f, w->function_name))
	    continue;
	  if (!unit_shown && w->unit_headers)
	    printf ("%sunit %s: mode %s, runs %" PRIu64 "\n", found ? "\n" : "",
		    ru->data->name, pp_mode_name (ru->notes.mode),
		    ru->data->runs);
	  unit_shown = found = true;
	  if (w->each (ru, f, w->data, err, sizeof err))
	    {
	      tool_error (w->file, "unit '%s': function '%s': %s", ru->data->name,
			  f->notes->name, err);
	      status = -1;
	    }
	}
    }
  if (status == 0 && !any_unit)
    {
      tool_error (w->file, "no unit was built in the %s mode "
		  "(-fplugin-arg-pathprof-mode=%s)", w->mode_option,
		  w->mode_option);
      status = -1;
    }
  else if (status == 0 && w->function_name && !found)
    {
      tool_error (w->file, "no function named '%s' in the %s mode",
		  w->function_name, w->mode_option);
      status = -1;
    }
  return status;
}

int
paths_command (int argc, char **argv)
{
  const char *function_name = NULL, *path;
  bool descriptors = false;
  uint64_t top = UINT64_MAX;
  const tool_option options[] = {
    { .name = "function", .text = &function_name },
    { .name = "top", .paths = &top },
    { .name = "descriptors", .on = &descriptors },
    { .name = NULL },
  };
  report r;
  int started = tool_open_report (argc, argv, options, false, &path, &r);
  if (started >= 0)
    return started;
  struct each_path_function walk = {
    .file = path, .function_name = function_name, .unit_wanted = counts_paths,
    .mode_option = "paths", .unit_headers = true, .each = print_function_each,
    .data = &top,
  };
  branch_names names = { 0 };
  if (descriptors)
    {
      size_t n = 0;
      for (uint32_t u = 0; u < r.nunits; u++)
	n += r.units[u].notes.nfunctions;
      const char **all = malloc ((n + 1) * sizeof *all);
      n = 0;
      for (uint32_t u = 0; all && u < r.nunits; u++)
	for (uint32_t f = 0; f < r.units[u].notes.nfunctions; f++)
	  all[n++] = r.units[u].notes.functions[f].name;
      if (!all || branch_names_init (&names, all, n))
	{
	  free (all);
	  report_free (&r);
	  tool_error (path, "out of memory");
	  return EXIT_FAILURE;
	}
      free (all);
      printf ("# pathprof-descriptors 1\n# from %s\n", path);
      walk.unit_headers = false;
      walk.each = print_descriptors;
      walk.data = &names;
    }
  bool any_unit = false, ip_unit = false;
  for (uint32_t u = 0; u < r.nunits; u++)
    {
      any_unit |= counts_paths (&r.units[u]);
      ip_unit |= r.units[u].mode->calls;
    }
  int status = 0;
  if (!any_unit && r.nprograms == 0 && ip_unit && !descriptors)
    {
      tool_error (path, "no program record counts the paths of its interproc "
		  "units (the runs said why on standard error)");
      status = -1;
    }
  else if (any_unit || r.nprograms == 0 || function_name)
    status = paths_each_function (&r, &walk);
  if (status == 0 && !descriptors && !function_name)
    status = ip_paths_print (&r, top, any_unit);
  branch_names_free (&names);
  report_free (&r);
  return status ? EXIT_FAILURE : EXIT_SUCCESS;
}
