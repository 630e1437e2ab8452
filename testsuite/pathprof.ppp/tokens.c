/* A tokenizer over its argument, for the preferential modes: the test input
   ("ab1 c2") takes some paths, the field input more, some through edges the
   tests never took (the '#' comment, the error path).
   pathprof-sources: tokens-part.c */
#include <stdio.h>

int classify (int c);
int digits (const char *s, int *value);

int
main (int argc, char **argv)
{
  const char *s = argc > 1 ? argv[1] : "ab1 c2";
  int words = 0, numbers = 0, others = 0, sum = 0;
  while (*s)
    {
      int kind = classify (*s);
      if (kind == 1)
	{
	  words++;
	  while (*s && classify (*s) == 1)
	    s++;
	}
      else if (kind == 2)
	{
	  int v;
	  s += digits (s, &v);
	  numbers++;
	  sum += v;
	}
      else if (kind == 3)
	{
	  while (*s && *s != '\n')
	    s++;
	}
      else
	{
	  others += *s != ' ';
	  s++;
	}
    }
  printf ("%d words, %d numbers (sum %d), %d others\n", words, numbers, sum,
	  others);
  return others > 3;
}
