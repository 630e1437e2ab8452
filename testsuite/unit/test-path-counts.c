/* Unit tests of the paths mode's reader (tools/path-counts.c).  Random CFGs in the
   plugin's model, some edges flagged as path ends, are numbered as the tool
   numbers them; random executions count every path they complete, as the
   instrumented code does, in a counter array or as sparse counts; the profile,
   written to a file and loaded by report_load, must give back every edge count the
   executions made.  Then the cases the paths cannot tell apart, and profiles whose
   counts do not fit the numbering.  The work the probes did (function_path_work)
   must be what the executions counted edge by edge, with the probe kinds of a
   placement for random weights in the notes.  */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "hash.h"
#include "paths.h"
#include "../../tools/path-counts.h"
#include "../../tools/report.h"

#define MAX_NODES 12
#define MAX_EDGES 64
#define NFUNCTIONS 3
#define ARRAY_MAX 64		/* more paths than this: sparse counts */
#define WANDERING_STEPS 30

static struct unit_property prop_edges = { .name = "path counts: every edge count from the "
				      "paths of random executions" };
static struct unit_property prop_work = { .name = "path counts: probe work of random "
				      "executions, placed and simple" };
static struct unit_property prop_both = { .name = "path counts: counter arrays and sparse "
				     "counts both read" };

struct function_case
{
  pp_graph g;
  bool path_end[MAX_EDGES];
  pp_paths *p;
  pp_paths *plan;		/* the same numbering, with a placement */
  uint64_t *path_counts;	/* npaths */
  uint64_t expected[MAX_EDGES];	/* per edge, from the executions */
  path_probe_work work;		/* the executions' probe work, edge by edge */
  uint32_t dist[MAX_NODES];	/* steps to EXIT over the edges walks take */
};

/* Whether a walk may take edge e: real edges, and a fake leave only when it is
   its block's only way out (a call that never returns); a leave from a block with
   other successors would lose the path, which the reader cannot know about.  */
static bool
walkable (const pp_graph *g, uint32_t e)
{
  const pp_edge *x = &g->edges[e];
  if (x->flags & PP_EDGE_EXIT_ENTRY)
    return false;
  if (!(x->flags & PP_EDGE_FAKE))
    return true;
  return x->dst == g->exit && pp_graph_out_degree (g, x->src) == 1;
}

/* ENTRY (0) falls into block 2; blocks branch anywhere or return, some end in a
   call that never returns, some have a call that may not return, some are
   re-entered by longjmp (never block 2: the entry and a re-entry into one block
   cannot be told apart).  Every block can reach EXIT.  */
static void
random_function (struct function_case *c, unsigned long long *rng)
{
  uint32_t n = 3 + unit_rand (rng) % (MAX_NODES - 2);
  if (pp_graph_init (&c->g, n, 0, 1))
    abort ();
  pp_graph_add_edge (&c->g, 0, 2, PP_EDGE_FALLTHRU);
  for (uint32_t v = 2; v < n; v++)
    {
      if (v > 2 && unit_rand (rng) % 8 == 0)
	pp_graph_add_edge (&c->g, 0, v, PP_EDGE_FAKE);
      if (unit_rand (rng) % 7 == 0)
	{
	  pp_graph_add_edge (&c->g, v, 1, PP_EDGE_FAKE);
	  continue;
	}
      uint32_t nsucc = 1 + unit_rand (rng) % 3;
      for (uint32_t i = 0; i < nsucc; i++)
	pp_graph_add_edge (&c->g, v, unit_rand (rng) % 5 == 0
			   ? 1 : 2 + unit_rand (rng) % (n - 2),
			   i == 0 ? PP_EDGE_TRUE : PP_EDGE_FALSE);
      if (v + 1 < n)
	pp_graph_add_edge (&c->g, v, v + 1, PP_EDGE_FALLTHRU);
      else
	pp_graph_add_edge (&c->g, v, 1, 0);
      if (unit_rand (rng) % 4 == 0)
	pp_graph_add_edge (&c->g, v, 1, PP_EDGE_FAKE);
    }
  pp_graph_add_edge (&c->g, 1, 0, PP_EDGE_EXIT_ENTRY);
  if (pp_graph_finish (&c->g))
    abort ();
  for (uint32_t e = 0; e < c->g.nedges; e++)
    {
      const pp_edge *x = &c->g.edges[e];
      c->path_end[e] = !(x->flags & (PP_EDGE_FAKE | PP_EDGE_EXIT_ENTRY))
		       && x->src != 0 && x->dst != 1 && unit_rand (rng) % 6 == 0;
      if (c->path_end[e])
	c->g.edges[e].flags |= PP_EDGE_PATH_END;
    }
}

