/* The commands of the pathprof tool and what they share.  A command is a function
   taking its own argument vector (argv[0] is the command's name) and returning the
   exit status; pathprof.c dispatches to it from its table of commands.  */

#ifndef PATHPROF_TOOLS_COMMANDS_H
#define PATHPROF_TOOLS_COMMANDS_H

#include "path-counts.h"
#include "report.h"

int show_command (int argc, char **argv);
int lcov_command (int argc, char **argv);
int merge_command (int argc, char **argv);
int stats_command (int argc, char **argv);
int json_command (int argc, char **argv);
int paths_command (int argc, char **argv);
int dot_command (int argc, char **argv);
int residual_command (int argc, char **argv);
int trace_command (int argc, char **argv);
int modes_command (int argc, char **argv);

/* Prints "pathprof: FILE: reason" on stderr (without "FILE: " when file is NULL).  */
void tool_error (const char *file, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
/* Notes on stderr each function of r whose edge counts are not all known.  */
void tool_note_unknown_edges (const char *file, const report *r);
/* Prints "pathprof: reason" and the usage on stderr; returns the exit status for
   a usage error.  */
int tool_usage_error (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2)));
/* Reports a failure of getopt_long (which returned c, '?' or ':', with opterr 0
   and optstring starting with ':') as a usage error.  */
int tool_option_error (const char *command, int c, char **argv);
/* Parses ARG, the value of OPTION of COMMAND, as a number of paths into *n.
   Returns -1, or the exit status of the usage error it printed.  */
int tool_number_of_paths (const char *command, const char *option,
			  const char *arg, uint64_t *n);
/* paths.c, for the commands that list paths.  Walks the functions of r's
   units of a mode (unit_wanted), those named function_name (NULL: all), calling
   each on each, with "unit NAME: mode M, runs N" before a unit's first when
   unit_headers.  Errors (each's, or no unit of the mode, no function of that
   name) are printed naming the file; returns 0 or -1.  */
struct each_path_function
{
  const char *file, *function_name;
  bool (*unit_wanted) (const report_unit *ru);
  const char *mode_option;	/* the mode's -fplugin-arg-pathprof-mode= */
  bool unit_headers;
  int (*each) (const report_unit *ru, const report_function *f, void *data,
	       char *err, size_t errlen);
  void *data;
};
int paths_each_function (const report *r, const struct each_path_function *w);
/* Prints one path of f as `pathprof paths` does: "  path N: count C" with MARK
   and how it starts and ends, then its blocks and source lines.  EDGES has room
   for p->max_path_edges.  Returns 0, or -1 when out of memory.  */
int paths_print_path (const report_unit *ru, const report_function *f,
		      const pp_paths *p, const path_count *pc, const char *mark,
		      uint32_t *edges);

/* ip-paths.c: `pathprof paths` of the interprocedural mode's program
   records, the top hottest paths of each (after what the units printed when
   after_units).  Returns 0 or -1.  */
int ip_paths_print (const report *r, uint64_t top, bool after_units);
/* Prints segment NUM of root procedure ROOT of program P (of segments) as
   `pathprof paths` does: "  path NUM of ROOT: count COUNT" and its pieces.
   Returns 0, or -1 when out of memory.  */
int ip_segment_print (struct report_program *p, uint32_t root, uint64_t num,
		      uint64_t count);

/* Prints the usage on stdout; returns the exit status for --help.  */
int tool_help (void);
/* An option of a command, --NAME: a value into *text; or a number of paths
   into *paths (tool_number_of_paths checks it); *on (if not NULL) set when
   it is given.  A table of them ends with a NULL name.  */
typedef struct tool_option
{
  const char *name;
  const char **text;
  uint64_t *paths;
  bool *on;
} tool_option;
/* Parses the options of a command: OPTS (NULL: none) and --help.  Returns -1
   with optind at the first operand, or the exit status to return at once
   (after --help, or a usage error it printed).  */
int tool_parse_options (int argc, char **argv, const tool_option *opts);
/* The same for a command that takes one file, WHAT ("profile file"): -1 with
   *path set, or the exit status to return at once.  */
int tool_file_arguments (int argc, char **argv, const tool_option *opts,
			 const char *what, const char **path);
/* Loads and interprets profile PATH into R, printing the error on failure (returns
   -1) and a note for functions with unknown edge counts when NOTE_UNKNOWN.  */
int tool_load_report (report *r, const char *path, bool note_unknown);
/* The start of a command that reports one profile file: tool_file_arguments,
   then tool_load_report.  Returns -1 with *path set and R loaded, or the exit
   status to return at once.  */
int tool_open_report (int argc, char **argv, const tool_option *opts,
		      bool note_unknown, const char **path, report *r);

#endif
