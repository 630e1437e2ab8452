/* The interprocedural modes' program records (ip-records.h).  */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "ip-records.h"

static unsigned char *
put32 (unsigned char *o, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    *o++ = (unsigned char) (v >> (8 * i));
  return o;
}

static uint32_t
get32 (const unsigned char *p)
{
  return p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

int
pp_ip_manifest_encode (const pp_ip_manifest *m, unsigned char **buf, uint32_t *len)
{
  size_t n = 20;
  for (uint32_t u = 0; u < m->nunits; u++)
    n += 4 + strlen (m->names[u]) + 8;
  unsigned char *b = n <= UINT32_MAX ? pp_malloc (n) : NULL, *o = b;
  if (!b)
    return -1;
  o = put32 (o, PP_IP_MANIFEST_MAGIC);
  o = put32 (o, PP_IP_MANIFEST_VERSION);
  o = put32 (o, m->kind);
  o = put32 (o, m->depth);
  o = put32 (o, m->nunits);
  for (uint32_t u = 0; u < m->nunits; u++)
    {
      size_t k = strlen (m->names[u]);
      o = put32 (o, (uint32_t) k);
      memcpy (o, m->names[u], k);
      o += k;
      o = put32 (o, (uint32_t) m->checksums[u]);
      o = put32 (o, (uint32_t) (m->checksums[u] >> 32));
    }
  *buf = b;
  *len = (uint32_t) n;
  return 0;
}

bool
pp_ip_manifest_p (const unsigned char *buf, size_t len)
{
  return len >= 4 && get32 (buf) == PP_IP_MANIFEST_MAGIC;
}

int
pp_ip_manifest_decode (const unsigned char *buf, size_t len, pp_ip_manifest *m,
		       char *err, size_t errlen)
{
  memset (m, 0, sizeof *m);
  if (len < 16 || !pp_ip_manifest_p (buf, len))
    {
      snprintf (err, errlen, "not a program record");
      return -1;
    }
  uint32_t version = get32 (buf + 4);
  if (version < 1 || version > PP_IP_MANIFEST_VERSION)
    {
      snprintf (err, errlen, "program record version %" PRIu32 " is not "
		"supported (expected %u)", version, PP_IP_MANIFEST_VERSION);
      return -1;
    }
  if (version < 5 && len >= 12 && get32 (buf + 8) == PP_IP_SEGMENTS)
    {
      /* What the numbering did before the first version that changed it
	 after this one.  */
      static const char *const before[] = {
	"cut where a walk of each supergraph found loops",
	"region cuts into the leaves of calls that may not return",
	"region cuts where a search of every threshold put them",
      };
      uint32_t next = version < 3 ? 3 : version + 1;
      snprintf (err, errlen, "its segments are numbered as pathprof did before "
		"version %u of program records (%s): run the program again "
		"into a new profile file to count them", next, before[next - 3]);
      return -1;
    }
  size_t pos = version == 1 ? 16 : 20;
  m->kind = get32 (buf + 8);
  m->depth = version == 1 || len < pos ? 0 : get32 (buf + 12);
  uint32_t n = len < pos ? 0 : get32 (buf + pos - 4);
  if (len < pos || m->kind > PP_IP_SEGMENTS
      || (m->kind == PP_IP_SEGMENTS) != (m->depth > 0)
      || m->depth > PP_SEGMENTS_MAX_DEPTH || n > (len - pos) / 12)
    {
      snprintf (err, errlen, "damaged program record (kind %" PRIu32 ", depth %"
		PRIu32 ", %" PRIu32 " units in %zu bytes)", m->kind, m->depth,
		n, len);
      return -1;
    }
  m->names = pp_calloc (n + 1, sizeof *m->names);
  m->checksums = pp_calloc (n + 1, sizeof *m->checksums);
  if (!m->names || !m->checksums)
    goto oom;
  for (uint32_t u = 0; u < n; u++)
    {
      uint32_t k = len - pos >= 4 ? get32 (buf + pos) : UINT32_MAX;
      if (k == UINT32_MAX || k > len - pos - 4 || len - pos - 4 - k < 8
	  || memchr (buf + pos + 4, 0, k))
	{
	  snprintf (err, errlen, "damaged program record (unit %" PRIu32 " at byte "
		    "%zu)", u, pos);
	  pp_ip_manifest_free (m);
	  return -1;
	}
      if (!(m->names[u] = pp_malloc ((size_t) k + 1)))
	goto oom;
      memcpy (m->names[u], buf + pos + 4, k);
      m->names[u][k] = 0;
      pos += 4 + k;
      m->checksums[u] = get32 (buf + pos) | (uint64_t) get32 (buf + pos + 4) << 32;
      pos += 8;
      m->nunits = u + 1;
    }
  if (pos != len)
    {
      snprintf (err, errlen, "damaged program record (%zu bytes after byte %zu)",
		len - pos, pos);
      pp_ip_manifest_free (m);
      return -1;
    }
  return 0;
oom:
  pp_ip_manifest_free (m);
  snprintf (err, errlen, "out of memory");
  return -1;
}

void
pp_ip_manifest_free (pp_ip_manifest *m)
{
  for (uint32_t u = 0; m->names && u < m->nunits; u++)
    pp_free (m->names[u]);
  pp_free (m->names);
  pp_free (m->checksums);
  memset (m, 0, sizeof *m);
}

void
pp_ip_record_name (char *buf, size_t len, uint64_t sum)
{
  snprintf (buf, len, "interprocedural paths %016" PRIx64, sum);
}


int
pp_ip_record_open (const pp_profile *profile, const pp_unit_data *record,
		   pp_ip_manifest *m, const pp_unit_data ***member, char *err,
		   size_t errlen)
{
  char why[256];
  *member = NULL;
  if (pp_ip_manifest_decode (record->notes, record->notes_len, m, why, sizeof why))
    {
      snprintf (err, errlen, "'%s': %s", record->name, why);
      return -1;
    }
  const pp_unit_data **found = pp_calloc (m->nunits + 1, sizeof *found);
  if (!found)
    {
      snprintf (err, errlen, "out of memory");
      pp_ip_manifest_free (m);
      return -1;
    }
  for (uint32_t k = 0; k < m->nunits; k++)
    {
      for (uint32_t i = 0; i < profile->nunits && !found[k]; i++)
	if (profile->units[i].checksum == m->checksums[k]
	    && strcmp (profile->units[i].name, m->names[k]) == 0)
	  found[k] = &profile->units[i];
      if (!found[k])
	{
	  snprintf (err, errlen, "'%s': its unit '%s' (checksum %016" PRIx64
		    ") is not in the profile", record->name, m->names[k],
		    m->checksums[k]);
	  pp_free (found);
	  pp_ip_manifest_free (m);
	  return -1;
	}
    }
  *member = found;
  return 0;
}