/* Distances to EXIT over walkable edges (Bellman-Ford: the graphs are tiny).  */
static void
distances_to_exit (struct function_case *c)
{
  const pp_graph *g = &c->g;
  for (uint32_t v = 0; v < g->nnodes; v++)
    c->dist[v] = v == g->exit ? 0 : UINT32_MAX;
  for (uint32_t round = 0; round < g->nnodes; round++)
    for (uint32_t e = 0; e < g->nedges; e++)
      if (walkable (g, e) && c->dist[g->edges[e].dst] != UINT32_MAX
	  && c->dist[g->edges[e].dst] + 1 < c->dist[g->edges[e].src])
	c->dist[g->edges[e].src] = c->dist[g->edges[e].dst] + 1;
}

/* A path under way: its edges, and the edges to count with it once it completes
   (the start edge that began it, the cut that ends it).  */
struct segment
{
  pp_path path;
  /* Room for the longest: the wandering steps, then fewer steps to EXIT than
     there are blocks.  */
  uint32_t edges[WANDERING_STEPS + MAX_NODES + 1];
  uint32_t start_edge;
};

static void
begin (struct segment *s, uint32_t start_node, uint32_t start_edge)
{
  s->path.start_node = start_node;
  s->path.nedges = 0;
  s->path.edges = s->edges;
  s->start_edge = start_edge;
}

static bool
complete (struct function_case *c, struct segment *s, uint32_t end_edge)
{
  uint64_t number;
  s->path.end_edge = end_edge;
  if (pp_paths_encode (c->p, &s->path, &number) != PP_PATHS_OK)
    return false;
  c->path_counts[number]++;
  c->work.paths++;
  c->work.simple_updates++;	/* r = 0 or r = Val(start) at its start */
  for (uint32_t i = 0; i < s->path.nedges; i++)
    c->expected[s->path.edges[i]]++;
  if (end_edge != PP_PATH_NONE)
    c->expected[end_edge]++;
  if (s->start_edge != PP_PATH_NONE)
    c->expected[s->start_edge]++;
  return true;
}

/* One execution from the function's entry: random steps, then the shortest way
   to EXIT; a call that never returns may longjmp to a re-entry target.  Returns
   false when a completed segment is not a path of the numbering.  */
