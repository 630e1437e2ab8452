/* A switch with fallthrough and default, and a computed-goto interpreter.  */
#include <stdio.h>

static int __attribute__ ((noinline))
kind (int c)			/* count(12) calls(kind, 12) */
{
  switch (c % 6)		/* count(12) */
    {
    case 0:
      return 10;		/* count(2) */
    case 1:
    case 2:
      return 20;		/* count(4) */
    case 3:
      c++;			/* count(2) */
      /* fall through */
    case 4:
      return 30 + c;		/* count(4) */
    default:
      return 40;		/* count(2) */
    }
}

static int __attribute__ ((noinline))
run (const unsigned char *code)	/* count(1) calls(run, 1) */
{
  static void *const ops[] = { &&op_inc, &&op_dbl, &&op_halt };
  int acc = 0;			/* count(1) */
  goto *ops[*code++];		/* count(1) */
op_inc:
  acc++;			/* count(3) */
  goto *ops[*code++];		/* count(3) */
op_dbl:
  acc *= 2;			/* count(2) */
  goto *ops[*code++];		/* count(2) */
op_halt:
  return acc;			/* count(1) */
}

int
main (void)
{
  int s = 0;			/* count(1) */
  for (int c = 0; c < 12; c++)	/* count(13) */
    s += kind (c);		/* count(12) */
  static const unsigned char prog[] = { 0, 1, 0, 0, 1, 2 };
  printf ("%d %d\n", s, run (prog));	/* count(1) */
  return 0;			/* count(1) */
}
