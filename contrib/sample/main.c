/* wordfreq: prints the most frequent words of its input files (or of a built-in
   text), the sample program that pathprof's demo instruments.  */
#include "wordtab.h"
#include <stdio.h>
#include <stdlib.h>

static const char builtin_text[] =
  "It is a truth universally acknowledged, that a single man in possession "
  "of a good fortune, must be in want of a wife. However little known the "
  "feelings or views of such a man may be on his first entering a "
  "neighbourhood, this truth is so well fixed in the minds of the "
  "surrounding families, that he is considered the rightful property of "
  "some one or other of their daughters.";

static void
add_word (const char *text, size_t len, void *arg)
{
  wordtab_add (arg, text, len);
}

static char *
read_file (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  size_t cap = 4096, len = 0;
  char *buf = malloc (cap);
  size_t n;
  while ((n = fread (buf + len, 1, cap - len - 1, f)) > 0)
    {
      len += n;
      if (cap - len < 2)
	buf = realloc (buf, cap *= 2);
    }
  buf[len] = '\0';
  fclose (f);
  return buf;
}

int
main (int argc, char **argv)
{
  struct wordtab tab;
  wordtab_init (&tab, 101);
  if (argc < 2)
    tokenize (builtin_text, add_word, &tab);
  for (int i = 1; i < argc; i++)
    {
      char *text = read_file (argv[i]);
      if (!text)
	{
	  fprintf (stderr, "wordfreq: cannot read %s\n", argv[i]);
	  return 1;
	}
      tokenize (text, add_word, &tab);
      free (text);
    }
  struct word **sorted = wordtab_sorted (&tab);
  for (int i = 0; sorted[i] && i < 5; i++)
    printf ("%5lu %s\n", sorted[i]->count, sorted[i]->text);
  printf ("%zu distinct words\n", tab.nwords);
  free (sorted);
  wordtab_free (&tab);
  return 0;
}
