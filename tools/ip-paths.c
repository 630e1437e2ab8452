/* pathprof paths, the interprocedural mode: each program record's paths,
   hottest first, as the pieces they run through: a function's blocks and
   source lines, then the call into the next function or the return to the
   caller, the number of bits of the largest path number on top.  */

#define _GNU_SOURCE 1	/* qsort_r */

#include <gmp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "ip-counts.h"

#define NONE UINT32_MAX

struct printer
{
  const report_program *p;
  uint32_t proc;		/* the function being printed */
  uint32_t last_block;
  int depth;
};

/* The block of vertex v of procedure p (a vertex after a call is its block's).  */
static uint32_t
block_of (const report_program *p, uint32_t proc, uint32_t v)
{
  const report_unit *ru;
  const report_function *f = report_program_function (p, proc, &ru);
  if (v < f->notes->nblocks)
    return v;
  return p->layout.call_block[proc][v - f->notes->nblocks];
}

static void
piece (struct printer *pr, const char *how, uint32_t proc)
{
  const report_unit *ru;
  const report_function *f = report_program_function (pr->p, proc, &ru);
  printf ("\n    %*s%s%s%s:", 2 * pr->depth, "", how, *how ? " " : "", f->notes->name);
  pr->proc = proc;
  pr->last_block = NONE;
}

static void
block (struct printer *pr, uint32_t v)
{
  uint32_t b = block_of (pr->p, pr->proc, v);
  const report_unit *ru;
  const report_function *f = report_program_function (pr->p, pr->proc, &ru);
  if (b == pr->last_block || b < 2)
    return;
  const pp_block_notes *bn = &f->notes->blocks[b];
  printf (" %" PRIu32, b);
  if (bn->nlines)
    {
      printf (" (line %" PRIu32, bn->lines[0].line);
      for (uint32_t l = 1; l < bn->nlines; l++)
	printf (",%" PRIu32, bn->lines[l].line);
      putchar (')');
    }
  pr->last_block = b;
}

/* Step KIND (x, y) of a path (report_ip_step).  */
static void
print_step (struct printer *pr, int kind, uint32_t x, uint32_t y)
{
  const pp_ip_numbering *nb = &pr->p->nb;
  switch (kind)
    {
    case PP_IP_STEP_ROOT:
      piece (pr, "", x);
      break;
    case PP_IP_STEP_EDGE:
      {
	const pp_ip_edge *e = &nb->procs[x].edges[y];
	if (e->kind == PP_IP_SURROGATE_GEXIT)
	  {
	    const report_unit *ru;
	    const report_function *f = report_program_function (pr->p, x, &ru);
	    printf (" | ends at %s %" PRIu32 " -> %" PRIu32,
		    nb->procs[x].back_of_edge[e->arg] == 1 ? "backedge" : "a call that did not return:",
		    f->notes->edges[e->arg].src, f->notes->edges[e->arg].dst);
	  }
	else if (e->kind == PP_IP_SURROGATE_ENTRY)
	  {
	    const report_unit *ru;
	    const report_function *f = report_program_function (pr->p, x, &ru);
	    printf (" | from %s %" PRIu32 " -> %" PRIu32 ":",
		    nb->procs[x].back_of_edge[e->arg] == 1 ? "backedge" : "re-entry",
		    f->notes->edges[e->arg].src, f->notes->edges[e->arg].dst);
	    block (pr, e->dst);
	  }
	else if (e->dst != nb->procs[x].exit)
	  block (pr, e->dst);
	break;
      }
    case PP_IP_STEP_CALL:
      pr->depth++;
      piece (pr, "call", nb->calls[x].callee);
      break;
    case PP_IP_STEP_RETURN:
      if (pr->depth)
	pr->depth--;
      piece (pr, "back in", nb->calls[x].proc);
      break;
    case PP_IP_STEP_END:
      break;
    }
}