static bool
execute (struct function_case *c, unsigned long long *rng)
{
  const pp_graph *g = &c->g;
  const pp_paths *p = c->p;
  struct segment s;
  uint32_t e = g->succ_edges[g->succ_start[g->entry]];
  begin (&s, g->entry, PP_PATH_NONE);
  for (uint32_t step = 0;; step++)
    {
      uint32_t t = g->edges[e].dst;
      uint8_t role = p->role[e];
      const pp_path_action *a = &c->plan->action[e];
      c->work.counts += a->count != PP_PATH_COUNT_NONE;
      c->work.updates += a->reg != PP_PATH_REG_NONE;
      c->work.simple_updates += role == PP_PATH_ROLE_DAG
				&& p->dag_val[p->dag_of_edge[e]] != 0;
      if (role == PP_PATH_ROLE_BACK || role == PP_PATH_ROLE_CUT)
	{
	  if (!complete (c, &s, e))
	    return false;
	  begin (&s, t, PP_PATH_NONE);
	}
      else if (role == PP_PATH_ROLE_START)
	begin (&s, t, e);
      else
	s.edges[s.path.nedges++] = e;
      if (t == g->exit)
	{
	  if (!complete (c, &s, PP_PATH_NONE))
	    return false;
	  c->expected[g->nedges - 1]++;	/* the closing edge, added last */
	  if (!(g->edges[e].flags & PP_EDGE_FAKE) || unit_rand (rng) % 2)
	    return true;
	  uint32_t n = 0, pick = PP_PATH_NONE;
	  for (uint32_t i = g->succ_start[g->entry]; i < g->succ_start[g->entry + 1];
	       i++)
	    if (g->edges[g->succ_edges[i]].flags & PP_EDGE_FAKE
		&& unit_rand (rng) % ++n == 0)
	      pick = g->succ_edges[i];
	  if (pick == PP_PATH_NONE)
	    return true;
	  e = pick;
	  begin (&s, g->entry, PP_PATH_NONE);
	  continue;
	}
      uint32_t n = 0, pick = PP_PATH_NONE;
      for (uint32_t i = g->succ_start[t]; i < g->succ_start[t + 1]; i++)
	{
	  uint32_t x = g->succ_edges[i];
	  if (walkable (g, x)
	      && (step < WANDERING_STEPS
		  || c->dist[g->edges[x].dst] < c->dist[t])
	      && unit_rand (rng) % ++n == 0)
	    pick = x;
	}
      e = pick;
    }
}

static void
notes_of (const struct function_case *c, pp_function_notes *fn, uint32_t index,
	  uint32_t value_offset)
{
  static char names[NFUNCTIONS][8];
  snprintf (names[index], sizeof names[index], "f%u", index);
  *fn = (pp_function_notes) {
    .asm_name = names[index], .name = names[index], .decl_line = 1 + index,
    .value_offset = value_offset,
    .nvalues = c->p->npaths <= ARRAY_MAX ? (uint32_t) c->p->npaths : 0,
    .nblocks = c->g.nnodes, .nedges = c->g.nedges };
  fn->blocks = calloc (c->g.nnodes, sizeof *fn->blocks);
  fn->edges = calloc (c->g.nedges, sizeof *fn->edges);
  if (!fn->blocks || !fn->edges)
    abort ();
  for (uint32_t v = 0; v < c->g.nnodes; v++)
    fn->blocks[v].value = -1;
  for (uint32_t e = 0; e < c->g.nedges; e++)
    {
      const pp_path_action *a = c->plan ? &c->plan->action[e] : NULL;
      uint32_t probe = !a ? 0
		       : (a->count != PP_PATH_COUNT_NONE ? PP_EDGE_PATH_COUNT : 0)
			 | (a->reg != PP_PATH_REG_NONE ? PP_EDGE_PATH_REG : 0);
      fn->edges[e] = (pp_edge_notes) { c->g.edges[e].src, c->g.edges[e].dst,
				       c->g.edges[e].flags | probe, -1 };
    }
}

/* Writes a profile of one unit with the given notes and values to path.  */
static void
write_unit (const char *path, const pp_unit_notes *notes, pp_unit_data *u)
{
  size_t len;
  unsigned char *buf;
  if (pp_notes_encode (notes, &u->notes, &len))
    abort ();
  u->notes_len = (uint32_t) len;
  u->checksum = pp_hash64 (u->notes, len, PP_HASH_SEED);
  pp_profile p = { .nunits = 1, .cap = 1, .units = u };
  FILE *f = fopen (path, "wb");
  if (pp_profile_encode (&p, &buf, &len) || !f || fwrite (buf, 1, len, f) != len)
    abort ();
  fclose (f);
  free (buf);
  free (u->notes);
}

