/* The interprocedural mode in the report layer (ip-counts.h).  */

#include <gmp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ip-counts.h"
#include "prior.h"

#define NONE UINT32_MAX

bool
report_is_program (const pp_unit_data *u)
{
  return pp_ip_manifest_p (u->notes, u->notes_len);
}

int
report_read_interproc (report_function *f, const pp_unit_data *u,
		       const pp_mode_info *mode, char *err, size_t errlen)
{
  (void) u;
  (void) mode;
  (void) err;
  (void) errlen;
  for (uint32_t e = 0; e < f->graph.nedges; e++)
    f->edge_source[e] = REPORT_EDGE_DERIVED;
  return 0;
}

const report_function *
report_program_function (const report_program *p, uint32_t proc,
			 const report_unit **unit)
{
  uint32_t u = pp_ip_layout_unit_of (&p->layout, proc);
  *unit = p->units[u];
  return &p->units[u]->functions[proc - p->layout.first_proc[u]];
}

struct decoder
{
  const pp_ip_numbering *nb;
  report_ip_path *path;
  bool failed;
};

static void
add_step (void *ctx, int kind, uint32_t x, uint32_t y)
{
  struct decoder *d = ctx;
  report_ip_path *path = d->path;
  if (PP_RESERVE (path->steps, path->cap, (size_t) path->nsteps + 1, 64))
    {
      d->failed = true;
      return;
    }
  if (kind == PP_IP_STEP_EDGE && !d->nb->piecewise
      && d->nb->procs[x].edges[y].kind == PP_IP_SURROGATE_ENTRY)
    path->own = path->nsteps;
  path->steps[path->nsteps++] = (report_ip_step) { kind, x, y };
}

int
report_program_decode (const report_program *p, const mpz_t num,
		       report_ip_path *path)
{
  struct decoder d = { &p->nb, path, false };
  path->nsteps = path->own = 0;
  int rc = pp_ip_decode (&p->nb, num, add_step, &d);
  return rc ? rc : d.failed ? -1 : 0;
}

/* Adds COUNT executions of PATH to the edges it takes: a context path
   repeats, before its own part, the context of the activation it started in
   (Melski and Reps' context prefix), which the paths before it ran.  */
static void
add_path (report_program *p, const report_ip_path *path, uint64_t count)
{
  const pp_ip_numbering *nb = &p->nb;
  for (uint32_t i = path->own; i < path->nsteps; i++)
    {
      const report_ip_step *st = &path->steps[i];
      if (st->kind != PP_IP_STEP_EDGE)
	continue;
      const pp_ip_proc *ip = &nb->procs[st->a];
      const pp_ip_edge *ed = &ip->edges[st->b];
      uint32_t e = UINT32_MAX;
      if (ed->kind == PP_IP_EDGE)
	e = ed->arg;
      else if (ed->kind == PP_IP_SURROGATE_GEXIT && ip->back_of_edge[ed->arg] == 1)
	e = ed->arg;		/* the backedge that ends the path */
      else if (ed->kind == PP_IP_SURROGATE_ENTRY && ip->back_of_edge[ed->arg] == 2)
	e = ed->arg;		/* a re-entry (a backedge counts once, above) */
      const report_unit *ru;
      report_function *f = (report_function *) report_program_function (p, st->a, &ru);
      if (e < f->graph.nedges)
	f->edge_counts[e] = pp_sat_add (f->edge_counts[e], count);
    }
  /* Fake leaves are not taken from the paths: a path that a longjmp ends
     leaves the calls under way above where it lands, and no number tells
     where that was.  report_program_load derives them afterwards.  */
}

const report_root *
report_program_root (report_program *p, uint32_t root)
{
  if (root >= p->layout.prog.nprocs || !p->roots)
    return NULL;
  report_root *R = &p->roots[root];
  if (!R->tried)
    {
      R->tried = true;
      R->ok = pp_seg_build_numbered (&p->layout.prog, root, p->manifest.depth, &R->s,
				     &R->paths) == PP_SEG_OK;
      if (R->ok)
	{
	  size_t bits = R->paths->npaths > 1
			? 64 - (size_t) __builtin_clzll (R->paths->npaths - 1) : 1;
	  if (bits > p->bits)
	    p->bits = bits;
	}
    }
  return R->ok ? R : NULL;
}

