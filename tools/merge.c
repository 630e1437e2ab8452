/* pathprof merge: adds up profiles unit by unit.  The output replaces OUT
   atomically, so that a reader never sees a partial file and a failure leaves OUT
   as it was.  */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "report.h"

/* Adds every unit of the profile in path to merged.  One profile may hold units
   of the same name (a source compiled twice into one program), so all its units
   are checked against what was merged before any is added.  Returns 0, or -1
   after reporting the error.  */
static int
merge_file (pp_profile *merged, const char *path)
{
  char err[512];
  pp_profile in;
  if (pp_profile_read_file (path, &in, NULL, err, sizeof err))
    {
      tool_error (path, "%s", err);
      return -1;
    }
  int status = 0;
  for (uint32_t i = 0; i < in.nunits && status == 0; i++)
    {
      const pp_unit_data *u = &in.units[i];
      pp_unit_notes notes;
      /* Refuse corrupted notes now rather than when the merged file is read.  */
      status = report_decode_unit (u, &notes, err, sizeof err);
      pp_notes_free (&notes);
      if (status == 0)
	status = pp_profile_check_unit (merged, u, err, sizeof err);
    }
  for (uint32_t i = 0; i < in.nunits && status == 0; i++)
    status = pp_profile_add_unit (merged, &in.units[i], err, sizeof err);
  if (status)
    tool_error (path, "%s", err);
  pp_profile_free (&in);
  return status ? -1 : 0;
}

/* Writes buf to a temporary file beside path, then renames it over path.  Returns
   0, or -1 with errno set.  */
static int
replace_file (const char *path, const unsigned char *buf, size_t len)
{
  size_t n = strlen (path) + sizeof ".XXXXXX";
  char *tmp = malloc (n);
  if (!tmp)
    return -1;
  snprintf (tmp, n, "%s.XXXXXX", path);
  int fd = mkstemp (tmp);
  if (fd < 0)
    {
      free (tmp);
      return -1;
    }
  /* mkstemp creates the file 0600; give it the mode a plain creat would.  */
  mode_t mask = umask (0);
  umask (mask);
  int rc = fchmod (fd, 0666 & ~mask);
  if (rc == 0)
    rc = pp_write_all (fd, buf, len);
  if (rc == 0)
    rc = fsync (fd);
  int saved = errno;
  if (close (fd) && rc == 0)
    {
      rc = -1;
      saved = errno;
    }
  if (rc == 0 && rename (tmp, path))
    {
      rc = -1;
      saved = errno;
    }
  if (rc)
    unlink (tmp);
  free (tmp);
  errno = saved;
  return rc;
}

int
merge_command (int argc, char **argv)
{
  int parsed = tool_parse_options (argc, argv, NULL);
  if (parsed >= 0)
    return parsed;
  if (argc - optind < 2)
    return tool_usage_error ("merge: expected an output file and at least "
			     "one input");
  const char *out = argv[optind];

  pp_profile merged = { 0 };
  int status = 0;
  for (int i = optind + 1; i < argc && status == 0; i++)
    status = merge_file (&merged, argv[i]);

  unsigned char *buf = NULL;
  size_t len;
  if (status == 0 && pp_profile_encode (&merged, &buf, &len))
    {
      tool_error (out, "out of memory");
      status = -1;
    }
  if (status == 0 && replace_file (out, buf, len))
    {
      tool_error (out, "cannot write: %s", strerror (errno));
      status = -1;
    }
  free (buf);
  pp_profile_free (&merged);
  return status ? EXIT_FAILURE : EXIT_SUCCESS;
}
