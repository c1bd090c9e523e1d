/* pinclock.c: a time() that returns $PIN_CLOCK, for LD_PRELOAD into
 * htsim_roce and htsim_hpcc, whose ECMP path ids come from time(NULL)
 * (docs/engine.md). TestCompareRandomCasesWithHtsim takes it as $HTSIM_PRELOAD:
 *   cc -shared -fPIC -O2 -o pinclock.so tools/htsimconv/testdata/pinclock.c
 * Synthetic: written for this repository. */
#include <stdlib.h>
#include <time.h>

time_t time(time_t *t)
{
	const char *s = getenv("PIN_CLOCK");
	time_t v = s ? (time_t)atoll(s) : 0;
	if (t)
		*t = v;
	return v;
}
