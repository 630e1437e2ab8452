/* Profile files: encoding, bounds-checked decoding and merging (layout in
   profile.h).  Compiled into libprof as well as libppcore, so it uses only libc.  */

#define _GNU_SOURCE 1		/* AT_EMPTY_PATH */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "alloc.h"
#include "hash.h"
#include "profile.h"

enum
{
  MAGIC_BYTES = 8,
  HEADER_BYTES = MAGIC_BYTES + 4 + 4,
  TRAILER_BYTES = 8,
  /* name length, checksum, runs, notes_len, value_kind, nvalues, nsparse,
     (version 4) wide_words, nwide */
  MIN_UNIT_BYTES_V3 = 4 + 8 + 8 + 4 + 4 + 4 + 4,
  MIN_UNIT_BYTES = MIN_UNIT_BYTES_V3 + 4 + 4,
  SPARSE_BYTES = 4 + 8 + 8,	/* function, path, count */
};

static size_t
value_size (uint32_t kind)
{
  switch (kind)
    {
    case PP_VALUES_U64:
      return 8;
    case PP_VALUES_U8:
      return 1;
    default:
      return 0;
    }
}

static const char *
kind_name (uint32_t kind)
{
  return kind == PP_VALUES_U64 ? "u64" : kind == PP_VALUES_U8 ? "u8" : "unknown";
}

int
pp_fail (char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (err, errlen, fmt, ap);
  va_end (ap);
  return -1;
}

/* ------------------------------------------------------------------------- */
/* Plain file I/O.  */

int
pp_write_all (int fd, const void *buf, size_t len)
{
  const unsigned char *p = buf;
  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
	continue;
      if (n < 0)
	return -1;
      if (n == 0)
	{
	  errno = EIO;
	  return -1;
	}
      p += n;
      len -= (size_t) n;
    }
  return 0;
}

int
pp_fstat (int fd, struct stat *st)
{
#ifdef AT_EMPTY_PATH
  return fstatat (fd, "", st, AT_EMPTY_PATH);
#else
  return fstat (fd, st);
#endif
}

int
pp_read_all (int fd, unsigned char **buf, size_t *len)
{
  struct stat st;
  size_t cap = 4096, n = 0;
  if (pp_fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0
      && (unsigned long long) st.st_size < SIZE_MAX - 1)
    cap = (size_t) st.st_size + 1;	/* +1: EOF is seen without growing */
  unsigned char *b = pp_malloc (cap);
  if (!b)
    return -1;
  for (;;)
    {
      if (n == cap)
	{
	  unsigned char *bigger = cap > SIZE_MAX / 2 ? NULL : pp_realloc (b, cap * 2);
	  if (!bigger)
	    {
	      pp_free (b);
	      errno = ENOMEM;
	      return -1;
	    }
	  b = bigger;
	  cap *= 2;
	}
      ssize_t got = read (fd, b + n, cap - n);
      if (got < 0 && errno == EINTR)
	continue;
      if (got < 0)
	{
	  int saved = errno;
	  pp_free (b);
	  errno = saved;
	  return -1;
	}
      if (got == 0)
	break;
      n += (size_t) got;
    }
  *buf = b;
  *len = n;
  return 0;
}

/* ------------------------------------------------------------------------- */
/* Decoding.  */

typedef struct reader
{
  const unsigned char *buf;
  size_t len, pos;
  char *err;
  size_t errlen;
  uint64_t trailer;		/* the structural pass chains the trailer here */
  uint32_t version;
  /* Filling pass: notes point into buf (or a trusted unit's) instead of being
     copied; the notes of units equal to a trusted one are not hashed.  */
  bool borrow;
  const pp_unit_data *trusted;
  uint32_t ntrusted;
} reader;

static int
need (reader *r, size_t n, const char *what)
{
  if (r->len - r->pos < n)
    {
      pp_fail (r->err, r->errlen, "truncated at byte %zu (%s at byte %zu)",
	       r->len, what, r->pos);
      return -1;
    }
  return 0;
}

