/* Minimal harness for pathprof's C unit tests.  Each check prints one line,
   "PASS: name" or "FAIL: name: why", which pathprof.unit/unit.exp turns into DejaGnu
   results; the program exits non-zero if anything failed.  */

#ifndef PATHPROF_UNIT_H
#define PATHPROF_UNIT_H

#include <stdarg.h>
#include <stdio.h>

static int unit_failures;

static inline void
unit_result (int ok, const char *name, const char *fmt, ...)
{
  if (ok)
    printf ("PASS: %s\n", name);
  else
    {
      va_list ap;
      unit_failures++;
      printf ("FAIL: %s: ", name);
      va_start (ap, fmt);
      vprintf (fmt, ap);
      va_end (ap);
      putchar ('\n');
    }
  fflush (stdout);
}

static inline int
unit_exit_status (void)
{
  return unit_failures != 0;
}

/* A property checked over many generated cases: one PASS/FAIL line in the end,
   with the first failure's details.  */
struct unit_property
{
  const char *name;
  unsigned long checked, failures;
  char why[768];
};

static inline void
unit_check (struct unit_property *p, int ok, const char *fmt, ...)
{
  p->checked++;
  if (ok || p->failures++)
    return;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (p->why, sizeof p->why, fmt, ap);
  va_end (ap);
}

static inline void
unit_report (const struct unit_property *p)
{
  if (p->checked == 0)
    unit_result (0, p->name, "no case exercised this property");
  else
    unit_result (p->failures == 0, p->name, "%s (%lu of %lu checks failed)",
		 p->why, p->failures, p->checked);
}

/* Deterministic 64-bit PRNG (splitmix64) so failures reproduce from the seed.  */
static inline unsigned long long
unit_rand (unsigned long long *state)
{
  unsigned long long z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

#endif
