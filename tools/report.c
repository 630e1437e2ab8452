/* The report layer: reading a profile and turning each unit's values into
   per-function counts.  */

#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edgeprof.h"

/* A mode reader fills f->edge_counts, f->edge_source and f->unknown_edges from the
   unit's values; f->graph is built.  Returns 0, or -1 with a reason in err.  */
typedef int (*mode_reader_fn) (report_function *f, const pp_unit_data *u,
			       char *err, size_t errlen);

static int read_edge_counts (report_function *f, const pp_unit_data *u,
			     char *err, size_t errlen);

static const struct mode_reader
{
  uint32_t mode;
  uint32_t value_kind;
  mode_reader_fn read;
} mode_readers[] = {
  { PP_MODE_EDGE_COUNTS, PP_VALUES_U64, read_edge_counts },
};

static const struct mode_reader *
find_mode_reader (uint32_t mode)
{
  for (size_t i = 0; i < sizeof mode_readers / sizeof *mode_readers; i++)
    if (mode_readers[i].mode == mode)
      return &mode_readers[i];
  return NULL;
}

/* Edge counters on the chords of a spanning tree: the other edges are derived by
   flow propagation.  */
static int
read_edge_counts (report_function *f, const pp_unit_data *u, char *err,
		  size_t errlen)
{
  const pp_function_notes *fn = f->notes;
  size_t n = fn->nedges ? fn->nedges : 1;
  int32_t *counter_of_edge = malloc (n * sizeof *counter_of_edge);
  bool *known = malloc (n * sizeof *known);
  if (!counter_of_edge || !known)
    {
      free (counter_of_edge);
      free (known);
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  for (uint32_t e = 0; e < fn->nedges; e++)
    counter_of_edge[e] = fn->edges[e].value;
  const uint64_t *counters
    = fn->nvalues ? (const uint64_t *) u->values + fn->value_offset : NULL;
  int rc = pp_propagate_counts_signed_fakes (&f->graph, counter_of_edge, counters,
				f->edge_counts, known);
  if (rc == 0 || rc == 2)
    for (uint32_t e = 0; e < fn->nedges; e++)
      {
	if (counter_of_edge[e] >= 0)
	  f->edge_source[e] = REPORT_EDGE_MEASURED;
	else if (rc == 0 || known[e])
	  f->edge_source[e] = REPORT_EDGE_DERIVED;
	else
	  {
	    f->edge_source[e] = REPORT_EDGE_UNKNOWN;
	    f->edge_counts[e] = 0;
	    f->unknown_edges++;
	  }
      }
  free (counter_of_edge);
  free (known);
  switch (rc)
    {
    case 0:
    case 2:
      return 0;
    case 1:
      snprintf (err, errlen, "the counters contradict the control-flow graph "
		"(stale or corrupted profile)");
      return -1;
    default:
      snprintf (err, errlen, "out of memory");
      return -1;
    }
}

int
report_decode_unit (const pp_unit_data *u, pp_unit_notes *notes, char *err,
		    size_t errlen)
{
  char why[256];
  if (pp_notes_decode (u->notes, u->notes_len, notes, why, sizeof why))
    {
      snprintf (err, errlen, "unit '%s': %s", u->name, why);
      return -1;
    }
  if (pp_notes_check_values (notes, u->nvalues, why, sizeof why))
    {
      snprintf (err, errlen, "unit '%s': %s", u->name, why);
      pp_notes_free (notes);
      return -1;
    }
  return 0;
}

static int
load_function (report_function *f, const pp_function_notes *fn,
	       const pp_unit_data *u, const struct mode_reader *reader,
	       char *err, size_t errlen)
{
  if (pp_notes_function_graph (fn, &f->graph))
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  f->notes = fn;
  size_t nedges = fn->nedges ? fn->nedges : 1;
  f->edge_counts = calloc (nedges, sizeof *f->edge_counts);
  f->edge_source = calloc (nedges, sizeof *f->edge_source);
  f->block_counts = calloc (fn->nblocks, sizeof *f->block_counts);
  if (!f->edge_counts || !f->edge_source || !f->block_counts)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  if (reader->read (f, u, err, errlen))
    return -1;

  for (uint32_t v = 0; v < fn->nblocks; v++)
    f->block_counts[v] = line_counts_node_count (&f->graph, f->edge_counts, v);
  const pp_graph *g = &f->graph;
  for (uint32_t i = g->succ_start[g->entry]; i < g->succ_start[g->entry + 1];
       i++)
    {
      uint32_t e = g->succ_edges[i];
      if (!(g->edges[e].flags & PP_EDGE_FAKE))
	f->calls = pp_sat_add (f->calls, f->edge_counts[e]);
    }
  return 0;
}

static int
load_unit (report_unit *ru, const pp_unit_data *u, char *err, size_t errlen)
{
  char why[256];
  ru->data = u;
  if (report_decode_unit (u, &ru->notes, err, errlen))
    return -1;
  const struct mode_reader *reader = find_mode_reader (ru->notes.mode);
  if (!reader)
    {
      snprintf (err, errlen, "unit '%s': mode '%s' cannot be reported by this "
		"version of pathprof", u->name,
		pp_mode_name (ru->notes.mode));
      return -1;
    }
  if (u->value_kind != reader->value_kind)
    {
      snprintf (err, errlen, "unit '%s': mode '%s' with values of the wrong "
		"kind (%" PRIu32 ")", u->name,
		pp_mode_name (ru->notes.mode), u->value_kind);
      return -1;
    }
  ru->functions = calloc (ru->notes.nfunctions ? ru->notes.nfunctions : 1,
			  sizeof *ru->functions);
  if (!ru->functions)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  for (uint32_t i = 0; i < ru->notes.nfunctions; i++)
    if (load_function (&ru->functions[i], &ru->notes.functions[i], u, reader,
		       why, sizeof why))
      {
	snprintf (err, errlen, "unit '%s': function '%s': %s", u->name,
		  ru->notes.functions[i].name, why);
	return -1;
      }
  return 0;
}

int
report_load (report *r, const char *path, char *err, size_t errlen)
{
  memset (r, 0, sizeof *r);
  if (pp_profile_read_file (path, &r->profile, NULL, err, errlen))
    return -1;
  r->units = calloc (r->profile.nunits ? r->profile.nunits : 1,
		     sizeof *r->units);
  if (!r->units)
    {
      snprintf (err, errlen, "out of memory");
      report_free (r);
      return -1;
    }
  for (uint32_t i = 0; i < r->profile.nunits; i++)
    {
      /* Counted first so that report_free releases a partly loaded unit.  */
      r->nunits++;
      if (load_unit (&r->units[i], &r->profile.units[i], err, errlen))
	{
	  report_free (r);
	  return -1;
	}
    }
  return 0;
}

void
report_free (report *r)
{
  for (uint32_t i = 0; i < r->nunits; i++)
    {
      report_unit *ru = &r->units[i];
      if (ru->functions)
	for (uint32_t j = 0; j < ru->notes.nfunctions; j++)
	  {
	    report_function *f = &ru->functions[j];
	    if (f->notes)
	      pp_graph_free (&f->graph);
	    free (f->edge_counts);
	    free (f->edge_source);
	    free (f->block_counts);
	  }
      free (ru->functions);
      pp_notes_free (&ru->notes);
    }
  free (r->units);
  pp_profile_free (&r->profile);
  memset (r, 0, sizeof *r);
}

bool
report_function_selected (const report_function *f, const char *name)
{
  return !name || strcmp (f->notes->name, name) == 0
	 || strcmp (f->notes->asm_name, name) == 0;
}

/* path without "." components, repeated slashes and "dir/.." pairs, so that one file
   reached by different spellings (#include "./x.c") is one source, as in gcov.
   Returns a malloc'd string, or NULL.  */
static char *
canonical_path (const char *path)
{
  size_t len = strlen (path);
  char *out = malloc (len + 2);
  if (!out)
    return NULL;
  bool absolute = path[0] == '/';
  size_t n = 0;			/* length of out */
  size_t kept = 0;		/* components in out that a ".." may remove */
  for (const char *p = path; *p;)
    {
      size_t c = strcspn (p, "/");
      if ((c == 1 && p[0] == '.') || c == 0)
	;
      else if (c == 2 && p[0] == '.' && p[1] == '.' && (kept || absolute))
	{
	  if (kept)
	    {
	      while (n > 0 && out[n - 1] != '/')
		n--;
	      if (n > 0)
		n--;
	      kept--;
	    }
	}
      else
	{
	  if (n > 0 || absolute)
	    out[n++] = '/';
	  memcpy (out + n, p, c);
	  n += c;
	  kept += !(c == 2 && p[0] == '.' && p[1] == '.');
	}
      p += c + (p[c] == '/');
    }
  if (n == 0)
    out[n++] = absolute ? '/' : '.';
  out[n] = '\0';
  return out;
}

int
report_lines_compute (report_lines *rl, const report *r,
		      const char *function_name)
{
  line_counts_init (&rl->lc);
  rl->nunits = 0;
  rl->source_of_file = calloc (r->nunits ? r->nunits : 1,
			       sizeof *rl->source_of_file);
  if (!rl->source_of_file)
    return -1;
  rl->nunits = r->nunits;
  for (uint32_t u = 0; u < r->nunits; u++)
    {
      const report_unit *ru = &r->units[u];
      uint32_t *map = calloc (ru->notes.nfiles ? ru->notes.nfiles : 1,
			      sizeof *map);
      if (!map)
	return -1;
      rl->source_of_file[u] = map;
      for (uint32_t i = 0; i < ru->notes.nfiles; i++)
	{
	  char *path = canonical_path (ru->notes.files[i]);
	  int rc = path ? line_counts_source (&rl->lc, path, &map[i]) : -1;
	  free (path);
	  if (rc)
	    return -1;
	}
      for (uint32_t i = 0; i < ru->notes.nfunctions; i++)
	{
	  const report_function *f = &ru->functions[i];
	  if (report_function_selected (f, function_name)
	      && line_counts_add_function (&rl->lc, &f->graph, f->edge_counts,
					   f->notes->blocks, map))
	    return -1;
	}
      if (line_counts_commit (&rl->lc))
	return -1;
    }
  return 0;
}

void
report_lines_free (report_lines *rl)
{
  for (uint32_t u = 0; u < rl->nunits; u++)
    free (rl->source_of_file[u]);
  free (rl->source_of_file);
  line_counts_free (&rl->lc);
  memset (rl, 0, sizeof *rl);
}
