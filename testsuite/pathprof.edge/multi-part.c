/* Second unit of multi-main.c.  */
int
classify (int x)		/* count(25) calls(classify, 25) */
{
  if (x < 0)			/* count(25) */
    return 0;			/* count(5) */
  else if (x % 3 == 0)		/* count(20) */
    return 1;			/* count(7) */
  return 2;			/* count(13) */
}
