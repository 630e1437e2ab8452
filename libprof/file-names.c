/* libprof: the names of the files it writes (file-names.h).  */

#include <stdlib.h>
#include <unistd.h>

#include "alloc.h"
#include "file-names.h"
#include "profile.h"

#define DEFAULT_PROFILE_FILE "pathprof.data"

/* The decimal digits of the process id into buf (at least 24 bytes, NUL
   terminated); returns their number.  By hand: snprintf's first call in a
   short run costs more than the rest of a dump of a small program.  */
int
pp_pid_digits (char *buf)
{
  char rev[24];
  int n = 0;
  unsigned long v = (unsigned long) getpid ();
  do
    rev[n++] = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  for (int i = 0; i < n; i++)
    buf[i] = rev[n - 1 - i];
  buf[n] = 0;
  return n;
}

/* n bytes of src to dst, 8 at a time: a __builtin_memcpy of constant size
   is a load and a store, where a memcpy call would cost a symbol binding and
   a byte loop several instructions per byte (see runtime.c's lock_units).  */
static void
copy_short (char *dst, const char *src, size_t n)
{
  for (; n >= 8; n -= 8, dst += 8, src += 8)
    __builtin_memcpy (dst, src, 8);
  while (n--)
    *dst++ = *src++;
}

/* PATHPROF_FILE with %p replaced by the pid and %% by %.  */
char *
pp_profile_path (void)
{
  const char *pattern = getenv ("PATHPROF_FILE");
  if (!pattern || !*pattern)
    pattern = DEFAULT_PROFILE_FILE;
  const char *end = pattern;
  bool percent = false;
  for (; *end; end++)
    percent |= *end == '%';
  size_t len = (size_t) (end - pattern);
  if (!percent)
    {
      char *path = pp_malloc (len + 1);
      if (path)
	copy_short (path, pattern, len + 1);
      return path;
    }
  char pid[24];
  int pid_len = pp_pid_digits (pid);
  char *path = pp_malloc (len * (size_t) pid_len + 1), *o = path;
  if (!path)
    return NULL;
  for (const char *s = pattern; *s; s++)
    if (s[0] == '%' && s[1] == 'p')
      {
	copy_short (o, pid, (size_t) pid_len);
	o += pid_len;
	s++;
      }
    else if (s[0] == '%' && s[1] == '%')
      *o++ = *s++;
    else
      *o++ = *s;
  *o = 0;
  return path;
}

/* path followed by suffix, and by the process id if with_pid.  */
char *
pp_path_with_suffix (const char *path, const char *suffix, bool with_pid)
{
  size_t len = pp_short_strlen (path);
  char *s = pp_malloc (len + pp_short_strlen (suffix) + 24), *o = s + len;
  if (!s)
    return NULL;
  copy_short (s, path, len);
  while ((*o = *suffix++))
    o++;
  if (with_pid)
    pp_pid_digits (o);
  return s;
}