/* Writes a one-unit profile of the functions' notes and path counts to path.  */
static void
write_profile (const char *path, struct function_case *cases, uint32_t n)
{
  pp_function_notes fns[NFUNCTIONS];
  char *files[1] = { "/src/paths.c" };
  uint32_t nvalues = 0, nsparse = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      notes_of (&cases[i], &fns[i], i, nvalues);
      nvalues += fns[i].nvalues;
    }
  pp_unit_notes notes = { .mode = PP_MODE_PATHS, .unit_name = "/src/paths.c",
			  .nfiles = 1, .files = files, .nfunctions = n,
			  .functions = fns };
  uint64_t *values = calloc (nvalues + 1, sizeof *values);
  pp_sparse_count *sparse = calloc (n * (ARRAY_MAX * 64 + 1), sizeof *sparse);
  if (!values || !sparse)
    abort ();
  for (uint32_t i = 0; i < n; i++)
    for (uint64_t k = 0; k < cases[i].p->npaths; k++)
      if (fns[i].nvalues)
	values[fns[i].value_offset + k] = cases[i].path_counts[k];
      else if (cases[i].path_counts[k])
	sparse[nsparse++] = (pp_sparse_count) { i, k, cases[i].path_counts[k] };
  pp_unit_data u = { .name = "/src/paths.c", .runs = 1,
		     .value_kind = PP_VALUES_U64, .nvalues = nvalues,
		     .values = values, .nsparse = nsparse, .sparse = sparse };
  write_unit (path, &notes, &u);
  free (values);
  free (sparse);
  for (uint32_t i = 0; i < n; i++)
    {
      free (fns[i].blocks);
      free (fns[i].edges);
    }
}

static void
free_case (struct function_case *c)
{
  pp_paths_free (c->p);
  pp_paths_free (c->plan);
  free (c->path_counts);
  pp_graph_free (&c->g);
}

/* A function whose paths the tool can number, with ARRAY_MAX * 64 paths at most
   so that its counts stay small.  */
static void
numbered_function (struct function_case *c, unsigned long long *rng)
{
  for (;;)
    {
      memset (c, 0, sizeof *c);
      random_function (c, rng);
      if (pp_paths_number (&c->g, c->path_end, &c->p) == PP_PATHS_OK
	  && c->p->npaths <= ARRAY_MAX * 64)
	break;
      free_case (c);
    }
  /* The plugin's plan of the same function: weights at random (0 to 99, so
     some tie), no region cuts at this size, so the same numbering.  */
  double weights[MAX_EDGES];
  for (uint32_t e = 0; e < c->g.nedges; e++)
    weights[e] = (double) (unit_rand (rng) % 100);
  pp_paths_options opt = { .weights = weights, .path_end = c->path_end };
  if (pp_paths_plan (&c->g, &opt, &c->plan) != PP_PATHS_OK
      || c->plan->npaths != c->p->npaths)
    abort ();
  c->path_counts = calloc (c->p->npaths + 1, sizeof *c->path_counts);
  if (!c->path_counts)
    abort ();
  distances_to_exit (c);
}

