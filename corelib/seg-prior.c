/* What a profile of segments says about a root (prior.h, "Segments").  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/alloc.h"
#include "ip-notes.h"
#include "prior.h"
#include "segments.h"

struct pp_seg_record
{
  const pp_unit_data *data;
  pp_ip_manifest manifest;
  pp_unit_notes *notes;		/* per member unit, manifest order */
  pp_ip_layout layout;
  bool laid_out;
  uint64_t *cfg_checksum;	/* per procedure */
};

static void
free_record (struct pp_seg_record *r)
{
  if (r->notes)
    for (uint32_t m = 0; m < r->manifest.nunits; m++)
      pp_notes_free (&r->notes[m]);
  pp_free (r->notes);
  if (r->laid_out)
    pp_ip_layout_free (&r->layout);
  pp_ip_manifest_free (&r->manifest);
  pp_free (r->cfg_checksum);
}

void
pp_seg_prior_free (pp_seg_prior *sp)
{
  for (uint32_t i = 0; i < sp->nrecords; i++)
    free_record (&sp->records[i]);
  pp_free (sp->records);
  memset (sp, 0, sizeof *sp);
}

/* Record R of PRIOR (whose manifest it decodes): its member units decoded
   and laid out as libprof laid them out.  */
static int
open_record (const pp_prior *prior, struct pp_seg_record *r, uint32_t depth,
	     char *err, size_t errlen)
{
  char why[256];
  const pp_unit_data *u = r->data, **member;
  if (pp_ip_record_open (&prior->profile, u, &r->manifest, &member, err, errlen))
    return -1;
  int status = -1;
  const pp_unit_notes **list = NULL;
  if (r->manifest.kind != PP_IP_SEGMENTS || r->manifest.depth != depth)
    {
      snprintf (err, errlen, "'%s' counts %s, not segments of depth %" PRIu32
		" (-fplugin-arg-pathprof-depth)", u->name,
		r->manifest.kind == PP_IP_SEGMENTS ? "segments of another depth"
		: "context or piecewise paths", depth);
      goto out;
    }
  if (u->nwide && u->wide_words != 2)
    {
      snprintf (err, errlen, "'%s': segment counts of %" PRIu32 " words, not 2",
		u->name, u->wide_words);
      goto out;
    }
  uint32_t n = r->manifest.nunits;
  r->notes = pp_calloc (n + 1, sizeof *r->notes);
  list = pp_calloc (n + 1, sizeof *list);
  if (!r->notes || !list)
    {
      snprintf (err, errlen, "out of memory");
      goto out;
    }
  for (uint32_t m = 0; m < n; m++)
    {
      const pp_unit_data *d = member[m];
      if (pp_notes_decode (d->notes, d->notes_len, &r->notes[m], why, sizeof why))
	{
	  snprintf (err, errlen, "unit '%s': %s", d->name, why);
	  goto out;
	}
      list[m] = &r->notes[m];
    }
  if (pp_ip_layout_build (list, n, &r->layout))
    {
      snprintf (err, errlen, "out of memory");
      goto out;
    }
  r->laid_out = true;
  r->cfg_checksum = pp_ip_layout_cfg_checksums (&r->layout, r->notes);
  if (!r->cfg_checksum)
    {
      snprintf (err, errlen, "out of memory");
      goto out;
    }
  status = 0;
out:
  pp_free (list);
  pp_free (member);
  return status;
}

int
pp_seg_prior_open (const pp_prior *prior, uint32_t depth, pp_seg_prior *sp,
		   char *err, size_t errlen)
{
  memset (sp, 0, sizeof *sp);
  sp->depth = depth;
  uint32_t n = 0;
  for (uint32_t i = 0; i < prior->nunits; i++)
    n += pp_ip_manifest_p (prior->units[i].data->notes, prior->units[i].data->notes_len);
  sp->records = pp_calloc (n + 1, sizeof *sp->records);
  if (!sp->records)
    {
      snprintf (err, errlen, "out of memory");
      return -1;
    }
  for (uint32_t i = 0; i < prior->nunits; i++)
    if (pp_ip_manifest_p (prior->units[i].data->notes, prior->units[i].data->notes_len))
      {
	struct pp_seg_record *r = &sp->records[sp->nrecords++];
	r->data = prior->units[i].data;
	if (open_record (prior, r, depth, err, errlen))
	  {
	    pp_seg_prior_free (sp);
	    return -1;
	  }
      }
  if (sp->nrecords == 0 && prior->nunits > 0)
    {
      snprintf (err, errlen, "no program record counts segments (a profile of "
		"-fplugin-arg-pathprof-interproc=segments runs, which said why "
		"on standard error if they could not count)");
      pp_seg_prior_free (sp);
      return -1;
    }
  return 0;
}

/* Root PROC of record R: its executed segments and its supergraph's
   checksum (pp_seg_prior_learn's 1 and -1).  */
