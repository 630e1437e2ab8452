/* A function that keeps differences of its labels' addresses in static
   data.  With counts, GCC 12 would split it into hot and cold sections and
   the differences across them would not assemble (gcc -fprofile-use fails
   so on GCC's torture test pr70460.c); the use build keeps it whole.  */
#include <stdio.h>

static int total;

static int __attribute__ ((noinline))
step (int x)
{
  static const int offset[] = { &&twice - &&done, &&once - &&done, 0 };
  goto *(&&done + offset[x]);
twice:				/* never in the training run: cold */
  total += 2;
once:
  total++;
done:
  return total;
}

int
main (int argc, char **argv)
{
  (void) argv;
  for (int i = 0; i < 1000; i++)
    step (i % 7 == 0 ? argc : 2);
  printf ("%d\n", total);
  return 0;
}
