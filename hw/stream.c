/* Reading branch streams (hw.h): pathprof's own text format, which
   `pathprof trace --branches` writes, and the text of `perf script -F
   ip,brstack`.

   perf script prints, per sample, the sample's ip in hexadecimal and then its
   branch stack, most recent branch first, each entry FROM/TO/M/X/A/CYCLES
   (FROM and TO in hexadecimal with 0x; mispredicted, in transaction, abort,
   cycles; newer perf versions add fields after those, which are ignored).  An
   LBR entry is a taken branch of no known kind: calls and returns cannot be
   told apart from jumps, so each is forward or backward by its addresses, and
   every sample is replayed oldest first as a stream of its own.  */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw.h"

#define MAX_LINE 65536

const char *
hw_label (const hw_labels *l, uint64_t addr)
{
  for (size_t i = 0; i < l->n; i++)
    if (l->addr[i] == addr)
      return l->text[i];
  return NULL;
}

void
hw_labels_free (hw_labels *l)
{
  for (size_t i = 0; i < l->n; i++)
    free (l->text[i]);
  free (l->addr);
  free (l->text);
  memset (l, 0, sizeof *l);
}

int
hw_labels_add (hw_labels *l, uint64_t addr, const char *text)
{
  if (l->n == l->cap)
    {
      size_t cap = l->cap ? 2 * l->cap : 256;
      uint64_t *a = realloc (l->addr, cap * sizeof *a);
      if (a)
	l->addr = a;
      char **t = realloc (l->text, cap * sizeof *t);
      if (t)
	l->text = t;
      if (!a || !t)
	return -1;
      l->cap = cap;
    }
  l->addr[l->n] = addr;
  l->text[l->n] = strdup (text);
  return l->text[l->n++] ? 0 : -1;
}

/* A hexadecimal address with 0x (or without, when bare); returns the end or
   NULL.  */
static const char *
parse_hex (const char *s, bool need_prefix, uint64_t *v)
{
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  else if (need_prefix)
    return NULL;
  if (!isxdigit ((unsigned char) *s))
    return NULL;
  errno = 0;
  char *end;
  unsigned long long x = strtoull (s, &end, 16);
  if (errno)
    return NULL;
  *v = x;
  return end;
}

static const struct { const char *name; uint8_t kind; } kinds[] = {
  { "ct", HW_COND_TAKEN }, { "cn", HW_COND_NOT_TAKEN }, { "j", HW_JUMP },
  { "ij", HW_INDIRECT_JUMP }, { "c", HW_CALL }, { "ic", HW_INDIRECT_CALL },
  { "r", HW_RETURN },
};

/* One line of the pathprof format.  Returns 0, 1 at "end", -1 with err.  */
static int
stream_line (char *line, hw_labels *labels, uint32_t *thread,
	     void (*branch) (void *, const hw_branch *), void *ctx, char *err,
	     size_t errlen)
{
  char word[16];
  int n = 0;
  if (line[0] == '#' || line[0] == 0)
    return 0;
  if (sscanf (line, "%15s%n", word, &n) != 1)
    return 0;
  const char *rest = line + n;
  if (strcmp (word, "end") == 0)
    return 1;
  if (strcmp (word, "thread") == 0)
    {
      char *end;
      errno = 0;
      unsigned long t = strtoul (rest, &end, 10);
      if (errno || end == rest || t > UINT32_MAX || *end)
	return snprintf (err, errlen, "a thread number is expected"), -1;
      *thread = (uint32_t) t;
      return 0;
    }
  if (strcmp (word, "label") == 0)
    {
      uint64_t addr;
      while (*rest == ' ')
	rest++;
      const char *p = parse_hex (rest, true, &addr);
      if (!p)
	return snprintf (err, errlen, "label: an address (0x...) is expected"), -1;
      while (*p == ' ')
	p++;
      if (hw_labels_add (labels, addr, p))
	return snprintf (err, errlen, "out of memory"), -1;
      return 0;
    }
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
    if (strcmp (word, kinds[k].name) == 0)
      {
	hw_branch b = { kinds[k].kind, *thread, 0, 0, 1 };
	while (*rest == ' ')
	  rest++;
	const char *p = parse_hex (rest, true, &b.src);
	while (p && *p == ' ')
	  p++;
	p = p ? parse_hex (p, true, &b.dst) : NULL;
	while (p && *p == ' ')
	  p++;
	if (!p || *p)
	  return snprintf (err, errlen, "'%s' needs a source and a target address "
			   "(0x...)", word), -1;
	branch (ctx, &b);
	return 0;
      }
  snprintf (err, errlen, "unknown record '%s' (expected ct, cn, j, ij, c, ic, r, "
	    "thread, label or end)", word);
  return -1;
}

