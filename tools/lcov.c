/* pathprof lcov: an lcov tracefile (the format of geninfo, read by genhtml) with
   gcov's line counts, function call counts and branch counts, aggregated per source
   file over every unit and function of the profile.  Units of a coverage mode give
   1 or 0 (covered or not) for counts, and branches only in edge-cover.  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "commands.h"
#include "report.h"

struct lcov_function
{
  uint32_t source, line;
  const char *name;
  uint64_t calls;		/* when !counted: not 0 iff called */
  bool counted;
};

/* Branch `branch' of block `block', whose branches gcov shows on `line'.  */
struct lcov_branch
{
  uint32_t source, line, block, branch;
  uint64_t taken;		/* when !counted: not 0 iff taken */
  bool executed;		/* the block ran and the branch is known (lcov
				   shows "-" otherwise) */
  bool counted;
};

struct lcov_data
{
  size_t nfunctions, functions_cap;
  struct lcov_function *functions;
  size_t nbranches, branches_cap;
  struct lcov_branch *branches;
};

/* Appends the branches of block v of f: its non-fake successors in gcov's order
   (by destination), when it has at least two.  */
static int
add_block_branches (struct lcov_data *d, const report_unit *ru,
		    const report_function *f, const uint32_t *source_of_file,
		    uint32_t v)
{
  const pp_graph *g = &f->graph;
  pp_line_ref anchor;
  if (!line_counts_block_anchor (&f->notes->blocks[v], &anchor))
    return 0;
  uint32_t degree = pp_graph_out_degree (g, v), n = 0;
  uint32_t *succ = malloc ((degree ? degree : 1) * sizeof *succ);
  if (!succ)
    return -1;
  for (uint32_t i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
    {
      uint32_t e = g->succ_edges[i];
      if (g->edges[e].flags & PP_EDGE_FAKE)
	continue;
      uint32_t j = n++;
      for (; j > 0 && g->edges[succ[j - 1]].dst > g->edges[e].dst; j--)
	succ[j] = succ[j - 1];
      succ[j] = e;
    }
  for (uint32_t b = 0; b < n && n >= 2; b++)
    {
      if (PP_RESERVE (d->branches, d->branches_cap, d->nbranches + 1, 64))
	{
	  free (succ);
	  return -1;
	}
      uint32_t e = succ[b];
      d->branches[d->nbranches++] = (struct lcov_branch)
	{ source_of_file[anchor.file], anchor.line, v, b,
	  ru->counts ? f->edge_counts[e]
	  : f->edge_coverage[e] == REPORT_COVERED,
	  f->block_coverage[v] == REPORT_COVERED
	  && (ru->counts || f->edge_coverage[e] != REPORT_NOT_DETERMINED),
	  ru->counts };
    }
  free (succ);
  return 0;
}

static int
collect (struct lcov_data *d, const report *r, const report_lines *rl)
{
  for (uint32_t u = 0; u < r->nunits; u++)
    for (uint32_t i = 0; i < r->units[u].notes.nfunctions; i++)
      {
	const report_unit *ru = &r->units[u];
	const report_function *f = &ru->functions[i];
	const uint32_t *source_of_file = rl->source_of_file[u];
	if (PP_RESERVE (d->functions, d->functions_cap, d->nfunctions + 1, 64))
	  return -1;
	d->functions[d->nfunctions++] = (struct lcov_function)
	  { source_of_file[f->notes->decl_file], f->notes->decl_line,
	    f->notes->name, ru->counts ? f->calls : f->called, ru->counts };
	for (uint32_t v = 0; v < f->graph.nnodes && ru->edges_determined; v++)
	  if (v != f->graph.entry && v != f->graph.exit
	      && add_block_branches (d, ru, f, source_of_file, v))
	    return -1;
      }
  return 0;
}

static int
compare_functions (const void *a, const void *b)
{
  const struct lcov_function *x = a, *y = b;
  if (x->source != y->source)
    return x->source < y->source ? -1 : 1;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return strcmp (x->name, y->name);
}

static int
compare_branches (const void *a, const void *b)
{
  const struct lcov_branch *x = a, *y = b;
  if (x->source != y->source)
    return x->source < y->source ? -1 : 1;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->block != y->block)
    return x->block < y->block ? -1 : 1;
  return x->branch < y->branch ? -1 : x->branch > y->branch;
}

/* Merges adjacent equal entries (the same function or branch seen in several
   units) by adding their counts, which are counts only if they all were; returns
   the new length.  */
