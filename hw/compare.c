/* Comparing the model's complete profile with a software path profile (hw.h,
   hw_compare): the descriptors `pathprof paths --descriptors` gives the paths
   of a paths-mode run, looked up among the paths the model found in the
   branch stream of a trace-mode run of the same program and input.  A path
   the software marks with a reason is one the hardware's Ball-Larus paths end
   or start elsewhere; the others should be found with the same count.  */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"

#define MAX_LINE 4096

/* The labels "FUNCTION bbN ..." by their first two words, sorted.  */
struct key
{
  char *name;
  uint64_t addr;
};

static int
by_name (const void *a, const void *b)
{
  return strcmp (((const struct key *) a)->name, ((const struct key *) b)->name);
}

static char *
first_two_words (const char *text)
{
  const char *sp = strchr (text, ' ');
  if (sp)
    sp = strchr (sp + 1, ' ');
  size_t n = sp ? (size_t) (sp - text) : strlen (text);
  char *s = malloc (n + 1);
  if (s)
    {
      memcpy (s, text, n);
      s[n] = 0;
    }
  return s;
}

static void
add (hw_compare_row *r, uint64_t count)
{
  r->paths++;
  r->executions += count;
}

static const char *const reasons[HW_COMPARE_NREASONS] = {
  "indirect", "layout", "leave", "cut", "long"
};

const char *
hw_compare_reason_name (int reason)
{
  return reasons[reason];
}

/* The software paths the hardware should see as one path each, by
   descriptor: two of them may share one (a loop head that is also the
   function's first block starts paths from the entry and from the
   backedge), and the hardware's count is then their sum.  */
struct seen
{
  hw_path path;
  uint64_t count;
  bool found;			/* a label names its start */
};

struct seen_list
{
  struct seen *e;
  size_t n, cap;
};

static int
by_path (const void *a, const void *b)
{
  const hw_path *x = &((const struct seen *) a)->path;
  const hw_path *y = &((const struct seen *) b)->path;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->length != y->length)
    return x->length < y->length ? -1 : 1;
  return (x->outcomes > y->outcomes) - (x->outcomes < y->outcomes);
}

/* One "path FUNCTION bbN LENGTH 0xOUTCOMES COUNT REASON" line.  */
static int
compare_line (char *line, const struct key *keys, size_t nkeys,
	      uint32_t max_length, hw_comparison *out, struct seen_list *list,
	      char *err, size_t errlen)
{
  char fn[MAX_LINE], block[MAX_LINE], reason[MAX_LINE];
  unsigned length;
  uint64_t outcomes, count;
  if (sscanf (line, "path %s %s %u %" SCNx64 " %" SCNu64 " %s", fn, block, &length,
	      &outcomes, &count, reason) != 6)
    return snprintf (err, errlen, "expected 'path FUNCTION bbN LENGTH 0xOUTCOMES "
		     "COUNT REASON'"), -1;
  add (&out->software, count);
  for (int r = 0; r < HW_COMPARE_NREASONS; r++)
    if (strcmp (reason, reasons[r]) == 0)
      {
	add (&out->reason[r], count);
	return 0;
      }
  if (strcmp (reason, "-") != 0)
    return snprintf (err, errlen, "unknown reason '%.40s'", reason), -1;
  if (length > max_length)
    {
      add (&out->reason[HW_COMPARE_LONG], count);
      return 0;
    }
  char name[2 * MAX_LINE + 2];
  snprintf (name, sizeof name, "%s %s", fn, block);
  struct key k = { name, 0 };
  const struct key *found = bsearch (&k, keys, nkeys, sizeof *keys, by_name);
  if (list->n == list->cap)
    {
      size_t cap = list->cap ? 2 * list->cap : 256;
      struct seen *e = realloc (list->e, cap * sizeof *e);
      if (!e)
	return snprintf (err, errlen, "out of memory"), -1;
      list->e = e;
      list->cap = cap;
    }
  list->e[list->n++] = (struct seen) { { found ? found->addr : 0, outcomes,
					  (uint8_t) length }, count, found != NULL };
  return 0;
}

/* Looks the software paths up, a group of one descriptor at a time.  */
static void
compare_groups (struct seen_list *list, const hw_profile *complete,
		hw_comparison *out)
{
  qsort (list->e, list->n, sizeof *list->e, by_path);
  for (size_t i = 0, j; i < list->n; i = j)
    {
      uint64_t sum = 0;
      for (j = i; j < list->n && by_path (&list->e[i], &list->e[j]) == 0; j++)
	sum += list->e[j].count;
      const hw_profile_entry *pe = list->e[i].found
				   ? hw_profile_find (complete, &list->e[i].path) : NULL;
      hw_compare_row *row = !pe ? &out->missing
			    : pe->count == sum ? &out->same : &out->other_count;
      for (size_t k = i; k < j; k++)
	add (row, list->e[k].count);
      if (j - i > 1)
	{
	  out->shared.paths += j - i;
	  out->shared.executions += sum;
	}
      if (pe)
	add (&out->hardware_matched, pe->count);
    }
}

int
hw_compare (FILE *in, const hw_labels *l, const hw_profile *complete,
	    uint32_t max_length, hw_comparison *out, char *err, size_t errlen)
{
  memset (out, 0, sizeof *out);
  struct key *keys = calloc (l->n + 1, sizeof *keys);
  int status = keys ? 0 : -1;
  if (status)
    snprintf (err, errlen, "out of memory");
  for (size_t i = 0; i < l->n && status == 0; i++)
    {
      keys[i].addr = l->addr[i];
      if (!(keys[i].name = first_two_words (l->text[i])))
	status = -1, snprintf (err, errlen, "out of memory");
    }
  if (status == 0)
    qsort (keys, l->n, sizeof *keys, by_name);
  char line[MAX_LINE];
  char why[512];
  struct seen_list list = { 0 };
  unsigned long lineno = 0;
  while (status == 0 && fgets (line, sizeof line, in))
    {
      lineno++;
      if (!strchr (line, '\n') && !feof (in))
	status = -1, snprintf (why, sizeof why, "line too long");
      else if (line[0] == '#' || line[0] == '\n')
	continue;
      else
	status = compare_line (line, keys, l->n, max_length, out, &list, why,
			       sizeof why);
      if (status)
	snprintf (err, errlen, "line %lu: %s", lineno, why);
    }
  if (status == 0 && ferror (in))
    status = -1, snprintf (err, errlen, "%s", strerror (errno));
  for (size_t i = 0; keys && i < l->n; i++)
    free (keys[i].name);
  free (keys);
  if (status == 0)
    compare_groups (&list, complete, out);
  free (list.e);
  out->hardware.paths = complete->n;
  out->hardware.executions = complete->total;
  return status;
}
