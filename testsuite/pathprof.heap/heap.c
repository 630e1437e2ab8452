/* The program's heap runs as in the plain build (corelib/format/alloc.h): libprof
   takes no memory from the program's malloc, GMP's included.  This program
   counts every call of its own malloc, calloc, realloc and free, which
   libc, GMP and libprof would all call, prints the counts at points of its
   run and a digest of the order of the addresses it got, and writes a line
   for any call made once main is over (libprof's dumps).  heap.exp compares
   its output with the plain build's in every mode.  */
#include <gmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc (size_t);
void *__libc_calloc (size_t, size_t);
void *__libc_realloc (void *, size_t);
void __libc_free (void *);

#define PLAIN __attribute__ ((no_profile_instrument_function, noinline))

static unsigned long calls;
static int over;			/* main has returned */

PLAIN static void
counted (void)
{
  __atomic_add_fetch (&calls, 1, __ATOMIC_RELAXED);
  if (__atomic_load_n (&over, __ATOMIC_RELAXED))
    {
      static const char msg[] = "malloc called after main\n";
      ssize_t w = write (1, msg, sizeof msg - 1);
      (void) w;
    }
}

PLAIN void *
malloc (size_t n)
{
  counted ();
  return __libc_malloc (n);
}

PLAIN void *
calloc (size_t n, size_t size)
{
  counted ();
  return __libc_calloc (n, size);
}

PLAIN void *
realloc (void *p, size_t n)
{
  counted ();
  return __libc_realloc (p, n);
}

PLAIN void
free (void *p)
{
  if (p)
    counted ();
  __libc_free (p);
}

/* The count so far.  An atomic load: GCC assumes that malloc and free, as
   builtins, leave the program's variables alone.  */
static unsigned long
count (void)
{
  return __atomic_load_n (&calls, __ATOMIC_SEQ_CST);
}

/* GMP through functions of the program's own, set after libprof has put
   its own in front (at main's first probe).  */
static unsigned long gmp_calls;

static void *
gmp_alloc (size_t n)
{
  gmp_calls++;
  return malloc (n);
}

static void *
gmp_realloc (void *p, size_t old, size_t n)
{
  (void) old;
  gmp_calls++;
  return realloc (p, n);
}

static void
gmp_free (void *p, size_t n)
{
  (void) n;
  gmp_calls++;
  free (p);
}

struct node
{
  struct node *next;
  unsigned v;
};

/* Allocates, frees every third, and branches on the order of the addresses:
   the digest is the plain build's only if the heap is.  */
static unsigned long
churn (unsigned n)
{
  struct node *list = NULL;
  unsigned long digest = 0;
  for (unsigned i = 0; i < n; i++)
    {
      struct node *x = malloc (sizeof *x + (i % 7) * 16);
      if (!x)
	return 0;
      x->v = i;
      if (list && (uintptr_t) x < (uintptr_t) list)
	digest = digest * 3 + 1;
      else
	digest = digest * 3 + 2;
      x->next = list;
      list = x;
      if (i % 3 == 2)
	{
	  struct node *y = list->next;
	  list->next = y->next;
	  free (y);
	}
    }
  while (list)
    {
      struct node *y = list->next;
      free (list);
      list = y;
    }
  return digest;
}

static unsigned long
fact (unsigned n)
{
  mpz_t f;
  mpz_init_set_ui (f, 1);
  for (unsigned i = 2; i <= n; i++)
    mpz_mul_ui (f, f, i);
  unsigned long low = mpz_fdiv_ui (f, 1000003);
  mpz_clear (f);
  return low;
}

static void *
worker (void *arg)
{
  unsigned long *out = arg;
  *out = churn (200);
  return NULL;
}

static void
over_now (void)
{
  __atomic_store_n (&over, 1, __ATOMIC_RELAXED);
}

int
main (void)
{
  atexit (over_now);
  mp_set_memory_functions (gmp_alloc, gmp_realloc, gmp_free);
  unsigned long c0 = count ();
  unsigned long d = churn (500);
  unsigned long f = fact (60);
  printf ("main: %lu calls, digest %lx, 60! mod 1000003 = %lu (%lu by GMP)\n",
	  count () - c0, d, f, gmp_calls);
  /* One after the other: which of glibc's arenas a thread gets is then the
     same in every run.  */
  unsigned long got[2];
  c0 = count ();
  for (int i = 0; i < 2; i++)
    {
      pthread_t t;
      if (pthread_create (&t, NULL, worker, &got[i]))
	return 1;
      pthread_join (t, NULL);
    }
  printf ("threads: %lu calls, digests %lx %lx\n", count () - c0, got[0], got[1]);
  c0 = count ();
  char *volatile s = malloc (100);
  s = realloc (s, 1000);
  free (s);
  printf ("end: %lu calls\n", count () - c0);
  return 0;
}