static void
test_random_executions (const char *path)
{
  unsigned long long rng = 0x9a7c0de5ull;
  bool seen_array = false, seen_sparse = false;
  for (int iter = 0; iter < 400; iter++)
    {
      struct function_case cases[NFUNCTIONS];
      bool encodable = true;
      for (uint32_t i = 0; i < NFUNCTIONS; i++)
	{
	  numbered_function (&cases[i], &rng);
	  uint32_t runs = 1 + unit_rand (&rng) % 20;
	  for (uint32_t r = 0; r < runs && encodable; r++)
	    encodable = execute (&cases[i], &rng);
	  seen_array |= cases[i].p->npaths <= ARRAY_MAX;
	  seen_sparse |= cases[i].p->npaths > ARRAY_MAX;
	}
      unit_check (&prop_edges, encodable, "iteration %d: an execution's segment is "
	     "not a path", iter);
      write_profile (path, cases, NFUNCTIONS);
      report r;
      char err[512];
      if (report_load (&r, path, err, sizeof err))
	unit_check (&prop_edges, false, "iteration %d: %s", iter, err);
      else
	{
	  for (uint32_t i = 0; i < NFUNCTIONS; i++)
	    {
	      const report_function *f = &r.units[0].functions[i];
	      for (uint32_t e = 0; e < cases[i].g.nedges; e++)
		unit_check (&prop_edges, f->edge_counts[e] == cases[i].expected[e]
		       && f->edge_source[e] == REPORT_EDGE_DERIVED,
		       "iteration %d function %u edge %u (%u -> %u, role %u): "
		       "count %llu, %llu expected", iter, i, e,
		       cases[i].g.edges[e].src, cases[i].g.edges[e].dst,
		       cases[i].p->role[e], (unsigned long long) f->edge_counts[e],
		       (unsigned long long) cases[i].expected[e]);
	      unit_check (&prop_edges, f->unknown_edges == 0,
		     "iteration %d function %u: %u unknown edges", iter, i,
		     f->unknown_edges);
	      path_probe_work w = { 0 }, *x = &cases[i].work;
	      function_paths fp;
	      int rc = function_paths_load (&fp, f, r.units[0].data, err,
					    sizeof err);
	      if (rc == 0)
		rc = function_path_work (f, &fp, &w, err, sizeof err);
	      function_paths_free (&fp);
	      if (rc)
		unit_check (&prop_work, false, "iteration %d function %u: %s",
			    iter, i, err);
	      else
		unit_check (&prop_work, w.paths == x->paths
			    && w.counts == x->counts && w.counts == x->paths
			    && w.updates == x->updates
			    && w.simple_updates == x->simple_updates,
			    "iteration %d function %u: paths %llu/%llu, counts "
			    "%llu/%llu, updates %llu/%llu, simple %llu/%llu",
			    iter, i, (unsigned long long) w.paths,
			    (unsigned long long) x->paths,
			    (unsigned long long) w.counts,
			    (unsigned long long) x->counts,
			    (unsigned long long) w.updates,
			    (unsigned long long) x->updates,
			    (unsigned long long) w.simple_updates,
			    (unsigned long long) x->simple_updates);
	    }
	  report_free (&r);
	}
      for (uint32_t i = 0; i < NFUNCTIONS; i++)
	free_case (&cases[i]);
    }
  unit_report (&prop_edges);
  unit_report (&prop_work);
  unit_check (&prop_both, seen_array && seen_sparse, "arrays %d, sparse %d",
	 seen_array, seen_sparse);
  unit_report (&prop_both);
}

/* ENTRY -> 2 twice (the function's entry and a longjmp's re-entry), 2 -> EXIT:
   the paths that start at 2 do not say which way they came.  */
static void
test_ambiguous_start (const char *path)
{
  struct function_case c;
  memset (&c, 0, sizeof c);
  if (pp_graph_init (&c.g, 3, 0, 1))
    abort ();
  pp_graph_add_edge (&c.g, 0, 2, PP_EDGE_FALLTHRU);
  pp_graph_add_edge (&c.g, 0, 2, PP_EDGE_FAKE);
  pp_graph_add_edge (&c.g, 2, 1, 0);
  pp_graph_add_edge (&c.g, 1, 0, PP_EDGE_EXIT_ENTRY);
  if (pp_graph_finish (&c.g) || pp_paths_number (&c.g, NULL, &c.p)
      || c.p->npaths != 1)
    abort ();
  c.path_counts = calloc (1, sizeof *c.path_counts);
  bool ok = true;
  for (uint64_t count = 0; count < 2; count++)
    {
      c.path_counts[0] = count * 5;
      write_profile (path, &c, 1);
      report r;
      char err[512];
      ok = ok && report_load (&r, path, err, sizeof err) == 0;
      if (!ok)
	break;
      const report_function *f = &r.units[0].functions[0];
      ok = f->edge_counts[2] == count * 5 && f->edge_counts[3] == count * 5
	   && f->unknown_edges == 2 * count
	   && f->edge_source[0] == (count ? REPORT_EDGE_UNKNOWN : REPORT_EDGE_DERIVED)
	   && f->edge_source[1] == f->edge_source[0];
      report_free (&r);
    }
  free_case (&c);
  unit_result (ok, "path counts: entry and re-entry into one block are unknown "
	       "unless no path started there", "wrong counts or sources");
}

