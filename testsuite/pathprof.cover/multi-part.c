/* The second unit of multi-main.c.  */

int
part_sum (int n)			/* covered calls(part_sum, 1) */
{
  int s = 0;				/* covered */
  for (int i = 0; i < n; i++)		/* covered */
    s += i;				/* covered */
  if (s < 0)				/* covered */
    return -1;				/* not covered */
  return s;				/* covered */
}

int
part_unused (int n)			/* not covered calls(part_unused, 0) */
{
  return n * 2;				/* not covered */
}