static int
learn_root (const pp_seg_prior *sp, const struct pp_seg_record *r, uint32_t proc,
	    const char *asm_name, double percent, uint64_t **interesting,
	    uint64_t **hot_counts, uint32_t *n, uint64_t *checksum, char *err,
	    size_t errlen)
{
  pp_seg_graph s;
  pp_paths *p;
  int rc = pp_seg_build_numbered (&r->layout.prog, proc, sp->depth, &s, &p);
  const pp_unit_data *u = r->data;
  pp_path_count *counts = rc == PP_SEG_OK
			  ? pp_malloc ((u->nwide + 1) * sizeof *counts) : NULL;
  uint32_t k = 0;
  bool stale = false;
  for (uint32_t j = 0; counts && j < u->nwide; j++)
    {
      const uint64_t *e = u->wide + (size_t) j * 3;
      if (e[1] != proc || !e[2])
	continue;
      stale |= e[0] >= p->npaths;
      counts[k++] = (pp_path_count) { e[0], e[2] };
    }
  int status = -1;
  if (!counts)
    snprintf (err, errlen, rc == PP_SEG_ENOMEM ? "out of memory"
	      : "'%s': the supergraph of '%s' cannot be numbered", u->name,
	      asm_name);
  else if (stale)
    snprintf (err, errlen, "'%s': a segment of '%s' beyond its numbering (a "
	      "damaged profile)", u->name, asm_name);
  else
    {
      k = pp_select_hottest (counts, k, percent);
      *interesting = pp_malloc ((k + 1) * sizeof **interesting);
      if (hot_counts)
	*hot_counts = pp_malloc ((k + 1) * sizeof **hot_counts);
      if (*interesting && (!hot_counts || *hot_counts))
	{
	  for (uint32_t j = 0; j < k; j++)
	    {
	      (*interesting)[j] = counts[j].path;
	      if (hot_counts)
		(*hot_counts)[j] = counts[j].count;
	    }
	  *n = k;
	  *checksum = pp_seg_checksum (&s, r->cfg_checksum);
	  status = 1;
	}
      else
	{
	  pp_free (*interesting);
	  *interesting = NULL;
	  if (hot_counts)
	    {
	      pp_free (*hot_counts);
	      *hot_counts = NULL;
	    }
	  snprintf (err, errlen, "out of memory");
	}
    }
  pp_free (counts);
  pp_paths_free (p);
  pp_seg_free (&s);
  return status;
}

int
pp_seg_prior_learn (pp_seg_prior *sp, const char *unit_name, const char *asm_name,
		    double percent, uint64_t **interesting, uint64_t **counts,
		    uint32_t *n, uint64_t *checksum, char *err, size_t errlen)
{
  *interesting = NULL;
  if (counts)
    *counts = NULL;
  *n = 0;
  /* Matching as pp_prior_find does: the unit by name, else the one
     function of that assembler name the records have.  */
  bool unit_seen = false;
  for (uint32_t i = 0; i < sp->nrecords; i++)
    for (uint32_t m = 0; m < sp->records[i].manifest.nunits; m++)
      unit_seen |= strcmp (sp->records[i].manifest.names[m], unit_name) == 0;
  uint32_t matches = 0, at = 0, proc = UINT32_MAX;
  for (uint32_t i = 0; i < sp->nrecords; i++)
    {
      const struct pp_seg_record *r = &sp->records[i];
      for (uint32_t m = 0; m < r->manifest.nunits; m++)
	if (!unit_seen || strcmp (r->manifest.names[m], unit_name) == 0)
	  for (uint32_t f = 0; f < r->notes[m].nfunctions; f++)
	    if (strcmp (r->notes[m].functions[f].asm_name, asm_name) == 0)
	      {
		matches++;
		at = i;
		proc = r->layout.first_proc[m] + f;
	      }
    }
  if (matches != 1)
    return 0;
  return learn_root (sp, &sp->records[at], proc, asm_name, percent,
		     interesting, counts, n, checksum, err, errlen);
}

int
pp_seg_prior_program (const pp_seg_prior *sp, const char *unit_name,
		      const uint64_t *cfg, uint32_t nfunctions,
		      const struct pp_ip_layout **layout, const pp_unit_notes **notes,
		      uint32_t *nunits, uint32_t *unit)
{
  for (uint32_t i = 0; i < sp->nrecords; i++)
    {
      const struct pp_seg_record *r = &sp->records[i];
      for (uint32_t m = 0; r->laid_out && m < r->manifest.nunits; m++)
	{
	  if (strcmp (r->notes[m].unit_name, unit_name) != 0
	      || r->notes[m].nfunctions != nfunctions)
	    continue;
	  uint32_t first = r->layout.first_proc[m];
	  bool same = true;
	  for (uint32_t f = 0; same && f < nfunctions; f++)
	    same = r->cfg_checksum[first + f] == cfg[f];
	  if (!same)
	    continue;
	  *layout = &r->layout;
	  *notes = r->notes;
	  *nunits = r->manifest.nunits;
	  *unit = m;
	  return 1;
	}
    }
  return 0;
}