/* Loads path and expects an error mentioning expect.  */
static bool
load_fails_with (const char *path, const char *expect)
{
  report r;
  char err[512] = "";
  if (report_load (&r, path, err, sizeof err) == 0)
    {
      report_free (&r);
      printf ("note: loaded, expected '%s'\n", expect);
      return false;
    }
  if (!strstr (err, expect) || !strstr (err, "function 'f0'"))
    {
      printf ("note: error '%s' lacks '%s'\n", err, expect);
      return false;
    }
  return true;
}

/* Rewrites the profile at path with its unit changed by edit.  */
static void
edit_profile (const char *path, void (*edit) (pp_unit_data *))
{
  pp_profile p;
  char err[256];
  unsigned char *buf;
  size_t len;
  if (pp_profile_read_file (path, &p, NULL, err, sizeof err))
    abort ();
  edit (&p.units[0]);
  FILE *f = fopen (path, "wb");
  if (pp_profile_encode (&p, &buf, &len) || !f || fwrite (buf, 1, len, f) != len)
    abort ();
  fclose (f);
  free (buf);
  pp_profile_free (&p);
}

static void
add_sparse_count (pp_unit_data *u, uint64_t path)
{
  pp_sparse_count *s = realloc (u->sparse, (u->nsparse + 1) * sizeof *s);
  if (!s)
    abort ();
  u->sparse = s;
  u->sparse[u->nsparse++] = (pp_sparse_count) { 0, path, 1 };
}

static void
add_path_out_of_range (pp_unit_data *u)
{
  add_sparse_count (u, 1 << 20);
}

static void
add_sparse_to_array (pp_unit_data *u)
{
  add_sparse_count (u, 0);
}

/* One function with the given number of counters (npaths when -1).  */
static void
write_single (const char *path, int nvalues, bool sparse)
{
  unsigned long long rng = 7;
  struct function_case c;
  for (;;)
    {
      numbered_function (&c, &rng);
      if ((c.p->npaths > ARRAY_MAX) == sparse)
	break;
      free_case (&c);
    }
  if (nvalues < 0)
    write_profile (path, &c, 1);
  else
    {
      /* A unit claiming nvalues counters for the function: rebuild its notes.  */
      pp_function_notes fn;
      notes_of (&c, &fn, 0, 0);
      fn.nvalues = (uint32_t) nvalues;
      char *files[1] = { "/src/paths.c" };
      pp_unit_notes notes = { .mode = PP_MODE_PATHS, .unit_name = "/src/paths.c",
			      .nfiles = 1, .files = files, .nfunctions = 1,
			      .functions = &fn };
      uint64_t values[ARRAY_MAX + 2] = { 0 };
      pp_unit_data u = { .name = "/src/paths.c", .runs = 1,
			 .value_kind = PP_VALUES_U64, .nvalues = (uint32_t) nvalues,
			 .values = values };
      write_unit (path, &notes, &u);
      free (fn.blocks);
      free (fn.edges);
    }
  free_case (&c);
}

static void
test_errors (const char *path)
{
  bool ok = true;
  write_single (path, ARRAY_MAX + 1, false);
  ok &= load_fails_with (path, "path counters for");
  write_single (path, -1, true);
  edit_profile (path, add_path_out_of_range);
  ok &= load_fails_with (path, "a count of path 1048576");
  write_single (path, -1, false);
  edit_profile (path, add_sparse_to_array);
  ok &= load_fails_with (path, "both in counters and in a table");
  unit_result (ok, "path counts: counts that do not fit the numbering are "
	       "refused, naming the function", "see notes");
}

int
main (void)
{
  char path[] = "/tmp/test-path-counts-XXXXXX";
  int fd = mkstemp (path);
  if (fd < 0)
    {
      unit_result (0, "path counts: scratch file", "mkstemp failed");
      return 1;
    }
  close (fd);
  test_random_executions (path);
  test_ambiguous_start (path);
  test_errors (path);
  unlink (path);
  return unit_exit_status ();
}
