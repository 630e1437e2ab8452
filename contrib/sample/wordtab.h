/* A tiny word-frequency table: the sample program pathprof's demo profiles.  */
#ifndef WORDTAB_H
#define WORDTAB_H

#include <stddef.h>

struct word
{
  char *text;
  unsigned long count;
  struct word *next;
};

struct wordtab
{
  struct word **buckets;
  size_t nbuckets, nwords;
};

void wordtab_init (struct wordtab *t, size_t nbuckets);
void wordtab_add (struct wordtab *t, const char *text, size_t len);
/* Returns the words sorted by decreasing count (ties alphabetically).  */
struct word **wordtab_sorted (const struct wordtab *t);
void wordtab_free (struct wordtab *t);

/* Calls emit for every word of text (letters and apostrophes, lower-cased).  */
void tokenize (const char *text, void (*emit) (const char *, size_t, void *),
	       void *arg);

#endif
