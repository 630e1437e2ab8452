/* A ladder of functions around the inlining limit whose statements hang on
   a const function's value of their argument: called with a constant, GCC's
   summary knows them constant, and the plain build inlines konst3 and konst4
   into caller (inline.exp).  The probes take slot's const flag away; before
   plugin/inliner.cc gave it back while GCC summarises, no mode inlined
   either.  */

__attribute__ ((noinline)) static unsigned
slot (unsigned d)
{
  unsigned s = 0;
  while (d >>= 1)
    s++;
  return s;
}

#define STEP(k) if (s > k) { x = x * 3 + (s ^ k); x ^= x >> 3; }
#define RUNG(n, body)						\
  static inline unsigned konst##n (unsigned d, unsigned y)		\
  {								\
    unsigned s = slot (d), x = y;				\
    body							\
    return x + s;						\
  }
RUNG (3, STEP (1) STEP (2) STEP (3) STEP (4) STEP (5) STEP (6) STEP (7)
      STEP (8) STEP (9) STEP (10) STEP (11))
RUNG (4, STEP (1) STEP (2) STEP (3) STEP (4) STEP (5) STEP (6) STEP (7)
      STEP (8) STEP (9) STEP (10) STEP (11) STEP (12) STEP (13) STEP (14)
      STEP (15))
RUNG (5, STEP (1) STEP (2) STEP (3) STEP (4) STEP (5) STEP (6) STEP (7)
      STEP (8) STEP (9) STEP (10) STEP (11) STEP (12) STEP (13) STEP (14)
      STEP (15) STEP (16) STEP (17) STEP (18) STEP (19))
RUNG (6, STEP (1) STEP (2) STEP (3) STEP (4) STEP (5) STEP (6) STEP (7)
      STEP (8) STEP (9) STEP (10) STEP (11) STEP (12) STEP (13) STEP (14)
      STEP (15) STEP (16) STEP (17) STEP (18) STEP (19) STEP (20) STEP (21)
      STEP (22) STEP (23))
RUNG (7, STEP (1) STEP (2) STEP (3) STEP (4) STEP (5) STEP (6) STEP (7)
      STEP (8) STEP (9) STEP (10) STEP (11) STEP (12) STEP (13) STEP (14)
      STEP (15) STEP (16) STEP (17) STEP (18) STEP (19) STEP (20) STEP (21)
      STEP (22) STEP (23) STEP (24) STEP (25) STEP (26) STEP (27))
RUNG (8, STEP (1) STEP (2) STEP (3) STEP (4) STEP (5) STEP (6) STEP (7)
      STEP (8) STEP (9) STEP (10) STEP (11) STEP (12) STEP (13) STEP (14)
      STEP (15) STEP (16) STEP (17) STEP (18) STEP (19) STEP (20) STEP (21)
      STEP (22) STEP (23) STEP (24) STEP (25) STEP (26) STEP (27) STEP (28)
      STEP (29) STEP (30) STEP (31))

unsigned
caller (unsigned y)
{
  return konst3 (1, y) + konst3 (1, y + 1) + konst4 (1, y) + konst4 (1, y + 1)
	 + konst5 (1, y) + konst5 (1, y + 1) + konst6 (1, y) + konst6 (1, y + 1)
	 + konst7 (1, y) + konst7 (1, y + 1) + konst8 (1, y) + konst8 (1, y + 1);
}

/* Calls with an unknown argument: the rungs stay functions of their own.  */
unsigned
other (unsigned d, unsigned y)
{
  return konst3 (d, y) + konst4 (d, y) + konst5 (d, y) + konst6 (d, y)
	 + konst7 (d, y) + konst8 (d, y);
}
