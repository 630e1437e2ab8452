/* What a previous profile says about a function (prior.h).  */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prior.h"

static int
fail (char *err, size_t errlen, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

static int
fail (char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (err, errlen, fmt, ap);
  va_end (ap);
  return -1;
}

static int
by_path (const void *a, const void *b)
{
  const pp_path_count *x = a, *y = b;
  return (x->path > y->path) - (x->path < y->path);
}

int
pp_function_path_counts (const pp_function_notes *fn, uint32_t index,
			 const pp_unit_data *u, uint64_t npaths,
			 pp_path_count **out, uint32_t *n, char *err,
			 size_t errlen)
{
  *out = NULL;
  *n = 0;
  /* The unit's sparse counts of this function: a binary search for the first.  */
  uint32_t first = 0, hi = u->nsparse;
  while (first < hi)
    {
      uint32_t mid = first + (hi - first) / 2;
      if (u->sparse[mid].function < index)
	first = mid + 1;
      else
	hi = mid;
    }
  uint32_t end = first;
  while (end < u->nsparse && u->sparse[end].function == index)
    end++;
  if (fn->nvalues && u->value_kind != PP_VALUES_U64)
    return fail (err, errlen, "path counts that are not counters (corrupted "
		 "profile)");
  if (fn->nkeys == 0 && fn->nvalues && fn->nvalues != npaths)
    return fail (err, errlen, "%" PRIu32 " path counters for %" PRIu64 " paths "
		 "(corrupted profile)", fn->nvalues, npaths);
  if (fn->nkeys == 0 && fn->nvalues && end > first)
    return fail (err, errlen, "path counts both in counters and in a table "
		 "(corrupted profile)");
  for (uint32_t i = 0; i < fn->ninteresting; i++)
    if (fn->interesting[i] >= npaths)
      return fail (err, errlen, "interesting path %" PRIu64 " but the function "
		   "has %" PRIu64 " paths (corrupted profile)", fn->interesting[i],
		   npaths);
  size_t most = (size_t) fn->nvalues + (end - first);
  pp_path_count *c = malloc ((most ? most : 1) * sizeof *c);
  if (!c)
    return fail (err, errlen, "out of memory");
  uint32_t k = 0;
  const uint64_t *values = (const uint64_t *) u->values + fn->value_offset;
  for (uint32_t v = 0; v < fn->nvalues; v++)
    {
      if (!values[v])
	continue;
      uint64_t path = fn->nkeys ? fn->keys[v] : v;
      if (path == UINT64_MAX)
	{
	  free (c);
	  return fail (err, errlen, "a count in slot %" PRIu32 ", which counts no "
		       "path (corrupted profile)", v);
	}
      c[k++] = (pp_path_count) { path, values[v] };
    }
  for (uint32_t i = first; i < end; i++)
    {
      if (u->sparse[i].path >= npaths)
	{
	  free (c);
	  return fail (err, errlen, "a count of path %" PRIu64 " but the function "
		       "has %" PRIu64 " paths (corrupted profile)", u->sparse[i].path,
		       npaths);
	}
      if (u->sparse[i].count)
	c[k++] = (pp_path_count) { u->sparse[i].path, u->sparse[i].count };
    }
  qsort (c, k, sizeof *c, by_path);
  uint32_t m = 0;
  for (uint32_t i = 0; i < k; i++)
    if (m && c[m - 1].path == c[i].path)
      c[m - 1].count = pp_sat_add (c[m - 1].count, c[i].count);
    else
      c[m++] = c[i];
  *out = c;
  *n = m;
  return 0;
}

static int
hottest_first (const void *a, const void *b)
{
  const pp_path_count *x = a, *y = b;
  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return (x->path > y->path) - (x->path < y->path);
}

uint32_t
pp_select_hottest (pp_path_count *counts, uint32_t n, double percent)
{
  if (n == 0)
    return 0;
  qsort (counts, n, sizeof *counts, hottest_first);
  if (percent >= 100)
    return n;
  long double total = 0, taken = 0;
  for (uint32_t i = 0; i < n; i++)
    total += counts[i].count;
  uint32_t k = 0;
  while (k < n && taken * 100 < total * percent)
    taken += counts[k++].count;
  return k;
}

int
pp_prior_load (const char *file, pp_prior *prior, char *err, size_t errlen)
{
  memset (prior, 0, sizeof *prior);
  if (pp_profile_read_file (file, &prior->profile, NULL, err, errlen))
    return -1;
  prior->units = calloc (prior->profile.nunits ? prior->profile.nunits : 1,
			 sizeof *prior->units);
  if (!prior->units)
    {
      pp_prior_free (prior);
      return fail (err, errlen, "out of memory");
    }
  for (uint32_t i = 0; i < prior->profile.nunits; i++)
    prior->units[i].data = &prior->profile.units[i];
  prior->nunits = prior->profile.nunits;
  return 0;
}

void
pp_prior_free (pp_prior *prior)
{
  for (uint32_t i = 0; i < prior->nunits; i++)
    pp_notes_free (&prior->units[i].notes);
  free (prior->units);
  pp_profile_free (&prior->profile);
  memset (prior, 0, sizeof *prior);
}

uint32_t
pp_prior_unit_mode (const pp_prior *prior, uint32_t i)
{
  const pp_unit_data *u = prior->units[i].data;
  if (u->notes_len < 12)
    return 0;
  const unsigned char *m = u->notes + 8;	/* after magic and version */
  return m[0] | (uint32_t) m[1] << 8 | (uint32_t) m[2] << 16 | (uint32_t) m[3] << 24;
}

/* Decodes unit i's notes once.  Returns 0, or -1 with err set.  */
static int
decode_unit (pp_prior *prior, uint32_t i, char *err, size_t errlen)
{
  pp_prior_unit *pu = &prior->units[i];
  if (pu->decoded == 0)
    {
      char why[256];
      pu->decoded = pp_notes_decode (pu->data->notes, pu->data->notes_len,
				     &pu->notes, why, sizeof why) == 0
		    && pp_notes_check_values (&pu->notes, pu->data->nvalues, why,
					      sizeof why) == 0 ? 1 : -1;
      if (pu->decoded < 0)
	{
	  pp_notes_free (&pu->notes);
	  return fail (err, errlen, "unit %s: notes %s", pu->data->name, why);
	}
    }
  return pu->decoded > 0 ? 0
	 : fail (err, errlen, "unit %s: notes do not decode", pu->data->name);
}

static bool
find_in_unit (const pp_prior_unit *pu, const char *asm_name, pp_prior_function *f)
{
  for (uint32_t k = 0; k < pu->notes.nfunctions; k++)
    if (strcmp (pu->notes.functions[k].asm_name, asm_name) == 0)
      {
	*f = (pp_prior_function) { pu, k, &pu->notes.functions[k] };
	return true;
      }
  return false;
}

int
pp_prior_find (pp_prior *prior, const char *unit_name, const char *asm_name,
	       pp_prior_function *f, char *err, size_t errlen)
{
  bool unit_seen = false;
  for (uint32_t i = 0; i < prior->nunits; i++)
    if (strcmp (prior->units[i].data->name, unit_name) == 0)
      {
	unit_seen = true;
	if (decode_unit (prior, i, err, errlen))
	  return -1;
	if (find_in_unit (&prior->units[i], asm_name, f))
	  return 1;
      }
  if (unit_seen)
    return 0;
  unsigned found = 0;
  pp_prior_function only;
  for (uint32_t i = 0; i < prior->nunits && found < 2; i++)
    {
      if (decode_unit (prior, i, err, errlen))
	return -1;
      if (find_in_unit (&prior->units[i], asm_name, &only))
	found++;
    }
  if (found != 1)
    return 0;
  *f = only;
  return 1;
}
