/* Parent and child both return through the frames active at fork(): the child
   profiles only what it ran after the fork, and the merged profile is exact.  */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int __attribute__ ((noinline))
spawn (void)			/* count(1) calls(spawn, 1) */
{
  fflush (stdout);		/* count(1) */
  return fork ();		/* count(1) */
}

int
main (void)
{
  int total = 0;		/* count(1) */
  for (int i = 0; i < 3; i++)	/* count(4) */
    total += i;			/* count(3) */
  pid_t pid = spawn ();		/* count(1) */
  for (int i = 0; i < 5; i++)	/* count(12) */
    total += i;			/* count(10) */
  if (pid == 0)			/* count(2) */
    return 0;			/* count(1) */
  int status;
  waitpid (pid, &status, 0);	/* count(1) */
  printf ("%d %d\n", total, WEXITSTATUS (status));	/* count(1) */
  return 0;			/* count(1) */
}