static uint32_t
take_u32 (reader *r)
{
  const unsigned char *p = r->buf + r->pos;
  r->pos += 4;
  return p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

static uint64_t
take_u64 (reader *r)
{
  uint64_t lo = take_u32 (r);
  return (uint64_t) take_u32 (r) << 32 | lo;
}

static int
get_u32 (reader *r, uint32_t *v, const char *what)
{
  if (need (r, 4, what))
    return -1;
  *v = take_u32 (r);
  return 0;
}

static int
get_u64 (reader *r, uint64_t *v, const char *what)
{
  if (need (r, 8, what))
    return -1;
  *v = take_u64 (r);
  return 0;
}

static void *
copy_bytes (const void *src, size_t n)
{
  void *p = pp_malloc (n ? n : 1);
  if (p && n)
    memcpy (p, src, n);
  return p;
}

/* A unit name, copied by loops rather than memcpy (see same_string).  */
static char *
copy_name (const char *name)
{
  char *s = pp_malloc (pp_short_strlen (name) + 1), *o = s;
  if (s)
    while ((*o++ = *name++))
      ;
  return s;
}

/* The name of n bytes at src, NUL terminated; NULL with *nul set if it holds
   a NUL byte, NULL alone when out of memory.  */
static char *
copy_file_name (const unsigned char *src, size_t n, bool *nul)
{
  char *s = pp_malloc (n + 1);
  *nul = false;
  for (size_t i = 0; s && i < n; i++)
    if (!(s[i] = (char) src[i]))
      {
	*nul = true;
	pp_free (s);
	return NULL;
      }
  if (s)
    s[n] = 0;
  return s;
}

/* The index of the first sparse count not strictly after its predecessor, or n
   when they are in order.  */
static uint32_t
sparse_disorder (const pp_sparse_count *sparse, uint32_t n)
{
  for (uint32_t i = 1; i < n; i++)
    if (!pp_sparse_before (&sparse[i - 1], &sparse[i]))
      return i;
  return n;
}

/* The same for wide counts.  */
static uint32_t
wide_disorder (const uint64_t *wide, uint32_t words, uint32_t n)
{
  for (uint32_t i = 1; i < n; i++)
    if (!pp_wide_before (wide + (size_t) (i - 1) * (words + 1),
			 wide + (size_t) i * (words + 1), words))
      return i;
  return n;
}

/* libprof runs this file at exit, where the first call of each libc function
   costs the dynamic linker a symbol lookup (DESIGN.md, "The cost of a short
   run"): short names and magics are compared and copied by loops, not by
   strcmp, memcmp, memchr or memcpy.  */
static bool
same_string (const char *a, const char *b)
{
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

static bool
same_unit (const pp_unit_data *a, const char *name, uint64_t checksum)
{
  return a->checksum == checksum && same_string (a->name, name);
}

/* Reads one unit record.  With u NULL it only checks the structure, allocating
   nothing; otherwise it also fills u and checks the record's contents.  */
static int
read_unit (reader *r, pp_unit_data *u, const pp_profile *p)
{
  size_t start = r->pos, at;
  uint32_t name_len, notes_len, kind, nvalues, nsparse;
  uint64_t checksum, runs;
  const unsigned char *name, *notes, *values, *sparse;

  if (get_u32 (r, &name_len, "unit name") || need (r, name_len, "unit name"))
    return -1;
  name = r->buf + r->pos;
  r->pos += name_len;
  if (get_u64 (r, &checksum, "unit checksum") || get_u64 (r, &runs, "unit runs")
      || get_u32 (r, &notes_len, "unit notes") || need (r, notes_len, "unit notes"))
    return -1;
  notes = r->buf + r->pos;
  r->pos += notes_len;
  at = r->pos;
  if (get_u32 (r, &kind, "unit values"))
    return -1;
  size_t size = value_size (kind);
  if (size == 0)
    {
      pp_fail (r->err, r->errlen, "corrupted at byte %zu: unknown value kind %u",
	       at, kind);
      return -1;
    }
  if (get_u32 (r, &nvalues, "unit values"))
    return -1;
  if (nvalues > (r->len - r->pos) / size)
    {
      pp_fail (r->err, r->errlen, "truncated at byte %zu (%u unit values at byte "
	       "%zu)", r->len, nvalues, r->pos);
      return -1;
    }
  values = r->buf + r->pos;
  r->pos += (size_t) nvalues * size;
  if (get_u32 (r, &nsparse, "unit path counts"))
    return -1;
  if (nsparse > (r->len - r->pos) / SPARSE_BYTES)
    {
      pp_fail (r->err, r->errlen, "truncated at byte %zu (%u path counts at byte "
	       "%zu)", r->len, nsparse, r->pos);
      return -1;
    }
  sparse = r->buf + r->pos;
  r->pos += (size_t) nsparse * SPARSE_BYTES;
  uint32_t wide_words = 0, nwide = 0;
  const unsigned char *wide = r->buf + r->pos;
  if (r->version >= 4)
    {
      at = r->pos;
      if (get_u32 (r, &wide_words, "unit wide path counts")
	  || get_u32 (r, &nwide, "unit wide path counts"))
	return -1;
      if (wide_words > PP_PROFILE_WIDE_WORDS_MAX || (nwide && wide_words == 0))
	{
	  pp_fail (r->err, r->errlen, "corrupted at byte %zu: wide path numbers "
		   "of %u words", at, wide_words);
	  return -1;
	}
      if (nwide > (r->len - r->pos) / (8 * ((size_t) wide_words + 1)))
	{
	  pp_fail (r->err, r->errlen, "truncated at byte %zu (%u wide path counts "
		   "at byte %zu)", r->len, nwide, r->pos);
	  return -1;
	}
      wide = r->buf + r->pos;
      r->pos += (size_t) nwide * 8 * ((size_t) wide_words + 1);
    }
  if (!u)
    {
      /* The trailer covers the unit's head and tail; its notes only through
	 the checksum in the head.  */
      const unsigned char *head = r->buf + start, *tail = notes + notes_len;
      r->trailer = pp_hash64 (head, (size_t) (notes - head), r->trailer);
      r->trailer = pp_hash64 (tail, (size_t) (r->buf + r->pos - tail), r->trailer);
      return 0;
    }

  bool nul;
  u->name = copy_file_name (name, name_len, &nul);
  if (nul)
    {
      pp_fail (r->err, r->errlen, "corrupted at byte %zu: unit name contains a "
	       "NUL byte", start);
      return -1;
    }
  if (!u->name)
    goto oom;
  const pp_unit_data *trusted = NULL;
  for (uint32_t i = 0; i < r->ntrusted && !trusted; i++)
    if (r->trusted[i].notes_len == notes_len
	&& same_unit (&r->trusted[i], u->name, checksum))
      trusted = &r->trusted[i];
  if (!trusted && PP_CHECKSUM_DIFFERS (checksum,
				       pp_hash64 (notes, notes_len, PP_HASH_SEED)))
    {
      pp_fail (r->err, r->errlen, "corrupted at byte %zu: the notes of unit '%s' "
	       "do not match its checksum", start, u->name);
      return -1;
    }
  if (pp_profile_find (p, u->name, checksum))
    {
      pp_fail (r->err, r->errlen, "corrupted at byte %zu: unit '%s' (checksum "
	       "%016llx) appears twice", start, u->name,
	       (unsigned long long) checksum);
      return -1;
    }
  u->checksum = checksum;
  u->runs = runs;
  u->notes_len = notes_len;
  u->notes = trusted ? trusted->notes
	     : r->borrow ? (unsigned char *) notes : copy_bytes (notes, notes_len);
  u->value_kind = kind;
  u->nvalues = nvalues;
  u->values = pp_malloc (nvalues ? (size_t) nvalues * size : 1);
  u->nsparse = nsparse;
  u->sparse = pp_malloc (nsparse ? (size_t) nsparse * sizeof *u->sparse : 1);
  size_t nwords = (size_t) nwide * ((size_t) wide_words + 1);
  u->wide_words = wide_words;
  u->nwide = nwide;
  u->wide = pp_malloc (nwords ? nwords * 8 : 1);
  if (!u->notes || !u->values || !u->sparse || !u->wide)
    goto oom;
  reader wr = { .buf = wide, .len = nwords * 8 };
  for (size_t i = 0; i < nwords; i++)
    u->wide[i] = take_u64 (&wr);
  uint32_t wbad = wide_disorder (u->wide, wide_words, nwide);
  if (wbad < nwide)
    {
      pp_fail (r->err, r->errlen, "corrupted at byte %zu: the wide path counts of "
	       "unit '%s' are out of order or repeated (count %u)",
	       (size_t) (wide - r->buf) + (size_t) wbad * 8 * (wide_words + 1),
	       u->name, wbad);
      return -1;
    }
  if (kind == PP_VALUES_U8)
    memcpy (u->values, values, nvalues);
  else
    {
      reader vr = { .buf = values, .len = (size_t) nvalues * 8 };
      uint64_t *v = u->values;
      for (uint32_t i = 0; i < nvalues; i++)
	v[i] = take_u64 (&vr);
    }
  reader sr = { .buf = sparse, .len = (size_t) nsparse * SPARSE_BYTES };
  for (uint32_t i = 0; i < nsparse; i++)
    {
      u->sparse[i].function = take_u32 (&sr);
      u->sparse[i].path = take_u64 (&sr);
      u->sparse[i].count = take_u64 (&sr);
    }
  uint32_t bad = sparse_disorder (u->sparse, nsparse);
  if (bad < nsparse)
    {
      pp_fail (r->err, r->errlen, "corrupted at byte %zu: the path counts of unit "
	       "'%s' are out of order or repeated (function %u, path %llu)",
	       (size_t) (sparse - r->buf) + (size_t) bad * SPARSE_BYTES, u->name,
	       u->sparse[bad].function, (unsigned long long) u->sparse[bad].path);
      return -1;
    }
  return 0;
oom:
  pp_fail (r->err, r->errlen, "out of memory");
  return -1;
}

/* Reads the unit records.  With p NULL it only checks the structure.  */
static int
read_units (reader *r, uint32_t nunits, pp_profile *p)
{
  for (uint32_t i = 0; i < nunits; i++)
    {
      if (p)
	{
	  p->units[i] = (pp_unit_data) { 0 };
	  if (read_unit (r, &p->units[i], p))
	    return -1;
	  p->nunits = i + 1;
	}
      else if (read_unit (r, NULL, NULL))
	return -1;
    }
  return 0;
}

/* Room for the file's units and the trusted ones a merge may add (libprof's
   exit then grows nothing).  */
static int
reserve_units (pp_profile *p, uint32_t nunits, uint32_t more, char *err,
	       size_t errlen)
{
  size_t cap = (size_t) nunits + more;
  if (cap == 0)
    return 0;
  p->units = cap > UINT32_MAX ? NULL : pp_malloc (cap * sizeof *p->units);
  if (!p->units)
    {
      pp_fail (err, errlen, "out of memory");
      return -1;
    }
  p->cap = (uint32_t) cap;
  return 0;
}

/* Decodes buf into p with r's options (borrowing, trusted units).  */
static int
decode (reader *r, pp_profile *p)
{
  const unsigned char *buf = r->buf;
  size_t len = r->len;
  char *err = r->err;
  size_t errlen = r->errlen;
  uint32_t version, nunits;

  memset (p, 0, sizeof *p);
  p->notes_borrowed = r->borrow;
  if (len == 0)
    return reserve_units (p, 0, r->ntrusted, err, errlen);
  bool magic = true;
  for (size_t i = 0; i < MAGIC_BYTES && i < len; i++)
    magic &= buf[i] == (unsigned char) PP_PROFILE_MAGIC[i];
  if (!magic)
    {
      pp_fail (err, errlen, "not a pathprof profile (bad magic)");
      return -1;
    }
  if (need (r, MAGIC_BYTES, "header"))
    return -1;
  r->pos = MAGIC_BYTES;
  if (get_u32 (r, &version, "header"))
    return -1;
  if (version != PP_PROFILE_VERSION && version != 3)
    {
      pp_fail (err, errlen, "unsupported format version %u (this build reads "
	       "versions 3 and %u)", version, PP_PROFILE_VERSION);
      return -1;
    }
  r->version = version;
  if (get_u32 (r, &nunits, "header"))
    return -1;
  if (nunits > (len - r->pos) / (version == 3 ? MIN_UNIT_BYTES_V3 : MIN_UNIT_BYTES))
    {
      pp_fail (err, errlen, "truncated at byte %zu (the header announces %u units)",
	       len, nunits);
      return -1;
    }

  /* Structure and checksum first: a damaged file is reported as truncated or
     corrupted as a whole, and nothing is allocated for garbage.  */
  r->trailer = pp_hash64 (buf, HEADER_BYTES, PP_HASH_SEED);
  if (read_units (r, nunits, NULL) || need (r, TRAILER_BYTES, "trailer"))
    return -1;
  if (r->len - r->pos > TRAILER_BYTES)
    {
      pp_fail (err, errlen, "corrupted: %zu unexpected bytes after byte %zu",
	       r->len - r->pos - TRAILER_BYTES, r->pos + TRAILER_BYTES);
      return -1;
    }
  if (PP_CHECKSUM_DIFFERS (take_u64 (r), r->trailer))
    {
      pp_fail (err, errlen, "bad trailer checksum: file is corrupted");
      return -1;
    }

  r->pos = HEADER_BYTES;
  if (reserve_units (p, nunits, r->ntrusted, err, errlen))
    return -1;
  if (read_units (r, nunits, p))
    {
      /* The failed unit may be partly filled: count it so that it is freed.  */
      if (p->nunits < nunits)
	p->nunits++;
      pp_profile_free (p);
      return -1;
    }
  return 0;
}

int
pp_profile_decode (const unsigned char *buf, size_t len, pp_profile *p, char *err,
		   size_t errlen)
{
  reader r = { .buf = buf, .len = len, .err = err, .errlen = errlen };
  return decode (&r, p);
}

int
pp_profile_decode_borrowing (const unsigned char *buf, size_t len,
			     const pp_unit_data *trusted, uint32_t ntrusted,
			     pp_profile *p, char *err, size_t errlen)
{
  reader r = { .buf = buf, .len = len, .err = err, .errlen = errlen,
	       .borrow = true, .trusted = trusted, .ntrusted = ntrusted };
  return decode (&r, p);
}

int
pp_profile_seal (unsigned char *buf, size_t len)
{
  char err[8];
  reader r = { .buf = buf, .len = len, .err = err, .errlen = sizeof err };
  uint32_t nunits;
  if (len < HEADER_BYTES + TRAILER_BYTES)
    return -1;
  r.pos = MAGIC_BYTES;
  r.version = take_u32 (&r);
  nunits = take_u32 (&r);
  r.len = len - TRAILER_BYTES;
  r.trailer = pp_hash64 (buf, HEADER_BYTES, PP_HASH_SEED);
  if (read_units (&r, nunits, NULL) || r.pos != r.len)
    return -1;
  for (int i = 0; i < 8; i++)
    buf[r.len + i] = (unsigned char) (r.trailer >> (8 * i));
  return 0;
}

int
pp_profile_read_fd (int fd, pp_profile *p, char *err, size_t errlen)
{
  unsigned char *buf;
  size_t len;
  memset (p, 0, sizeof *p);
  if (pp_read_all (fd, &buf, &len))
    {
      pp_fail (err, errlen, "read error: %s", strerror (errno));
      return -1;
    }
  int ret = pp_profile_decode (buf, len, p, err, errlen);
  pp_free (buf);
  return ret;
}

int
pp_profile_read_file (const char *path, pp_profile *p, int *sys_errno, char *err,
		      size_t errlen)
{
  memset (p, 0, sizeof *p);
  if (sys_errno)
    *sys_errno = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      if (sys_errno)
	*sys_errno = errno;
      pp_fail (err, errlen, "%s", strerror (errno));
      return -1;
    }
  int ret = pp_profile_read_fd (fd, p, err, errlen);
  close (fd);
  return ret;
}

/* ------------------------------------------------------------------------- */
/* Encoding.  */

static unsigned char *
put_u32 (unsigned char *o, uint32_t v)
{
  o[0] = v;
  o[1] = v >> 8;
  o[2] = v >> 16;
  o[3] = v >> 24;
  return o + 4;
}

static unsigned char *
put_u64 (unsigned char *o, uint64_t v)
{
  return put_u32 (put_u32 (o, (uint32_t) v), (uint32_t) (v >> 32));
}

static unsigned char *
put_bytes (unsigned char *o, const void *src, size_t n)
{
  if (n)
    memcpy (o, src, n);
  return o + n;
}

/* Adds n to *total; false on overflow.  */
static bool
add_size (size_t *total, size_t n)
{
  if (n > SIZE_MAX - *total)
    return false;
  *total += n;
  return true;
}

/* Everything but the notes, in file order: the header, then each unit's head
   (name to notes_len) and tail (value kind to the last sparse count), with
   cut[2i] and cut[2i+1] the ends of unit i's head and tail in meta, and the
   trailer chained over those pieces.  The notes go between each head and
   tail.  Returns 0, or -1 with errno (EINVAL for a unit of unknown kind or
   with sparse counts out of order, ENOMEM).  */
typedef struct pieces
{
  unsigned char *meta;
  size_t *cut;
  struct iovec *iov;		/* room for file_iovecs */
  size_t notes_total;
  uint64_t trailer;
} pieces;

static int
make_pieces (const pp_profile *p, pieces *pc)
{
  size_t total = HEADER_BYTES;
  pc->notes_total = 0;
  for (uint32_t i = 0; i < p->nunits; i++)
    {
      const pp_unit_data *u = &p->units[i];
      size_t name_len = pp_short_strlen (u->name);
      size_t size = value_size (u->value_kind);
      if (name_len > UINT32_MAX || size == 0
	  || !add_size (&total, MIN_UNIT_BYTES) || !add_size (&total, name_len)
	  || !add_size (&pc->notes_total, u->notes_len)
	  || (u->nvalues && size > SIZE_MAX / u->nvalues)
	  || !add_size (&total, size * u->nvalues)
	  || (u->nsparse && SPARSE_BYTES > SIZE_MAX / u->nsparse)
	  || !add_size (&total, (size_t) u->nsparse * SPARSE_BYTES)
	  || sparse_disorder (u->sparse, u->nsparse) < u->nsparse
	  || u->wide_words > PP_PROFILE_WIDE_WORDS_MAX
	  || (u->nwide && u->wide_words == 0)
	  || !add_size (&total, (size_t) u->nwide * 8 * (u->wide_words + 1))
	  || wide_disorder (u->wide, u->wide_words, u->nwide) < u->nwide)
	{
	  errno = EINVAL;
	  return -1;
	}
    }
  /* One block: cut, iov, meta (freed through cut).  */
  size_t ncut = 2 * (size_t) p->nunits + 1, niov = ncut + 1;
  size_t head = ncut * sizeof *pc->cut + niov * sizeof *pc->iov;
  pc->cut = total > SIZE_MAX - head ? NULL : pp_malloc (head + total);
  if (!pc->cut)
    {
      errno = ENOMEM;
      return -1;
    }
  pc->iov = (struct iovec *) (pc->cut + ncut);
  pc->meta = (unsigned char *) (pc->iov + niov);
  unsigned char *o = pc->meta;
  o = put_bytes (o, PP_PROFILE_MAGIC, MAGIC_BYTES);
  o = put_u32 (o, PP_PROFILE_VERSION);
  o = put_u32 (o, p->nunits);
  pc->trailer = pp_hash64 (pc->meta, HEADER_BYTES, PP_HASH_SEED);
  for (uint32_t i = 0; i < p->nunits; i++)
    {
      const pp_unit_data *u = &p->units[i];
      size_t name_len = pp_short_strlen (u->name);
      unsigned char *head = o;
      o = put_u32 (o, (uint32_t) name_len);
      for (const char *c = u->name; *c; c++)
	*o++ = (unsigned char) *c;
      o = put_u64 (o, u->checksum);
      o = put_u64 (o, u->runs);
      o = put_u32 (o, u->notes_len);
      pc->cut[2 * i] = (size_t) (o - pc->meta);
      pc->trailer = pp_hash64 (head, (size_t) (o - head), pc->trailer);
      unsigned char *tail = o;
      o = put_u32 (o, u->value_kind);
      o = put_u32 (o, u->nvalues);
      if (u->value_kind == PP_VALUES_U8)
	o = put_bytes (o, u->values, u->nvalues);
      else
	for (uint32_t v = 0; v < u->nvalues; v++)
	  o = put_u64 (o, ((const uint64_t *) u->values)[v]);
      o = put_u32 (o, u->nsparse);
      for (uint32_t k = 0; k < u->nsparse; k++)
	{
	  o = put_u32 (o, u->sparse[k].function);
	  o = put_u64 (o, u->sparse[k].path);
	  o = put_u64 (o, u->sparse[k].count);
	}
      o = put_u32 (o, u->wide_words);
      o = put_u32 (o, u->nwide);
      for (size_t k = 0; k < (size_t) u->nwide * (u->wide_words + 1); k++)
	o = put_u64 (o, u->wide[k]);
      pc->cut[2 * i + 1] = (size_t) (o - pc->meta);
      pc->trailer = pp_hash64 (tail, (size_t) (o - tail), pc->trailer);
    }
  return 0;
}

/* The file as pieces for I/O: meta up to unit 0's notes, the notes, meta up
   to unit 1's notes, ..., the rest of meta and the trailer (8 bytes in
   trailer_bytes).  Fills at most 2 * nunits + 2 entries of iov.  */
static size_t
file_iovecs (const pp_profile *p, const pieces *pc, unsigned char *trailer_bytes,
	     struct iovec *iov)
{
  size_t n = 0, from = 0;
  for (uint32_t i = 0; i < p->nunits; i++)
    {
      iov[n++] = (struct iovec) { pc->meta + from, pc->cut[2 * i] - from };
      iov[n++] = (struct iovec) { p->units[i].notes, p->units[i].notes_len };
      from = pc->cut[2 * i];
    }
  size_t end = p->nunits ? pc->cut[2 * (size_t) p->nunits - 1] : HEADER_BYTES;
  iov[n++] = (struct iovec) { pc->meta + from, end - from };
  put_u64 (trailer_bytes, pc->trailer);
  iov[n++] = (struct iovec) { trailer_bytes, TRAILER_BYTES };
  return n;
}

int
pp_profile_encode (const pp_profile *p, unsigned char **buf, size_t *len)
{
  pieces pc;
  if (make_pieces (p, &pc))
    return -1;
  struct iovec *iov = pc.iov;
  unsigned char trailer[TRAILER_BYTES];
  size_t n = file_iovecs (p, &pc, trailer, iov), total = 0;
  for (size_t k = 0; k < n; k++)
    total += iov[k].iov_len;
  unsigned char *b = pp_malloc (total), *o = b;
  for (size_t k = 0; b && k < n; k++)
    o = put_bytes (o, iov[k].iov_base, iov[k].iov_len);
  pp_free (pc.cut);
  if (!b)
    {
      errno = ENOMEM;
      return -1;
    }
  *buf = b;
  *len = total;
  return 0;
}

int
pp_profile_write (int fd, const pp_profile *p)
{
  pieces pc;
  if (make_pieces (p, &pc))
    return -1;
  struct iovec *iov = pc.iov;
  unsigned char trailer[TRAILER_BYTES];
  size_t n = file_iovecs (p, &pc, trailer, iov), k = 0;
  int ret = 0;
  while (k < n && ret == 0)
    {
      int batch = n - k > 256 ? 256 : (int) (n - k);
      ssize_t done = writev (fd, iov + k, batch);
      if (done < 0 && errno == EINTR)
	continue;
      if (done < 0)
	{
	  ret = -1;
	  break;
	}
      /* Skip what was written; a short write resumes inside a piece.  */
      size_t left = (size_t) done;
      while (k < n && left >= iov[k].iov_len)
	left -= iov[k++].iov_len;
      if (k < n)
	{
	  iov[k].iov_base = (unsigned char *) iov[k].iov_base + left;
	  iov[k].iov_len -= left;
	}
      if (done == 0 && batch > 0)
	{
	  size_t want = 0;
	  for (int j = 0; j < batch; j++)
	    want += iov[k + j].iov_len;
	  if (want)
	    {
	      errno = EIO;
	      ret = -1;
	    }
	}
    }
  int saved = errno;
  pp_free (pc.cut);
  errno = saved;
  return ret;
}

/* ------------------------------------------------------------------------- */
/* Merging.  */

pp_unit_data *
pp_profile_find (const pp_profile *p, const char *name, uint64_t checksum)
{
  for (uint32_t i = 0; i < p->nunits; i++)
    if (same_unit (&p->units[i], name, checksum))
      return &p->units[i];
  return NULL;
}

/* Same name and checksum must mean the same notes and values layout.  */
static int
check_same_layout (const pp_unit_data *d, const pp_unit_data *u, char *err,
		   size_t errlen)
{
  if (d->value_kind != u->value_kind || d->nvalues != u->nvalues
      || (d->nwide && u->nwide && d->wide_words != u->wide_words)
      || d->notes_len != u->notes_len
      || (u->notes_len && d->notes != u->notes
	  && memcmp (d->notes, u->notes, u->notes_len) != 0))
    {
      pp_fail (err, errlen, "unit '%s' (checksum %016llx) has %u %s values in "
	       "the profile but %u %s values in the new data", u->name,
	       (unsigned long long) u->checksum, d->nvalues,
	       kind_name (d->value_kind), u->nvalues, kind_name (u->value_kind));
      return -1;
    }
  return 0;
}

/* What merging needs of u whatever the profile holds.  */
static int
check_unit_data (const pp_unit_data *u, char *err, size_t errlen)
{
  if (value_size (u->value_kind) == 0)
    {
      pp_fail (err, errlen, "unit '%s' has unknown value kind %u", u->name,
	       u->value_kind);
      return -1;
    }
  if (sparse_disorder (u->sparse, u->nsparse) < u->nsparse
      || (u->nwide && (u->wide_words == 0 || u->wide_words > PP_PROFILE_WIDE_WORDS_MAX))
      || wide_disorder (u->wide, u->wide_words, u->nwide) < u->nwide)
    {
      pp_fail (err, errlen, "unit '%s' has path counts out of order or repeated",
	       u->name);
      return -1;
    }
  return 0;
}

int
pp_profile_check_unit (const pp_profile *p, const pp_unit_data *u, char *err,
		       size_t errlen)
{
  const pp_unit_data *same = pp_profile_find (p, u->name, u->checksum);
  if (check_unit_data (u, err, errlen))
    return -1;
  if (same)
    return check_same_layout (same, u, err, errlen);
  for (uint32_t i = 0; i < p->nunits; i++)
    if (same_string (p->units[i].name, u->name))
      {
	pp_fail (err, errlen, "unit '%s' is stale: the profile has checksum "
		 "%016llx, the new data %016llx (compiled from different sources)",
		 u->name, (unsigned long long) p->units[i].checksum,
		 (unsigned long long) u->checksum);
	return 1;
      }
  return 0;
}

/* The union of two ordered lists of sparse counts, equal keys added, into a
   malloc'd array.  Returns NULL when out of memory.  */
static pp_sparse_count *
merge_sparse (const pp_sparse_count *a, uint32_t na, const pp_sparse_count *b,
	      uint32_t nb, uint32_t *n)
{
  uint64_t most = (uint64_t) na + nb;
  pp_sparse_count *m = most <= UINT32_MAX
		       ? pp_malloc (most ? (size_t) most * sizeof *m : 1) : NULL;
  uint32_t i = 0, j = 0, k = 0;
  if (!m)
    return NULL;
  while (i < na || j < nb)
    if (j == nb || (i < na && pp_sparse_before (&a[i], &b[j])))
      m[k++] = a[i++];
    else if (i == na || pp_sparse_before (&b[j], &a[i]))
      m[k++] = b[j++];
    else
      {
	m[k] = a[i++];
	m[k].count = pp_sat_add (m[k].count, b[j++].count);
	k++;
      }
  *n = k;
  return m;
}

/* The union of d's and u's wide counts (the same width), equal numbers
   added, replacing d's.  Returns 0, or -1 when out of memory.  */
static int
merge_wide (pp_unit_data *d, const pp_unit_data *u)
{
  if (u->nwide == 0)
    return 0;
  uint32_t w = u->wide_words, na = d->nwide, nb = u->nwide;
  uint64_t most = (uint64_t) na + nb;
  uint64_t *m = most <= UINT32_MAX
		? pp_malloc ((size_t) most * 8 * (w + 1)) : NULL;
  if (!m)
    return -1;
  const uint64_t *a = d->wide, *b = u->wide;
  uint32_t i = 0, j = 0, k = 0;
  while (i < na || j < nb)
    {
      const uint64_t *x = a + (size_t) i * (w + 1), *y = b + (size_t) j * (w + 1);
      uint64_t *o = m + (size_t) k++ * (w + 1);
      if (j == nb || (i < na && pp_wide_before (x, y, w)))
	memcpy (o, x, 8 * ((size_t) w + 1)), i++;
      else if (i == na || pp_wide_before (y, x, w))
	memcpy (o, y, 8 * ((size_t) w + 1)), j++;
      else
	{
	  memcpy (o, x, 8 * (size_t) w);
	  o[w] = pp_sat_add (x[w], y[w]);
	  i++, j++;
	}
    }
  pp_free (d->wide);
  d->wide = m;
  d->nwide = k;
  d->wide_words = w;
  return 0;
}

/* Adds u's values to d's; sparse, d's merged sparse counts (nsparse of them),
   replaces d's.  */
static void
add_values (pp_unit_data *d, const pp_unit_data *u, pp_sparse_count *sparse,
	    uint32_t nsparse)
{
  pp_free (d->sparse);
  d->sparse = sparse;
  d->nsparse = nsparse;
  d->runs = pp_sat_add (d->runs, u->runs);
  if (u->value_kind == PP_VALUES_U8)
    {
      uint8_t *dv = d->values;
      const uint8_t *uv = u->values;
      for (uint32_t i = 0; i < u->nvalues; i++)
	dv[i] |= uv[i];
    }
  else
    {
      uint64_t *dv = d->values;
      const uint64_t *uv = u->values;
      for (uint32_t i = 0; i < u->nvalues; i++)
	dv[i] = pp_sat_add (dv[i], uv[i]);
    }
}

static int
append_copy (pp_profile *p, const pp_unit_data *u, char *err, size_t errlen)
{
  if (PP_RESERVE (p->units, p->cap, (size_t) p->nunits + 1, 8))
    {
      pp_fail (err, errlen, "out of memory");
      return -1;
    }
  pp_unit_data c = *u;
  size_t size = value_size (u->value_kind) * u->nvalues;
  c.name = copy_name (u->name);
  c.notes = p->notes_borrowed ? u->notes : copy_bytes (u->notes, u->notes_len);
  c.values = copy_bytes (u->values, size);
  /* No path counts, no arrays (one allocation less each in a short run).  */
  c.sparse = u->nsparse ? copy_bytes (u->sparse, (size_t) u->nsparse
				      * sizeof *u->sparse) : NULL;
  c.wide = u->nwide ? copy_bytes (u->wide, (size_t) u->nwide * 8
				  * (u->wide_words + 1)) : NULL;
  if (!c.name || !c.notes || !c.values || (u->nsparse && !c.sparse)
      || (u->nwide && !c.wide))
    {
      pp_free (c.name);
      if (!p->notes_borrowed)
	pp_free (c.notes);
      pp_free (c.values);
      pp_free (c.sparse);
      pp_free (c.wide);
      pp_fail (err, errlen, "out of memory");
      return -1;
    }
  p->units[p->nunits++] = c;
  return 0;
}

int
pp_profile_add_unit (pp_profile *p, const pp_unit_data *u, char *err,
		     size_t errlen)
{
  pp_unit_data *d = pp_profile_find (p, u->name, u->checksum);
  if (check_unit_data (u, err, errlen)
      || (d && check_same_layout (d, u, err, errlen)))
    return -1;
  if (!d)
    return append_copy (p, u, err, errlen);
  uint32_t nsparse;
  pp_sparse_count *sparse = merge_sparse (d->sparse, d->nsparse, u->sparse,
					  u->nsparse, &nsparse);
  if (!sparse || merge_wide (d, u))
    {
      pp_free (sparse);
      pp_fail (err, errlen, "out of memory");
      return -1;
    }
  add_values (d, u, sparse, nsparse);
  return 0;
}

int
pp_profile_merge_unit (pp_profile *p, const pp_unit_data *u, char *err,
		       size_t errlen)
{
  int ret = pp_profile_check_unit (p, u, err, errlen);
  if (ret != 0)
    return ret;
  return pp_profile_add_unit (p, u, err, errlen);
}

void
pp_profile_free (pp_profile *p)
{
  if (p->units)
    for (uint32_t i = 0; i < p->nunits; i++)
      {
	pp_free (p->units[i].name);
	if (!p->notes_borrowed)
	  pp_free (p->units[i].notes);
	pp_free (p->units[i].values);
	pp_free (p->units[i].sparse);
	pp_free (p->units[i].wide);
      }
  pp_free (p->units);
  memset (p, 0, sizeof *p);
}