/* ---- Segments: a path of a root's supergraph, copy by copy.  */

/* The pieces that lead from the root to copy C (a segment starting there).  */
static void
open_copies (struct printer *pr, const pp_seg_graph *s, uint32_t c)
{
  if (c != 0)
    {
      open_copies (pr, s, s->copies[c].parent);
      pr->depth++;
      piece (pr, "call", s->copies[c].proc);
    }
  else
    piece (pr, "", s->copies[0].proc);
}

static void
print_segment (const report_program *p, const report_root *R, uint64_t num,
	       uint32_t *edges)
{
  const pp_seg_graph *s = &R->s;
  pp_path path = { .edges = edges };
  if (pp_paths_decode (R->paths, num, &path) != PP_PATHS_OK)
    return;			/* report_program_load checked every number */
  struct printer pr = { .p = p };
  uint32_t c = 0;
  for (uint32_t i = 0; i < s->ncopies; i++)
    if (s->copies[i].first_node <= path.start_node)
      c = i;
  open_copies (&pr, s, c);
  uint32_t start = path.start_node - s->copies[c].first_node;
  if (path.start_node != s->g.entry)
    {
      printf (" | from a loop head or a landing:");
      block (&pr, start);
    }
  for (uint32_t i = 0; i <= path.nedges; i++)
    {
      uint32_t se = i < path.nedges ? path.edges[i] : path.end_edge;
      if (se == PP_PATH_NONE)
	break;
      uint32_t copy = s->copy_of[se], arg = s->arg[se];
      const pp_ip_call *site = &p->layout.prog.calls[arg];
      const report_unit *ru;
      const pp_edge *ge = s->kind[se] == PP_SEG_EDGE || s->kind[se] == PP_SEG_LEAVE
			  ? &p->layout.prog.procs[s->copies[copy].proc].edges[arg] : NULL;
      if (i == path.nedges && ge)
	printf (" | ends at backedge %" PRIu32 " -> %" PRIu32, block_of (p, pr.proc, ge->src),
		block_of (p, pr.proc, ge->dst));
      else if (i == path.nedges)
	{
	  /* A region cut of a big supergraph on a call or a return.  */
	  uint32_t f = s->kind[se] == PP_SEG_RETURN ? site->proc : site->callee;
	  printf (" | ends %s %s", s->kind[se] == PP_SEG_CALL ? "entering"
		  : s->kind[se] == PP_SEG_RETURN ? "returning to" : "after calling",
		  report_program_function (p, f, &ru)->notes->name);
	}
      else if (s->kind[se] == PP_SEG_CALL)
	{
	  pr.depth++;
	  piece (&pr, "call", site->callee);
	}
      else if (s->kind[se] == PP_SEG_RETURN)
	{
	  pr.depth--;
	  piece (&pr, "back in", site->proc);
	}
      else if (s->kind[se] == PP_SEG_SUMMARY)
	{
	  const report_function *q = report_program_function (p, site->callee, &ru);
	  printf (" [calls %s]", q->notes->name);
	}
      else if (s->kind[se] == PP_SEG_LEAVE)
	printf (" | ends at a call that did not return");
      else if ((ge->flags & PP_EDGE_FAKE) && ge->dst == p->layout.prog.procs[pr.proc].exit
	       && ge->src != p->layout.prog.procs[pr.proc].entry
	       && s->g.edges[se].dst == s->g.exit)
	printf (" | ends where the process or a longjmp left");
      else if (ge->dst != p->layout.prog.procs[pr.proc].exit)
	block (&pr, ge->dst);
    }
  putchar ('\n');
}

int
ip_segment_print (report_program *p, uint32_t root, uint64_t num, uint64_t count)
{
  const report_root *R = report_program_root (p, root);
  uint32_t *edges = R ? malloc ((R->paths->max_path_edges + 1) * sizeof *edges) : NULL;
  if (!edges)
    return -1;
  const report_unit *ru;
  printf ("  path %" PRIu64 " of %s: count %" PRIu64, num,
	  report_program_function (p, root, &ru)->notes->name, count);
  print_segment (p, R, num, edges);
  free (edges);
  return 0;
}

