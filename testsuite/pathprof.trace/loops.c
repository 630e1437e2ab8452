/* Nested loops, a switch, early returns, goto and a computed condition chain:
   no calls in the hot part, so the witnesses are the spanning-tree chords.  */
#include <stdio.h>

static int
classify (int x)
{
  switch (x % 5)
    {
    case 0:
      return 1;
    case 1:
    case 2:
      return x > 10 ? 2 : 3;
    default:
      break;
    }
  if (x & 1)
    goto odd;
  return 4;
odd:
  return 5;
}

int
main (void)
{
  int hist[6] = { 0 };
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < i % 4; j++)
      {
	int c = classify (i * 3 + j);
	hist[c]++;
	if (c == 5 && j > 1)
	  break;
      }
  int k = 0;
  do
    k += 1 + hist[k % 6];
  while (k < 100);
  for (int i = 1; i < 6; i++)
    printf ("%d ", hist[i]);
  printf ("%d\n", k);
  return 0;
}