/* One sample of perf script -F ip,brstack.  */
static int
perf_line (const char *line, void (*branch) (void *, const hw_branch *),
	   void (*sample_end) (void *), void *ctx, char *err, size_t errlen)
{
  const char *p = line;
  while (*p == ' ' || *p == '\t')
    p++;
  if (!*p)
    return 0;
  uint64_t ip;
  const char *q = parse_hex (p, false, &ip);
  if (!q || (*q && *q != ' ' && *q != '\t'))
    return snprintf (err, errlen, "a sample must start with its ip in hexadecimal"), -1;
  hw_branch stack[64];
  int n = 0;
  for (p = q;;)
    {
      while (*p == ' ' || *p == '\t')
	p++;
      if (!*p)
	break;
      hw_branch b = { HW_TAKEN_UNKNOWN, 0, 0, 0, 1 };
      q = parse_hex (p, true, &b.src);
      if (!q || *q != '/' || !(q = parse_hex (q + 1, true, &b.dst)) || (*q && *q != '/'))
	return snprintf (err, errlen, "a branch entry must be FROM/TO/..."), -1;
      while (*q && *q != ' ' && *q != '\t')
	q++;
      if (n == 64)
	return snprintf (err, errlen, "more than 64 branch entries in a sample"), -1;
      stack[n++] = b;
      p = q;
    }
  for (int i = n - 1; i >= 0; i--)	/* oldest first */
    branch (ctx, &stack[i]);
  if (n)
    sample_end (ctx);
  return 0;
}

int
hw_read (FILE *in, bool perf, hw_labels *labels,
	 void (*branch) (void *ctx, const hw_branch *b),
	 void (*sample_end) (void *ctx), void *ctx, char *err, size_t errlen)
{
  char *line = malloc (MAX_LINE);
  if (!line)
    return snprintf (err, errlen, "out of memory"), -1;
  uint32_t thread = 0;
  unsigned long lineno = 0;
  int status = 0;
  char why[300];
  while (status == 0 && fgets (line, MAX_LINE, in))
    {
      lineno++;
      size_t len = strlen (line);
      if (len == MAX_LINE - 1 && line[len - 1] != '\n')
	{
	  snprintf (err, errlen, "line %lu: longer than %d bytes", lineno, MAX_LINE);
	  status = -1;
	  break;
	}
      while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
	line[--len] = 0;
      if (!perf && lineno == 1)
	{
	  if (strcmp (line, "# pathprof-branches 1") != 0)
	    {
	      snprintf (err, errlen, "line 1: not a pathprof branch stream (expected "
			"'# pathprof-branches 1'; give --perf for perf script text)");
	      status = -1;
	    }
	  continue;
	}
      int r = perf ? perf_line (line, branch, sample_end, ctx, why, sizeof why)
		   : stream_line (line, labels, &thread, branch, ctx, why, sizeof why);
      if (r < 0)
	{
	  snprintf (err, errlen, "line %lu: %s", lineno, why);
	  status = -1;
	}
      else if (r > 0)
	break;
    }
  if (status == 0 && ferror (in))
    {
      snprintf (err, errlen, "read error");
      status = -1;
    }
  if (status == 0 && !perf && lineno == 0)
    {
      snprintf (err, errlen, "empty (not a pathprof branch stream)");
      status = -1;
    }
  free (line);
  return status;
}
