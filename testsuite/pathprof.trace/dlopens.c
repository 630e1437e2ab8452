/* A traced unit in a shared object (dlopens-part.c), opened, called and
   closed by the main thread; then a thread that runs code of this unit
   only, while the shared object is not loaded; then a thread that opens,
   calls and closes it again.  trace.exp runs it with one trace file a
   thread (%t): the first thread's file is opened while the unit is gone,
   and still writes its chunk, from the copy of its notes libprof kept
   (reading the unit's own memory there would fault).  Each file
   regenerates; lib_fn counts once in the main thread's and the second
   thread's, never in the first's.  */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static const char *lib;

static int
call_once (void)
{
  void *h = dlopen (lib, RTLD_NOW);
  if (!h)
    {
      fprintf (stderr, "%s\n", dlerror ());
      return -1;
    }
  int (*fn) (int);
  *(void **) &fn = dlsym (h, "lib_fn");
  int r = fn ? fn (5) : -1;
  dlclose (h);
  return r;
}

static void *
opener (void *arg)
{
  (void) arg;
  printf ("thread: %d\n", call_once ());
  return NULL;
}

static void *
worker (void *arg)
{
  unsigned n = *(unsigned *) arg, s = 0;
  for (unsigned i = 0; i < n; i++)
    s += i & 1 ? i : 3;
  printf ("worker: %u\n", s);
  return NULL;
}

int
main (int argc, char **argv)
{
  lib = argc > 1 ? argv[1] : "./dlopens.so";
  printf ("main: %d\n", call_once ());
  fflush (stdout);
  fflush (stdout);
  unsigned n = 10;
  pthread_t t;
  if (pthread_create (&t, NULL, worker, &n) != 0)
    return 1;
  pthread_join (t, NULL);
  fflush (stdout);
  if (pthread_create (&t, NULL, opener, NULL) != 0)
    return 1;
  pthread_join (t, NULL);
  return 0;
}
