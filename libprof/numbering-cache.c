/* libprof: the numbering cache (numbering-cache.h).  */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "file-names.h"
#include "hash.h"
#include "ip-notes.h"
#include "ip-runtime.h"
#include "numbering-cache.h"
#include "profile.h"

#define MAGIC "PPNUMBR1"
#define FORMAT 5u		/* 3: record_sum in eight lanes; 4: no region
			   cut into a leave (segments.c); 5: the region
			   cuts' threshold bisected (paths.c) */
#define MAX_FILE ((off_t) 1 << 32)	/* read no more (SQLite's: 8 MB) */

struct head
{
  char magic[8];
  uint32_t version, nentries;
  uint64_t key, hash;
};

struct entry
{
  uint32_t proc, zero;
  uint64_t offset, length, hash;
};

_Static_assert (sizeof (struct head) == 32 && sizeof (struct entry) == 32,
		"the numbering cache's layout");

/* A record's checksum: Fletcher's two running sums of its 64-bit words
   (modulo 2^64) in eight lanes (lane j sums words j, j + 8, ... of the
   whole 64-byte blocks, two lanes to a vector add), the rest in one,
   mixed with its length.  It only has to catch accidental damage (a
   word changed, words moved, the file cut short): pp_hash64's multiply
   for every word made checking SQLite's records (13 MB for context
   paths) a tenth of a run from the cache; one lane costs 3.75
   instructions a word, eight 1.9.  LEN is a multiple of 8.  */
typedef uint64_t lanes2 __attribute__ ((vector_size (16)));

static uint64_t
record_sum (const unsigned char *bytes, size_t len)
{
  lanes2 a0 = { 0, 0 }, a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  size_t i = 0;
  for (; i + 64 <= len; i += 64)
    {
      lanes2 w0, w1, w2, w3;
      memcpy (&w0, bytes + i, 16);
      memcpy (&w1, bytes + i + 16, 16);
      memcpy (&w2, bytes + i + 32, 16);
      memcpy (&w3, bytes + i + 48, 16);
      a0 += w0, b0 += a0;
      a1 += w1, b1 += a1;
      a2 += w2, b2 += a2;
      a3 += w3, b3 += a3;
    }
  uint64_t a = 0, b = 0;
  for (; i + 8 <= len; i += 8)
    {
      uint64_t w;
      memcpy (&w, bytes + i, 8);
      a += w, b += a;
    }
  uint64_t h = pp_hash_mix (pp_hash_mix (PP_HASH_SEED ^ len, a), b);
  const lanes2 lanes[8] = { a0, b0, a1, b1, a2, b2, a3, b3 };
  for (int j = 0; j < 8; j++)
    h = pp_hash_mix (pp_hash_mix (h, lanes[j][0]), lanes[j][1]);
  return h;
}

/* Says once per process that the file is damaged.  */
void
pp_ncache_damaged (const pp_ncache *c, const char *what)
{
  static bool said;
  if (!said)
    pp_report (false, "'%s': %s; the numberings it holds are made again",
	       c->path, what);
  said = true;
}

/* The index of the mapped file, or NULL when it is not one of KEY (damaged:
   said).  */
static const struct entry *
read_index (const pp_ncache *c, uint32_t *n)
{
  struct head h;
  if (c->data_len < sizeof h)
    {
      pp_ncache_damaged (c, "truncated");
      return NULL;
    }
  memcpy (&h, c->data, sizeof h);
  if (memcmp (h.magic, MAGIC, 8) != 0 || h.version != FORMAT)
    {
      pp_ncache_damaged (c, "not a numbering cache of this libprof");
      return NULL;
    }
  if (h.key != c->key)
    return NULL;		/* another program's, or an older build's */
  if (h.nentries > (c->data_len - sizeof h) / sizeof (struct entry))
    {
      pp_ncache_damaged (c, "truncated");
      return NULL;
    }
  size_t bytes = (size_t) h.nentries * sizeof (struct entry);
  const struct entry *e = (const struct entry *) (c->data + sizeof h);
  if (PP_CHECKSUM_DIFFERS (h.hash, pp_hash64 (e, bytes, PP_HASH_SEED)))
    {
      pp_ncache_damaged (c, "bad checksum");
      return NULL;
    }
  for (uint32_t i = 0; i < h.nentries; i++)
    if ((i && e[i].proc <= e[i - 1].proc)
	|| e[i].offset > c->data_len || e[i].length > c->data_len - e[i].offset)
      {
	pp_ncache_damaged (c, "corrupted index");
	return NULL;
      }
  *n = h.nentries;
  return e;
}

int
pp_ncache_open (pp_ncache *c, char *path, uint64_t key)
{
  *c = (pp_ncache) { .path = path, .key = key };
  if (!path)
    return 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;			/* none yet */
  /* Read whole, not mapped: a file cut short under a mapping would kill
     the program (SIGBUS), and the roots are adopted where they lie.  */
  struct stat st;
  bool regular = fstat (fd, &st) == 0 && S_ISREG (st.st_mode);
  if (regular && st.st_size > MAX_FILE)
    pp_ncache_damaged (c, "larger than any numbering cache");
  else if (regular && st.st_size > 0
	   && (c->data = pp_malloc ((size_t) st.st_size)))
    {
      size_t n = 0, want = (size_t) st.st_size;
      while (n < want)
	{
	  ssize_t r = read (fd, c->data + n, want - n);
	  if (r < 0 && errno == EINTR)
	    continue;
	  if (r <= 0)
	    break;
	  n += (size_t) r;
	}
      c->data_len = n;
    }
  close (fd);
  const struct entry *e = c->data ? read_index (c, &c->nentries) : NULL;
  if (!e)
    c->nentries = 0;
  return 0;
}

