/* A computed-goto interpreter whose programs use some of its operations.  */
#include <stdio.h>

static int __attribute__ ((noinline))
run (const unsigned char *code)		/* covered calls(run, 2) */
{
  static void *const ops[] = { &&op_inc, &&op_dbl, &&op_neg, &&op_halt };
  int acc = 0;				/* covered */
  goto *ops[*code++];			/* covered */
op_inc:
  acc++;				/* covered */
  goto *ops[*code++];			/* covered */
op_dbl:
  acc *= 2;				/* covered */
  goto *ops[*code++];			/* covered */
op_neg:
  acc = -acc;				/* not covered */
  goto *ops[*code++];			/* not covered */
op_halt:
  return acc;				/* covered */
}

int
main (void)
{
  static const unsigned char a[] = { 0, 1, 0, 3 }, b[] = { 0, 0, 1, 3 };
  printf ("%d %d\n", run (a), run (b));	/* covered */
  return 0;				/* covered */
}
