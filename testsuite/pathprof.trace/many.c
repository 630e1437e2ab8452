/* A unit of more than 128 functions, called in turn and through a pointer:
   the ENTER records of functions numbered 128 and up take two varint groups
   (libprof writes each number apart; below 128 the record in one piece), and the
   regenerated sequence must still give every edge count of the edge-counts
   build.  */
#include <stdio.h>

#define F(n)								\
  static int __attribute__ ((noinline)) f##n (int x)			\
  { return x % (n + 2) == 0 ? x / 2 : x + n; }
#define F10(n) F (n##0) F (n##1) F (n##2) F (n##3) F (n##4) F (n##5)	\
  F (n##6) F (n##7) F (n##8) F (n##9)
F10 (1) F10 (2) F10 (3) F10 (4) F10 (5) F10 (6) F10 (7) F10 (8) F10 (9)
F10 (10) F10 (11) F10 (12) F10 (13) F10 (14) F10 (15)

#define C(n) x = f##n (x);
#define C10(n) C (n##0) C (n##1) C (n##2) C (n##3) C (n##4) C (n##5)	\
  C (n##6) C (n##7) C (n##8) C (n##9)

static int (*const last[]) (int) = { f150, f151, f159, f10 };

int
main (void)
{
  int x = 7;
  for (int round = 0; round < 3; round++)
    {
      C10 (1) C10 (2) C10 (3) C10 (4) C10 (5) C10 (6) C10 (7) C10 (8)
      C10 (9) C10 (10) C10 (11) C10 (12) C10 (13) C10 (14) C10 (15)
      for (unsigned i = 0; i < sizeof last / sizeof *last; i++)
	x = last[i] (x) & 0xffff;
    }
  printf ("%d\n", x);
  return 0;
}