static int
by_root (const void *a, const void *b)
{
  const uint64_t *x = *(const uint64_t *const *) a, *y = *(const uint64_t *const *) b;
  return x[1] != y[1] ? (x[1] > y[1]) - (x[1] < y[1]) : (x[0] > y[0]) - (x[0] < y[0]);
}

/* Segments: each root's counts decoded in its supergraph, their edge counts
   (pp_edge_counts_of_paths: re-entries from the starts, as in the paths
   mode) added to the functions of its copies.  */
static int
load_segments (report_program *p, char *err, size_t errlen)
{
  const pp_unit_data *u = p->data;
  if (u->nwide && u->wide_words != 2)
    {
      snprintf (err, errlen, "'%s': segment counts of %" PRIu32 " words, not 2 "
		"(a damaged profile)", u->name, u->wide_words);
      return -1;
    }
  p->roots = calloc (p->layout.prog.nprocs + 1, sizeof *p->roots);
  const uint64_t **by = malloc ((u->nwide + 1) * sizeof *by);
  pp_path_count *run = malloc ((u->nwide + 1) * sizeof *run);
  uint64_t *counts = NULL;
  int status = -1;
  if (!p->roots || !by || !run)
    {
      snprintf (err, errlen, "out of memory");
      goto out;
    }
  for (uint32_t i = 0; i < u->nwide; i++)
    by[i] = u->wide + (size_t) i * 3;
  qsort (by, u->nwide, sizeof *by, by_root);
  status = 0;
  for (uint32_t i = 0, j; i < u->nwide && status == 0; i = j)
    {
      uint64_t root = by[i][1];
      const report_root *R = root < UINT32_MAX ? report_program_root (p, (uint32_t) root) : NULL;
      for (j = i; j < u->nwide && by[j][1] == root; j++)
	{
	  run[j - i] = (pp_path_count) { by[j][0], by[j][2] };
	  if (R && by[j][0] >= R->paths->npaths)
	    R = NULL;
	  size_t bits = by[j][0] ? 64 - (size_t) __builtin_clzll (by[j][0]) : 1;
	  if (bits > p->largest_bits)
	    p->largest_bits = bits;
	}
      uint64_t *more = R ? realloc (counts, (R->s.g.nedges + 1) * sizeof *counts) : NULL;
      if (!R || !more)
	{
	  snprintf (err, errlen, "'%s': %s", u->name, !R && root >= p->layout.prog.nprocs
		    ? "a segment of no function of its units (a damaged profile)"
		    : !R ? "a segment number beyond its root's numbering (a damaged profile)"
		    : "out of memory");
	  status = -1;
	  break;
	}
      counts = more;
      if (pp_edge_counts_of_paths (&R->s.g, R->paths, run, j - i, counts, NULL))
	{
	  snprintf (err, errlen, "out of memory");
	  status = -1;
	  break;
	}
      for (uint32_t c = 0; c < R->s.ncopies; c++)
	{
	  const report_unit *ru;
	  report_function *f = (report_function *)
	    report_program_function (p, R->s.copies[c].proc, &ru);
	  for (uint32_t e = 0; e < f->graph.nedges; e++)
	    {
	      uint32_t se = pp_seg_edge (&R->s, c, e);
	      if (se != UINT32_MAX)
		f->edge_counts[e] = pp_sat_add (f->edge_counts[e], counts[se]);
	    }
	}
    }
out:
  free (by);
  free (run);
  free (counts);
  return status;
}

/* A block's fake leave (a call under way when the process or a longjmp
   left) ran as often as the block ran but was not left otherwise: flow
   conservation, as edge-counts derives it.  */
