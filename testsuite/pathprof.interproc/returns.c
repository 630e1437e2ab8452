/* Returns past where a path started (piecewise paths: a path that starts at
   a loop's backedge in a callee leaves it for its caller with no call open):
   loops in callees of callees, each called from several sites and several
   procedures, a callee that loops and returns early, a loop that calls,
   recursion with a loop in each activation, and a longjmp out of a loop in a
   callee to a loop of its caller.  A procedure called from several sites
   continues such a path with the completions of all of them (unbal), not of
   the site that called it.  The same program runs in context mode.  */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static long total;

static int __attribute__ ((noinline))
digits (unsigned v)
{
  int n = 0;
  do
    n++;
  while (v /= 10);
  return n;
}

static int __attribute__ ((noinline))
first_odd (const int *a, int n)
{
  for (int i = 0; i < n; i++)
    if (a[i] & 1)
      return i;			/* an early return out of the loop */
  return -1;
}

static int __attribute__ ((noinline))
mid (const int *a, int n)
{
  int d = digits ((unsigned) n * 1000u);	/* site 1 */
  if (n > 3)
    d += first_odd (a, n);
  else
    d += digits ((unsigned) a[0]);		/* site 2 */
  return d;
}

static int __attribute__ ((noinline))
walk (int depth, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i;
  if (depth > 0)
    s += walk (depth - 1, n + 1);	/* recursion: each activation loops */
  return s + digits ((unsigned) s);
}

static void __attribute__ ((noinline))
bail (int k)
{
  for (int i = 0; i < k; i++)
    if (i == 3)
      longjmp (env, i + k);
}

int
main (void)
{
  int a[8] = { 2, 4, 6, 7, 9, 10, 12, 13 };
  for (int n = 1; n <= 8; n++)
    total += mid (a, n);
  for (int n = 1; n <= 6; n += 2)
    total -= n > 4 ? mid (a + 1, n) : mid (a + 2, n);	/* more sites of mid */
  total += digits (123456789u);			/* site 3, from main */
  for (int d = 0; d < 4; d++)
    total += walk (d, d + 2);
  volatile int rounds = 0;
  int r = setjmp (env);
  if (r)
    total += r;
  while (rounds < 3)
    {
      rounds++;
      bail (rounds + 2);			/* longjmps on rounds 2 and 3 */
    }
  printf ("%ld %d\n", total, first_odd (a + 3, 2));
  return 0;
}
