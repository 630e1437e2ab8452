#include "wordtab.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void
tokenize (const char *text, void (*emit) (const char *, size_t, void *),
	  void *arg)
{
  char buf[64];
  size_t len = 0;
  for (const char *p = text;; p++)
    {
      if (isalpha ((unsigned char) *p) || (*p == '\'' && len > 0))
	{
	  if (len < sizeof buf)
	    buf[len++] = (char) tolower ((unsigned char) *p);
	}
      else
	{
	  if (len > 0)
	    emit (buf, len, arg);
	  len = 0;
	  if (*p == '\0')
	    break;
	}
    }
}