unsigned char *
pp_ncache_find (const pp_ncache *c, uint32_t p, size_t *len)
{
  if (c->nentries == 0)
    return NULL;
  /* The index is sorted by record (read_index).  */
  const struct entry *e = (const struct entry *) (c->data + sizeof (struct head));
  uint32_t lo = 0, hi = c->nentries;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (e[mid].proc < p)
	lo = mid + 1;
      else
	hi = mid;
    }
  if (lo == c->nentries || e[lo].proc != p)
    return NULL;
  e += lo;
  unsigned char *bytes = c->data + e->offset;
  if ((e->offset | e->length) & 7)
    {
      pp_ncache_damaged (c, "corrupted index");
      return NULL;
    }
  if (PP_CHECKSUM_DIFFERS (e->hash, record_sum (bytes, e->length)))
    {
      pp_ncache_damaged (c, "bad checksum");
      return NULL;
    }
  *len = e->length;
  return bytes;
}

int
pp_ncache_save (const pp_ncache *c, const pp_ncache_record *rec, uint32_t nrec)
{
  if (!c->path)
    return 0;
  struct entry *e = pp_calloc ((size_t) nrec + 1, sizeof *e);
  char *tmp = pp_path_with_suffix (c->path, ".tmp.", true);
  if (!e || !tmp)
    {
      pp_free (e);
      pp_free (tmp);
      pp_report (false, "cannot save '%s': out of memory", c->path);
      return -1;
    }
  struct head h = { .version = FORMAT, .nentries = nrec, .key = c->key };
  memcpy (h.magic, MAGIC, 8);
  uint64_t at = sizeof h + (uint64_t) nrec * sizeof *e;
  for (uint32_t i = 0; i < nrec; i++)
    {
      e[i] = (struct entry) { .proc = rec[i].proc, .offset = at, .length = rec[i].len,
			      .hash = record_sum (rec[i].bytes, rec[i].len) };
      at += rec[i].len;
    }
  h.hash = pp_hash64 (e, (size_t) nrec * sizeof *e, PP_HASH_SEED);
  int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  int err = fd < 0 ? errno : 0;
  if (!err && (pp_write_all (fd, &h, sizeof h)
	       || pp_write_all (fd, e, (size_t) nrec * sizeof *e)))
    err = errno;
  for (uint32_t i = 0; !err && i < nrec; i++)
    if (pp_write_all (fd, rec[i].bytes, rec[i].len))
      err = errno;
  if (fd >= 0 && close (fd) != 0 && !err)
    err = errno;
  if (!err && rename (tmp, c->path) != 0)
    err = errno;
  static bool said;
  if (err)
    {
      if (fd >= 0)
	unlink (tmp);
      if (!said)
	pp_report (false, "cannot save '%s': %s; the next run numbers again",
		   c->path, strerror (err));
      said = true;
    }
  pp_free (e);
  pp_free (tmp);
  return err ? -1 : 0;
}

void
pp_ncache_close (pp_ncache *c)
{
  pp_free (c->data);
  pp_free (c->path);
  *c = (pp_ncache) { 0 };
}

uint64_t
pp_ncache_key (const uint64_t *what, size_t n)
{
  uint64_t key = pp_hash64 (what, n * sizeof *what, PP_HASH_SEED);
  return pp_hash64 (PACKAGE_VERSION, sizeof PACKAGE_VERSION, key);
}

bool
pp_ncache_adopt_layout (const pp_ncache *c, uint32_t nunits, pp_ip_layout *l)
{
  size_t len = 0;
  unsigned char *block = pp_ncache_find (c, PP_NCACHE_LAYOUT, &len);
  int rc = block ? pp_ip_layout_adopt (nunits, (uint64_t *) block, len / 8, l)
	   : PP_IP_EGRAPH;
  if (block && rc != PP_IP_OK)
    pp_ncache_damaged (c, rc == PP_IP_ENOMEM ? "out of memory to read it"
		       : "not of this program");
  return rc == PP_IP_OK;
}

int
pp_ncache_layout_record (const pp_ncache *c, const pp_ip_layout *l,
			 pp_ncache_record *rec, uint64_t **packed)
{
  *packed = NULL;
  *rec = (pp_ncache_record) { .proc = PP_NCACHE_LAYOUT };
  rec->bytes = pp_ncache_find (c, PP_NCACHE_LAYOUT, &rec->len);
  if (rec->bytes)
    return 0;
  size_t n = 0;
  if (pp_ip_layout_pack (l, packed, &n) != PP_IP_OK)
    return -1;
  rec->bytes = (const unsigned char *) *packed;
  rec->len = n * sizeof **packed;
  return 0;
}
