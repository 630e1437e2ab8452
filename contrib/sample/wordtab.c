#include "wordtab.h"
#include <stdlib.h>
#include <string.h>

static unsigned long
hash (const char *s, size_t len)
{
  unsigned long h = 5381;
  for (size_t i = 0; i < len; i++)
    h = h * 33 + (unsigned char) s[i];
  return h;
}

void
wordtab_init (struct wordtab *t, size_t nbuckets)
{
  t->buckets = calloc (nbuckets, sizeof *t->buckets);
  t->nbuckets = nbuckets;
  t->nwords = 0;
}

void
wordtab_add (struct wordtab *t, const char *text, size_t len)
{
  struct word **slot = &t->buckets[hash (text, len) % t->nbuckets];
  for (struct word *w = *slot; w; w = w->next)
    if (strlen (w->text) == len && memcmp (w->text, text, len) == 0)
      {
	w->count++;
	return;
      }
  struct word *w = malloc (sizeof *w);
  w->text = malloc (len + 1);
  memcpy (w->text, text, len);
  w->text[len] = '\0';
  w->count = 1;
  w->next = *slot;
  *slot = w;
  t->nwords++;
}

static int
by_count (const void *a, const void *b)
{
  const struct word *x = *(struct word *const *) a;
  const struct word *y = *(struct word *const *) b;
  if (x->count != y->count)
    return x->count < y->count ? 1 : -1;
  return strcmp (x->text, y->text);
}

struct word **
wordtab_sorted (const struct wordtab *t)
{
  struct word **all = malloc ((t->nwords + 1) * sizeof *all);
  size_t n = 0;
  for (size_t b = 0; b < t->nbuckets; b++)
    for (struct word *w = t->buckets[b]; w; w = w->next)
      all[n++] = w;
  qsort (all, n, sizeof *all, by_count);
  all[n] = NULL;
  return all;
}

void
wordtab_free (struct wordtab *t)
{
  for (size_t b = 0; b < t->nbuckets; b++)
    {
      struct word *w = t->buckets[b];
      while (w)
	{
	  struct word *next = w->next;
	  free (w->text);
	  free (w);
	  w = next;
	}
    }
  free (t->buckets);
}