static int
hottest_first (const void *a, const void *b, void *data)
{
  const pp_unit_data *u = data;
  uint32_t w = u->wide_words;
  const uint64_t *x = u->wide + (size_t) *(const uint32_t *) a * (w + 1);
  const uint64_t *y = u->wide + (size_t) *(const uint32_t *) b * (w + 1);
  if (x[w] != y[w])
    return x[w] > y[w] ? -1 : 1;
  return pp_wide_before (x, y, w) ? -1 : pp_wide_before (y, x, w) ? 1 : 0;
}

int
ip_paths_print (const report *r, uint64_t top, bool after_units)
{
  int status = 0;
  for (uint32_t i = 0; i < r->nprograms && status == 0; i++)
    {
      const report_program *p = &r->programs[i];
      const pp_unit_data *u = p->data;
      const uint64_t *v = u->values;
      bool segments = p->manifest.kind == PP_IP_SEGMENTS;
      char kind[64];
      snprintf (kind, sizeof kind, segments ? "depth-%" PRIu32 " segments"
		: p->manifest.kind == PP_IP_PIECEWISE ? "piecewise paths"
		: "context paths", p->manifest.depth);
      printf ("%s%s (%s) of %" PRIu32 " unit%s: %zu-bit path numbers%s, %"
	      PRIu32 " executed", i || after_units ? "\n" : "", u->name, kind,
	      p->manifest.nunits, p->manifest.nunits == 1 ? "" : "s",
	      segments ? p->bits : mpz_sizeinbase (p->nb.npaths, 2),
	      segments ? " (the largest root's)" : "", u->nwide);
      if (u->nvalues >= 2 && v[1])
	printf (", %" PRIu64 " path executions lost", v[1]);
      printf ("; the largest number run has %zu bits\n", p->largest_bits);
      uint32_t *order = malloc ((u->nwide + 1) * sizeof *order);
      if (!order)
	{
	  tool_error (NULL, "out of memory");
	  return -1;
	}
      for (uint32_t k = 0; k < u->nwide; k++)
	order[k] = k;
      qsort_r (order, u->nwide, sizeof *order, hottest_first, (void *) u);
      mpz_t num;
      mpz_init (num);
      report_ip_path path = { 0 };
      uint32_t w = u->wide_words;
      for (uint32_t k = 0; segments && k < u->nwide && k < top && status == 0; k++)
	{
	  const uint64_t *e = u->wide + (size_t) order[k] * (w + 1);
	  status = ip_segment_print ((report_program *) p, (uint32_t) e[1], e[0], e[w]);
	}
      for (uint32_t k = 0; !segments && k < u->nwide && k < top && status == 0; k++)
	{
	  const uint64_t *e = u->wide + (size_t) order[k] * (w + 1);
	  mpz_import (num, w, -1, sizeof *e, 0, 0, e);
	  if (report_program_decode (p, num, &path))
	    {
	      status = -1;
	      break;
	    }
	  gmp_printf ("  path %Zd: count %" PRIu64, num, e[w]);
	  struct printer pr = { .p = p };
	  for (uint32_t i = 0; i < path.nsteps; i++)
	    {
	      /* A context: steps before the own part but the root.  */
	      if (i == path.own && i > 1)
		printf ("\n    %*s(the path's own part, after its context:)",
			2 * pr.depth, "");
	      print_step (&pr, path.steps[i].kind, path.steps[i].a, path.steps[i].b);
	    }
	  putchar ('\n');
	}
      free (path.steps);
      mpz_clear (num);
      free (order);
    }
  if (status)
    tool_error (NULL, "out of memory");
  return status;
}