static size_t
merge_functions (struct lcov_function *f, size_t n)
{
  size_t out = 0;
  for (size_t i = 0; i < n; i++)
    if (out && compare_functions (&f[out - 1], &f[i]) == 0)
      {
	f[out - 1].calls = pp_sat_add (f[out - 1].calls, f[i].calls);
	f[out - 1].counted &= f[i].counted;
      }
    else
      f[out++] = f[i];
  return out;
}

static size_t
merge_branches (struct lcov_branch *b, size_t n)
{
  size_t out = 0;
  for (size_t i = 0; i < n; i++)
    if (out && compare_branches (&b[out - 1], &b[i]) == 0)
      {
	b[out - 1].taken = pp_sat_add (b[out - 1].taken, b[i].taken);
	b[out - 1].executed |= b[i].executed;
	b[out - 1].counted &= b[i].counted;
      }
    else
      b[out++] = b[i];
  return out;
}

/* Prints the record of source s; *fi and *bi walk the sorted functions and
   branches.  */
static void
print_record (const line_source *src, uint32_t s, const struct lcov_data *d,
	      size_t *fi, size_t *bi)
{
  printf ("SF:%s\n", src->path);
  size_t first = *fi, hit = 0;
  for (; *fi < d->nfunctions && d->functions[*fi].source == s; ++*fi)
    printf ("FN:%" PRIu32 ",%s\n", d->functions[*fi].line,
	    d->functions[*fi].name);
  for (size_t i = first; i < *fi; i++)
    {
      const struct lcov_function *f = &d->functions[i];
      printf ("FNDA:%" PRIu64 ",%s\n", f->counted ? f->calls : f->calls != 0,
	      f->name);
      hit += f->calls != 0;
    }
  printf ("FNF:%zu\nFNH:%zu\n", *fi - first, hit);

  first = *bi;
  hit = 0;
  for (; *bi < d->nbranches && d->branches[*bi].source == s; ++*bi)
    {
      const struct lcov_branch *b = &d->branches[*bi];
      printf ("BRDA:%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",", b->line, b->block,
	      b->branch);
      if (b->executed)
	printf ("%" PRIu64 "\n", b->counted ? b->taken : b->taken != 0);
      else
	puts ("-");
      hit += b->taken != 0;
    }
  printf ("BRF:%zu\nBRH:%zu\n", *bi - first, hit);

  size_t found = 0;
  hit = 0;
  for (uint32_t i = 0; i < src->nlines; i++)
    {
      const line_count *l = &src->lines[i];
      if (!l->exists)
	continue;
      printf ("DA:%" PRIu32 ",%" PRIu64 "\n", l->line,
	      l->uncounted ? l->covered : l->count);
      found++;
      hit += l->uncounted ? l->covered : l->count != 0;
    }
  printf ("LF:%zu\nLH:%zu\nend_of_record\n", found, hit);
}

int
lcov_command (int argc, char **argv)
{
  const char *path;
  report r;
  int started = tool_open_report (argc, argv, NULL, true, &path, &r);
  if (started >= 0)
    return started;
  report_lines lines;
  struct lcov_data d = { 0 };
  int status = report_lines_compute (&lines, &r, NULL);
  if (status == 0)
    status = collect (&d, &r, &lines);
  if (status == 0)
    {
      /* qsort wants a valid base even for 0 elements.  */
      if (d.nfunctions)
	qsort (d.functions, d.nfunctions, sizeof *d.functions, compare_functions);
      d.nfunctions = merge_functions (d.functions, d.nfunctions);
      if (d.nbranches)
	qsort (d.branches, d.nbranches, sizeof *d.branches, compare_branches);
      d.nbranches = merge_branches (d.branches, d.nbranches);
      puts ("TN:");
      size_t fi = 0, bi = 0;
      for (uint32_t s = 0; s < lines.lc.nsources; s++)
	{
	  const line_source *src = &lines.lc.sources[s];
	  bool has_lines = false;
	  for (uint32_t l = 0; l < src->nlines && !has_lines; l++)
	    has_lines = src->lines[l].exists;
	  if (has_lines || (fi < d.nfunctions && d.functions[fi].source == s))
	    print_record (src, s, &d, &fi, &bi);
	}
    }
  else
    tool_error (path, "out of memory");
  free (d.functions);
  free (d.branches);
  report_lines_free (&lines);
  report_free (&r);
  return status ? EXIT_FAILURE : EXIT_SUCCESS;
}