static void
derive_leaves (report_program *p)
{
  for (uint32_t m = 0; m < p->manifest.nunits; m++)
    for (uint32_t k = 0; k < p->units[m]->notes.nfunctions; k++)
      {
	report_function *f = &p->units[m]->functions[k];
	const pp_graph *g = &f->graph;
	for (uint32_t e = 0; e < g->nedges; e++)
	  {
	    const pp_edge *ed = &g->edges[e];
	    if (!(ed->flags & PP_EDGE_FAKE) || ed->dst != g->exit)
	      continue;
	    uint64_t flow = 0;
	    for (uint32_t i = g->pred_start[ed->src]; i < g->pred_start[ed->src + 1]; i++)
	      flow += f->edge_counts[g->pred_edges[i]];
	    for (uint32_t i = g->succ_start[ed->src]; i < g->succ_start[ed->src + 1]; i++)
	      if (g->succ_edges[i] != e)
		flow -= f->edge_counts[g->succ_edges[i]];
	    f->edge_counts[e] = flow;
	  }
      }
}

int
report_program_load (report_program *p, const report *r, char *err,
		     size_t errlen)
{
  const pp_unit_data *u = p->data, **member;
  if (pp_ip_record_open (&r->profile, u, &p->manifest, &member, err, errlen))
    return -1;
  uint32_t n = p->manifest.nunits;
  p->units = calloc (n + 1, sizeof *p->units);
  const pp_unit_notes **notes = calloc (n + 1, sizeof *notes);
  int status = -1;
  if (!p->units || !notes)
    {
      snprintf (err, errlen, "out of memory");
      goto out;
    }
  for (uint32_t m = 0; m < n; m++)
    {
      for (uint32_t i = 0; i < r->nunits && !p->units[m]; i++)
	if (r->units[i].data == member[m])
	  p->units[m] = &r->units[i];
      if (!p->units[m] || !p->units[m]->mode->calls)
	{
	  snprintf (err, errlen, "'%s': its unit '%s' (checksum %016llx) is not "
		    "in an interprocedural mode", u->name, p->manifest.names[m],
		    (unsigned long long) p->manifest.checksums[m]);
	  goto out;
	}
      notes[m] = &p->units[m]->notes;
      p->units[m]->numbered = true;
    }
  if (p->manifest.kind == PP_IP_SEGMENTS)
    {
      if (pp_ip_layout_build (notes, n, &p->layout))
	snprintf (err, errlen, "out of memory");
      else
	status = load_segments (p, err, errlen);
      if (status == 0)
	derive_leaves (p);
      goto out;
    }
  if (pp_ip_layout_build (notes, n, &p->layout)
      || pp_ip_number (&p->layout.prog, p->manifest.kind == PP_IP_PIECEWISE, &p->nb))
    {
      snprintf (err, errlen, "'%s': out of memory (or a program the numbering "
		"refuses)", u->name);
      goto out;
    }
  p->numbered = true;
  mpz_t num;
  mpz_init (num);
  report_ip_path path = { 0 };
  uint32_t w = u->wide_words;
  for (uint32_t i = 0; i < u->nwide; i++)
    {
      const uint64_t *e = u->wide + (size_t) i * (w + 1);
      mpz_import (num, w, -1, sizeof *e, 0, 0, e);
      int rc = report_program_decode (p, num, &path);
      if (rc == 0)
	add_path (p, &path, e[w]);
      else
	{
	  snprintf (err, errlen, "'%s': %s", u->name,
		    rc == -2 ? "a path number beyond the numbering of its units "
		    "(a damaged profile)" : "out of memory");
	  break;
	}
      size_t bits = mpz_sizeinbase (num, 2);
      if (bits > p->largest_bits)
	p->largest_bits = bits;
      if (i + 1 == u->nwide)
	status = 0;
    }
  if (u->nwide == 0)
    status = 0;
  if (status == 0)
    derive_leaves (p);
  free (path.steps);
  mpz_clear (num);
out:
  free (notes);
  pp_free (member);
  return status;
}

void
report_program_free (report_program *p)
{
  if (p->numbered)
    pp_ip_numbering_free (&p->nb);
  for (uint32_t i = 0; p->roots && i < p->layout.prog.nprocs; i++)
    {
      pp_seg_free (&p->roots[i].s);
      pp_paths_free (p->roots[i].paths);
    }
  free (p->roots);
  pp_ip_layout_free (&p->layout);
  pp_ip_manifest_free (&p->manifest);
  free (p->units);
  memset (p, 0, sizeof *p);
}
